"""What verify runs, as plain data: built from the static pass, consumed by the driver.

Kept free of torch and of the index's types so the driver can be fed by hand
(tests, other front ends) and so the CLI can plan a run before it knows torch
is installed. The static pass is read through a handful of attributes only
(``fqn``, ``module``, ``summary.qualname``, ``summary.class_line``, ``path``, ``roles``,
``is_interface``, ``pair``, and the analysis's ``suppressed`` findings),
which keeps this module's coupling to the index to those names.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, field, replace
from pathlib import Path
from typing import Any

from ppaux_lint.project.discover import importable
from ppaux_lint.rules import all_rules
from ppaux_lint.runtime.terms.composites import composite_returners
from ppaux_lint.runtime.terms.exposures import LOCALS, exposures, is_local
from ppaux_lint.support.records import dataclass

OUTPUT = "output"
OBSERVER = "observer"
PRODUCER = "producer"
PART = "part"


@dataclass(frozen=True)
class ClassRef:
    """How to import one class, and how to build an example of it.

    An empty ``module`` means the static pass never saw the class (a config
    override named it), so the importer finds the module part of ``symbol``
    itself. ``unimportable`` is non-empty when the static pass already knows the class
    cannot be imported (defined inside a function that exposes nothing of it, outside any package); the
    driver then reports a skip with that reason rather than failing an import.
    ``line`` is where its ``class`` statement is (0: unknown), for reports that
    point at the class, such as pytest's. ``exposed`` are the module-level names (``module:name``) that hold
    a class defined inside a function, or an instance of it (``exposures.py``): the importer takes the class
    from there. ``returned_by`` names the observer whose ``after_sample`` is the only way to the class:
    one defined in a function that exposes nothing but that observer, or, with an empty ``qualname``, no
    known class at all (an observer judged on whatever it returns); such a class is only ever driven.
    """

    symbol: str
    module: str
    qualname: str
    path: str = ""
    factory: str | None = None
    unimportable: str = ""
    findings: tuple[str, ...] = ()
    line: int = 0
    exposed: tuple[str, ...] = ()
    returned_by: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClassRef:
        return cls(**{**data, "findings": tuple(data.get("findings", ())), "exposed": tuple(data.get("exposed", ()))})

    @property
    def exposed_as(self) -> str:
        """For a message, the module-level name a class defined in a function is taken from
        (`` (as pkg.mod.OBSERVER)``), or ""."""
        return f" (as {self.exposed[0].replace(':', '.')})" if self.exposed else ""


@dataclass(frozen=True)
class VerifyTarget:
    """One row of the report: the class ``symbol``, and the round trip that tests it.

    For an output row ``output`` is the class itself and ``observer`` the one
    that rebuilds it (None when nothing does, in which case only the sending
    half runs). For an observer row the round trip is the one of the output it
    rebuilds; for an observer that rebuilds no known output, ``output`` stands
    for whatever its ``after_sample`` returns (``ClassRef.returned_by``), and
    when its hooks return nothing it is only probed: if it cannot take part in
    PP transport at all it fails with SGLang's error, else it is skipped with
    ``reason``. ``skip`` short-circuits the row; ``device`` overrides the run's
    device. ``producer`` is the sampling observer whose hooks verify drives to
    make the output's examples (``driving/drive.py``): one the static pass saw return
    the output (on an observer's row that observer when it is one, else the
    rebuilding observer first); else the rebuilding observer, whose
    ``after_sample`` may still return it. None: nothing to drive.
    ``part`` is set on a part's row: the part itself, while ``output`` is the container whose round trip
    judges it, since SGLang sends a part only inside its container's mapping (``run/parts.py`` words the
    verdict). ``own`` is the row's own class, wherever the row is placed (the pytest plugin's items).
    """

    symbol: str
    role: str
    output: ClassRef | None = None
    observer: ClassRef | None = None
    device: str | None = None
    skip: str = ""
    reason: str = ""
    producer: ClassRef | None = None
    part: ClassRef | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifyTarget:
        refs = {k: ClassRef.from_json(data[k]) if data.get(k) else None for k in (OUTPUT, OBSERVER, PRODUCER, PART)}
        return cls(**{**data, **refs})

    @property
    def own(self) -> ClassRef | None:
        """The ``ClassRef`` of the row's own class: an observer's row also names the output it rebuilds, and a
        part's row its container."""
        return self.part or (self.output if self.role == OUTPUT else self.observer)

    @property
    def run_key(self) -> tuple[str, str, str, str | None]:
        """Rows with the same key share one round trip, so each pair runs once."""
        return (
            self.output.symbol if self.output else "",
            self.observer.symbol if self.observer else "",
            self.producer.symbol if self.producer else "",
            self.device,
        )


@dataclass(frozen=True)
class VerifySettings:
    """The ``[tool.ppaux-lint.verify]`` tables, keyed by fully qualified class name.

    Mirrors the config's own settings so that this module stays usable
    without the static pass (and tests can plan runs by hand).
    """

    examples: Mapping[str, str] = field(default_factory=dict)
    devices: Mapping[str, str] = field(default_factory=dict)
    pairs: Mapping[str, str] = field(default_factory=dict)


def targets_from_analysis(analysis: Any) -> list[VerifyTarget]:
    """Plan a verify run from ``ppaux_lint.check.engine.analyze``'s result, for the files that were asked about.

    The index holds every class of the project (a base may live in a file
    nobody named), but rows are due only for the classes in the files asked
    about, as with ``check``'s findings.
    """
    verify = analysis.project.config.verify
    settings = VerifySettings(examples=verify.examples, devices=verify.devices, pairs=verify.pairs)
    codes: dict[str, set[str]] = {}
    for finding in analysis.findings:
        codes.setdefault(finding.symbol, set()).add(finding.code)
    asked = {Path(p) for p in analysis.discovery.targets}
    rows = {c.fqn for c in analysis.classes.values() if Path(c.path) in asked}
    local = {c.fqn for c in analysis.classes.values() if c.roles and is_local(c.summary.qualname)}
    observers = [c.fqn for c in analysis.classes.values() if c.fqn in rows and c.is_observer]
    targets = build_targets(analysis.classes.values(), settings, codes, rows, untransported(analysis.suppressed),
                            exposures(analysis, local), composite_returners(analysis, observers))
    return [_skip_never_sent(target, analysis.classes) for target in targets]


def _skip_never_sent(target: VerifyTarget, classes: Mapping[str, Any]) -> VerifyTarget:
    """A forward output never meets the PP helpers (SGLang refuses a forward observer when ``pp_size > 1``),
    a class with no instance of its own (abstract, a base only subclassed) is sent only as one of its
    subclasses, which have rows of their own, a part travels only inside its containers' mapping (its row is
    judged in a container's round trip, see ``build_targets``; here only one that no discovered container
    holds), and an observer whose ``after_sample`` never returns an output sends nothing: a round trip would
    test nothing that production does, so the row says why instead, as ``check`` is silent about it."""
    info = classes.get(target.symbol)
    if target.skip or info is None or target.part:
        return target
    forward_by = getattr(info, "forward_only_by", ())
    if forward_by:
        return replace(target, skip=f"a forward output of {', '.join(forward_by)}: forward observers are refused "
                                    "with pp_size > 1, so it never crosses a pipeline stage")
    not_instantiated = getattr(info, "not_instantiated", "")
    if not_instantiated:
        return replace(target, skip=f"{not_instantiated}: its subclasses' rows judge what crosses a stage")
    part_of = getattr(info, "part_of", ())
    if part_of:
        return replace(target, skip=f"a part of {', '.join(part_of)}: it crosses a pipeline stage only inside their "
                                    "mapping, so their rows judge it")
    no_output = getattr(info, "no_output", "")
    if no_output and not getattr(info, "is_output", False):
        return replace(target, skip=f"{no_output}, so no output of it crosses a pipeline stage")
    return target


def untransported(suppressed: Iterable[Any]) -> dict[str, str]:
    """The classes declared never to cross a pipeline stage, each with where that is declared.

    Silencing a rule whose finding means "this class cannot be sent (or rebuilt)" is such a declaration:
    the user says the class is not used with pipeline parallelism, so a round trip that fails as the finding
    predicts proves nothing. Which rules those are is theirs to say (``Rule.declares_untransported``).
    ``suppressed`` holds ``ppaux_lint.check.selection.Suppressed`` records (``finding``, ``how``, ``where``).
    """
    codes = {rule.code for rule in all_rules() if rule.declares_untransported}
    declared: dict[str, str] = {}
    for item in suppressed:
        code = item.finding.code
        if code in codes and item.finding.symbol not in declared:
            declared[item.finding.symbol] = (f"`# noqa: {code}` at {item.where}" if item.how == "noqa"
                                             else f"per-file-ignores {item.where!r} for {code}")
    return declared


def build_targets(
    classes: Iterable[Any],
    settings: VerifySettings,
    finding_codes: Mapping[str, Iterable[str]] | None = None,
    rows: Collection[str] | None = None,
    declared: Mapping[str, str] | None = None,
    exposed: Mapping[str, tuple[str, ...]] | None = None,
    combining: Collection[str] = (),
) -> list[VerifyTarget]:
    """One target per output or observer class named in ``rows`` (default: all), sorted by name.

    ``classes`` should be every class of the project, not just the rows, so
    that an observer can be paired with an output that lives elsewhere.
    Protocols (interfaces) get no row, as they get no findings from ``check``.
    ``declared`` maps the classes declared never to cross a stage to where
    that is declared (see ``untransported``): their rows are skips that quote
    it, and so are the rows whose round trip goes through one of them.
    ``exposed`` maps a class defined in a function to the module-level names that hold it (``exposures.py``);
    ``combining`` are the observers whose ``after_sample`` returns what SGLang's ``append_auxiliary_output``
    makes (``composites.py``), judged on what they return whatever output they rebuild.

    What SGLang sends decides what is judged. An observer that rebuilds no discovered output is driven, and
    whatever its ``after_sample`` returns makes its round trip (SGLang's composite of 0.5.23, which has no
    ``to_pp_tensors``, fails as SGLang fails). A part (``ClassInfo.part_of``) is judged inside the round trip
    of a container that holds it, preferring one whose other parts ``check`` has no findings on, so that a
    correct part is not blamed for a broken neighbour (``run/parts.py`` words the verdict).
    """
    codes = finding_codes or {}
    known = {c.fqn: c for c in classes if c.roles and not c.is_interface}
    names = exposed or {}

    def reachable(fqn: str) -> bool:
        return fqn in known and (fqn in names or not is_local(known[fqn].summary.qualname))

    def ref(fqn: str) -> ClassRef:
        info = known.get(fqn)
        found = tuple(sorted(codes.get(fqn, ())))
        if info is None:  # named only by a config override: the importer splits the name itself
            return ClassRef(fqn, "", "", factory=settings.examples.get(fqn), findings=found)
        qualname = info.summary.qualname
        through = "" if reachable(fqn) else next(
            (o for o in getattr(info, "returned_by", ()) if reachable(o) and known[o].is_observer), "")
        return ClassRef(
            symbol=fqn,
            module=info.module,
            qualname=qualname,
            path=str(info.path),
            factory=settings.examples.get(fqn),
            unimportable="" if through else _unimportable(info, bool(names.get(fqn))),
            findings=found,
            line=info.summary.class_line,
            exposed=names.get(fqn, ()),
            returned_by=through,
        )

    rebuilders: dict[str, list[str]] = {}
    for fqn, info in sorted(known.items()):
        if info.is_observer and info.pair:
            rebuilders.setdefault(info.pair, []).append(fqn)
    for out, obs in settings.pairs.items():
        rebuilders[out] = [obs] + [o for o in rebuilders.get(out, []) if o != obs]
    claimed = {obs: out for out, obs in settings.pairs.items()}

    def producer(output: str, observer: str | None) -> ClassRef | None:
        info = known.get(output)
        returned = [o for o in getattr(info, "returned_by", ()) if o in known and known[o].is_observer]
        chosen = observer if observer is not None and (observer in returned or not returned) else (
            returned[0] if returned else None)
        return ref(chosen) if chosen else None

    def trip_of(output: str) -> tuple[ClassRef, ClassRef | None, ClassRef | None]:
        """The round trip that judges ``output``: it, its rebuilding observer and its producer."""
        observer = rebuilders.get(output, [None])[0]
        return ref(output), ref(observer) if observer else None, producer(output, observer)

    def container(part: Any) -> str | None:
        """The container whose round trip judges ``part``: the first that holds only parts check is silent on;
        when that container is itself a part, the one that sends it, and so on up."""
        seen = {part.fqn}
        while True:
            holders = [c for c in getattr(part, "part_of", ()) if c in known and known[c].is_output]
            clean = [c for c in holders if not any(
                codes.get(p) for p in known if p != part.fqn and c in getattr(known[p], "part_of", ()))]
            holder = (clean or holders or [None])[0]
            if holder is None or holder in seen or not getattr(known[holder], "part_of", ()):
                return holder
            seen.add(holder)
            part = known[holder]

    targets = []
    for fqn, info in sorted(known.items()):
        if rows is not None and fqn not in rows:
            continue
        device = settings.devices.get(fqn)
        judged = (info.is_output and not getattr(info, "forward_only_by", ())
                  and not getattr(info, "not_instantiated", ""))
        holder = container(info) if judged else None
        if holder is not None:
            output, observer, made_by = trip_of(holder)
            targets.append(VerifyTarget(fqn, OUTPUT, output, observer, device or settings.devices.get(holder),
                                        producer=made_by, part=ref(fqn)))
            continue
        if info.is_output:
            output, observer, made_by = trip_of(fqn)
            targets.append(VerifyTarget(fqn, OUTPUT, output, observer, device, producer=made_by))
            continue
        output = claimed.get(fqn) or info.pair
        paired = output is not None and (fqn in claimed or (output in known and known[output].is_output))
        if paired and fqn not in combining:
            device = device or settings.devices.get(output)
            # Its own hooks make the examples when it returns the output too: an observer is judged on what
            # its after_sample returns, not on what another observer of the same output makes.
            made_by = fqn if fqn in getattr(known.get(output), "returned_by", ()) else rebuilders.get(output, [fqn])[0]
            targets.append(VerifyTarget(fqn, OBSERVER, ref(output), ref(fqn), device,
                                        producer=producer(output, made_by)))
            continue
        how = "no known output class" if output is None else f"{output}, which is not a discovered output class"
        reason = (
            f"rebuilds {how}; to run its round trip, name the output in "
            f'[tool.ppaux-lint.verify.pairs] ("pkg.mod.Output" = "{fqn}")'
        ) if not paired else (f"its after_sample combines outputs with SGLang's append_auxiliary_output, so it is "
                              f"judged on what that returns, not on {output}")
        own = ref(fqn)
        # Named apart from the output it rebuilds, if any: its round trip is its own, never that output's.
        returned = ClassRef(output if output and not paired else f"what {fqn}.after_sample returns", "", "",
                            returned_by=fqn)
        targets.append(VerifyTarget(fqn, OBSERVER, returned, own, device, reason=reason, producer=own))
    return [_skip_declared(target, declared or {}) for target in targets]


def _skip_declared(target: VerifyTarget, declared: Mapping[str, str]) -> VerifyTarget:
    if target.symbol in declared:
        return replace(target, skip=f"{declared[target.symbol]} declares it never crosses a pipeline stage")
    for ref in (target.output, target.observer):
        if ref is not None and ref.symbol in declared:
            return replace(target, skip=f"its round trip goes through {ref.symbol}, which {declared[ref.symbol]} "
                                        "declares never crosses a pipeline stage")
    return target


def _unimportable(info: Any, exposed: bool) -> str:
    qualname = info.summary.qualname
    if is_local(qualname) and not exposed:
        function = qualname.split(f".{LOCALS}.")[0]
        return (f"defined inside a function ({qualname}), and no module-level name holds it or an instance of it, "
                f"so it cannot be imported; to verify it, bind what the function makes at module level "
                f"(Name = {function}(...)), or return it from an observer that is")
    if not importable(info.module):
        return f"in a file whose path is not an importable module ({info.path}), so it cannot be imported"
    return ""
