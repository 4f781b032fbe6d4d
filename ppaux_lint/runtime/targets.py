"""What verify runs, as plain data: built from the static pass, consumed by the driver.

Kept free of torch and of the index's types so the driver can be fed by hand
(tests, other front ends) and so the CLI can plan a run before it knows torch
is installed. The static pass is read through a handful of attributes only
(``fqn``, ``module``, ``summary.qualname``, ``path``, ``roles``,
``is_interface``, ``pair``), which keeps this module's coupling to the index
to those names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

OUTPUT = "output"
OBSERVER = "observer"


@dataclass(frozen=True)
class ClassRef:
    """How to import one class, and how to build an example of it.

    An empty ``module`` means the static pass never saw the class (a config
    override named it), so the importer finds the module part of ``symbol``
    itself. ``unimportable`` is non-empty when the static pass already knows the class
    cannot be imported (defined inside a function, outside any package); the
    driver then reports a skip with that reason rather than failing an import.
    """

    symbol: str
    module: str
    qualname: str
    path: str = ""
    factory: str | None = None
    unimportable: str = ""
    findings: tuple[str, ...] = ()


@dataclass(frozen=True)
class VerifyTarget:
    """One row of the report: the class ``symbol``, and the round trip that tests it.

    For an output row ``output`` is the class itself and ``observer`` the one
    that rebuilds it (None when nothing does, in which case only the sending
    half runs). For an observer row the round trip is the one of the output it
    rebuilds. ``skip`` short-circuits the row with a reason; ``device`` is a
    per-class override of the run's device.
    """

    symbol: str
    role: str
    output: ClassRef | None = None
    observer: ClassRef | None = None
    device: str | None = None
    skip: str = ""

    @property
    def run_key(self) -> tuple[str, str, str | None]:
        """Rows with the same key share one round trip, so each pair runs once."""
        return (
            self.output.symbol if self.output else "",
            self.observer.symbol if self.observer else "",
            self.device,
        )


@dataclass(frozen=True)
class VerifySettings:
    """The ``[tool.ppaux-lint.verify]`` tables, keyed by fully qualified class name."""

    examples: Mapping[str, str] = field(default_factory=dict)
    devices: Mapping[str, str] = field(default_factory=dict)
    pairs: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: Any) -> VerifySettings:
        return cls(
            examples=dict(getattr(config, "verify_examples", None) or {}),
            devices=dict(getattr(config, "verify_devices", None) or {}),
            pairs=dict(getattr(config, "verify_pairs", None) or {}),
        )


def targets_from_analysis(analysis: Any) -> list[VerifyTarget]:
    """Plan a verify run from the result of ``ppaux_lint.engine.analyze``."""
    settings = VerifySettings.from_config(getattr(analysis.project, "config", None))
    codes: dict[str, set[str]] = {}
    for finding in getattr(analysis, "findings", ()):
        codes.setdefault(finding.symbol, set()).add(finding.code)
    return build_targets(analysis.classes.values(), settings, codes)


def build_targets(
    classes: Iterable[Any],
    settings: VerifySettings,
    finding_codes: Mapping[str, Iterable[str]] | None = None,
) -> list[VerifyTarget]:
    """One target per output or observer class, sorted by name."""
    codes = finding_codes or {}
    known = {c.fqn: c for c in classes if c.roles}

    def ref(fqn: str) -> ClassRef:
        info = known.get(fqn)
        found = tuple(sorted(codes.get(fqn, ())))
        if info is None:  # named only by a config override: the importer splits the name itself
            return ClassRef(fqn, "", "", factory=settings.examples.get(fqn), findings=found)
        return ClassRef(
            symbol=fqn,
            module=info.module,
            qualname=info.summary.qualname,
            path=str(info.path),
            factory=settings.examples.get(fqn),
            unimportable=_unimportable(info),
            findings=found,
        )

    outputs = {f for f, c in known.items() if c.is_output and not c.is_interface}
    rebuilders: dict[str, list[str]] = {}
    for fqn, info in sorted(known.items()):
        if info.is_observer and not info.is_interface and info.pair:
            rebuilders.setdefault(info.pair, []).append(fqn)
    for out, obs in settings.pairs.items():
        rebuilders[out] = [obs] + [o for o in rebuilders.get(out, []) if o != obs]
    claimed = {obs: out for out, obs in settings.pairs.items()}

    targets = []
    for fqn, info in sorted(known.items()):
        device = settings.devices.get(fqn)
        if info.is_interface:
            reason = "a Protocol (lists Protocol among its bases): an interface, not an implementation"
            targets.append(VerifyTarget(fqn, OUTPUT if info.is_output else OBSERVER, skip=reason))
        elif info.is_output:
            observer = rebuilders.get(fqn, [None])[0]
            targets.append(
                VerifyTarget(fqn, OUTPUT, ref(fqn), ref(observer) if observer else None, device)
            )
        else:
            output = claimed.get(fqn) or info.pair
            if output is None:
                reason = (
                    "rebuilds no known output class; to run its round trip, name the output in "
                    f'[tool.ppaux-lint.verify.pairs] ("pkg.mod.Output" = "{fqn}")'
                )
                targets.append(VerifyTarget(fqn, OBSERVER, skip=reason))
            elif output not in outputs and fqn not in claimed:
                reason = f"rebuilds {output}, which is not among the discovered output classes"
                targets.append(VerifyTarget(fqn, OBSERVER, skip=reason))
            else:
                device = device or settings.devices.get(output)
                targets.append(VerifyTarget(fqn, OBSERVER, ref(output), ref(fqn), device))
    return targets


def _unimportable(info: Any) -> str:
    qualname = info.summary.qualname
    if "<locals>" in qualname.split("."):
        return f"defined inside a function ({info.module}.{qualname}), so it cannot be imported"
    if not info.module:
        return f"{info.path} is not inside an importable package, so it cannot be imported"
    return ""
