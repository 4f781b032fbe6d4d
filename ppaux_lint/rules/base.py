"""What a rule is, and what every rule's check receives.

A rule is data plus one function: its code, name and summary; ``check``, which reads the project index
(never a syntax tree, never another rule) and yields findings; and, where it has a fix, the fix declared as
data: ``fix`` says how far it may be trusted (``NO_FIX``, ``SAFE_FIX`` or ``UNSAFE_FIX``) and ``fix_kind``
names the fix (``"rename-near-miss"``). The rule does not know how the fix is built: :mod:`ppaux_lint.fixes`
reads the declared kind and runs its builder, so the rules never import the fix machinery and a ``check``
without fixable findings never loads it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple, TypeVar

from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import FileSummary, MethodSummary
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.parts import MERGED, RETURNED
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.support.records import dataclass

NO_FIX, SAFE_FIX, UNSAFE_FIX = "none", "safe", "unsafe"
_TYPE = "builtins.type"
_NOT_MADE = object()
Shared = TypeVar("Shared")


def _undeclared(path: str) -> str | None:
    return None


@dataclass(frozen=True)
class CheckContext:
    index: ProjectIndex
    summaries: tuple[FileSummary, ...]  # every summary, parse failures included
    # The ``requires-python`` of the project a file belongs to, for findings true on some Python versions only
    # (``project/python_versions.py``); None when it declares none.
    requires_python: Callable[[str], str | None] = _undeclared

    def implementations(self) -> list[ClassInfo]:
        """Outputs and observers that may have instances of their own: the ones rules judge."""
        return [info for info in self.concrete() if info.roles]

    def concrete(self) -> list[ClassInfo]:
        """Every class that may have instances of its own, recognised or not: not an interface, not abstract,
        not an output base that only its subclasses instantiate (``instances.py``), not a metaclass (a subclass
        of ``type``, whose instances are classes: its ``to_pp_tensors`` is their classes' attribute, which no
        instance of theirs sees). Made again only when the index lists another class (``ProjectIndex.listing``):
        a dozen rules ask."""
        listing = self.index.listing()
        made = self._shared.get(CheckContext.concrete)
        if made is None or made[0] is not listing:
            made = self._shared[CheckContext.concrete] = (listing, [
                info for info in listing.values()
                if not info.is_interface and not info.not_instantiated and _TYPE not in info.ancestry])
        return list(made[1])

    def sending(self) -> list[ClassInfo]:
        """The concrete classes whose instances' ``to_pp_tensors`` the PP path asks for: handed to
        ``add_auxiliary_output_to_pp_tensors`` themselves, or a part whose container there calls it. Not an
        output that only forward observers return (``routes.py``), nor a part that only ever travels inside
        another output, or whose container reads its attributes (``parts.py``)."""
        return [info for info in self.concrete() if not info.forward_only_by and (not info.part_of or info.part_calls)]

    @functools.cached_property
    def _runs(self) -> dict[str, Run]:
        """Per class, how the ``to_pp_tensors`` it defines may run on the PP path: on a sending instance of the class
        itself or of a subclass (which inherits it, or calls it through ``super()``: ``_above``). A class with no
        instance of its own (``instances.py``) that no subclass on the PP path reaches keeps the judgement of any
        other: it has none to say otherwise; one whose sending subclasses all override its method without calling
        it is never run, and not judged. Absent: a class whose instances nothing on the PP path asks (forward-only,
        a part read only)."""
        found: dict[str, set[Run]] = {}  # a set: the subclasses of a deep hierarchy's base mostly run alike
        passed: set[str] = set()  # bases a sending subclass overrides without calling up to them
        # (class, run) where a walk went on along the class's own MRO: one that meets it there again would add
        # nothing (``tail_at``); every class of a chain walked the whole rest of it, n * n / 2 steps
        walked: set[tuple[str, Run]] = set()
        index = self.index
        for info in self.sending():
            run: Run | None = _own_run(info)
            ancestry = info.ancestry
            tail: int | None = 0 if index.mro(info.fqn) is ancestry else None  # memoised: the class's own MRO
            for position, cls in enumerate(ancestry):  # the class itself first, then up to the first that holds
                if position == tail:
                    if (cls, run) in walked:
                        break
                    walked.add((cls, run))
                    step = index.tail_at(cls, index.mro(cls))
                    tail = None if step is None else position + step
                found.setdefault(cls, set()).add(run)  # the method, and above it as far as each holder calls up
                run = self._above(cls, run)
                if run is None:
                    passed.update(ancestry[position + 1:])
                    break
        for info in self.index.iter_infos():
            if info.fqn not in found and info.fqn not in passed and not info.is_interface and info.not_instantiated:
                found[info.fqn] = {Run(alone=True)}
        return {cls: next(iter(runs)) if len(runs) == 1 else Run(any(r.alone for r in runs),
                                                                  _joined(r.merged_into for r in runs),
                                                                  _joined(r.renamed_by for r in runs))
                for cls, runs in found.items()}

    def _above(self, cls: str, run: Run) -> Run | None:
        """How the ``to_pp_tensors`` above ``cls`` along an instance's MRO runs, when ``cls`` is met with ``run``: as
        ``run`` when ``cls`` holds none of its own (or one the analysis cannot see), or returns the one above as its
        mapping; inside ``cls``'s when it merges or renames what the one above returns (``{**super().to_pp_tensors(),
        ...}``); not at all when it holds one that calls none above (a base's placeholder that every sending subclass
        overrides is never run)."""
        member = self.index.lookup(cls, TO_PP)
        if member is None or member.owner != cls or member.method is None:
            return run
        up = member.method.up
        if up == "returned":
            return run
        if up == MERGED:
            return Run(merged_into=(cls,))
        return Run(renamed_by=(cls,)) if up else None

    def run(self, info: ClassInfo) -> Run | None:
        """How the class's own ``to_pp_tensors`` runs on the PP path; None when nothing on it calls it."""
        return self._runs.get(info.fqn)

    def runners(self, info: ClassInfo, method: str) -> list[str]:
        """The classes whose instances run ``info``'s own ``method``: itself unless it has no instance of its own,
        and each subclass that inherits that method and may have instances."""
        index = self.index
        found = [] if info.not_instantiated else [info.fqn]
        for fqn in index.subclasses(info.fqn):
            other = index.info(fqn)
            if not other.not_instantiated and not other.is_interface:
                member = index.lookup(fqn, method)
                if member is not None and member.owner == info.fqn:
                    found.append(fqn)
        return found

    def own_methods(self, name: str) -> Iterator[OwnMethod]:
        """Each class's own ``name`` in its final namespace (its statement's ``def``, a project function it binds,
        or one a decorator or a later assignment sets on it: ``namespaces.py``), so a method is judged once per
        class that holds it, where it is written: in an abstract base or a base only subclassed too, since its
        subclasses run it (an ``@abstractmethod`` stub is a declaration, judged in the classes that implement
        it). Interfaces are not judged, nor is a class whose namespace the analysis cannot know, nor a
        ``to_pp_tensors`` that nothing on the PP path runs (``run``): one of an output only forward observers
        return, or of a part whose container never calls it. Several rules ask for the same name, so each
        name's list is made once."""
        found = self._own.get(name)
        if found is None:
            found = self._own[name] = tuple(self._find_own_methods(name))
        return iter(found)

    @functools.cached_property
    def _own(self) -> dict[str, tuple[OwnMethod, ...]]:
        return {}

    def shared(self, key: object, make: Callable[[], Shared]) -> Shared:
        """What ``make`` gives, made once per context: what several rules read alike (``sent.returned_items``: PPA011,
        PPA012 and PPA013 each walked every returned item of every class, computing each key again), under ``key``,
        the function that asks."""
        found = self._shared.get(key, _NOT_MADE)
        if found is _NOT_MADE:
            found = self._shared[key] = make()
        return found  # type: ignore[return-value]

    @functools.cached_property
    def _shared(self) -> dict[object, object]:
        return {}

    def _find_own_methods(self, name: str) -> Iterator[OwnMethod]:
        for info in self.index.iter_infos():
            run = self.run(info) if name == TO_PP else None
            if info.is_interface or (name == TO_PP and run is None):
                continue
            member = self.index.lookup(info.fqn, name)
            if member is None or member.owner != info.fqn or member.method is None or member.site is None:
                continue
            if not _is_abstract_stub(member.method):
                site = member.site
                yield OwnMethod(info, name, member.method, site.path, site.module, site.scope, member.origin,
                                run.inside() if run is not None else "")


@dataclass(frozen=True)
class OwnMethod:
    """A class's own method as a rule judges it: the class, the name it has there and its summary, where it is
    written (``path``: where its spans are; ``module`` and ``scope``: where the names in it resolve), how the
    class got it when its statement did not write it (``origin``), and, for a part's ``to_pp_tensors``, the
    containers whose own it runs inside (``inside``): both for messages."""

    info: ClassInfo
    name: str
    method: MethodSummary
    path: str
    module: str
    scope: str
    origin: str = ""
    inside: str = ""

    @property
    def where(self) -> str:
        """How messages name it: "`pkg.Out.to_pp_tensors`", then "(added by `pkg.deco.pp_fields` (line 14))" when
        a decorator or an assignment gave it, and "(sent inside `pkg.Bundle.to_pp_tensors`)" for a part's."""
        named = f"`{self.info.fqn}.{self.name}`"
        return named + (f" ({self.origin})" if self.origin else "") + self.inside


def _own_run(info: ClassInfo) -> Run:
    """How a sending class's instances meet ``to_pp_tensors``: handed to the helper, or as a called part."""
    if not info.part_of:
        return Run(alone=True)
    calls = info.part_calls
    return Run(any(how == RETURNED for _, how in calls), tuple(sorted({c for c, how in calls if how == MERGED})),
               tuple(sorted({c for c, how in calls if how not in (RETURNED, MERGED)})))


def _joined(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(sorted({name for group in groups for name in group}))


class Run(NamedTuple):
    """How a class's own ``to_pp_tensors`` runs on the PP path: ``alone`` when the helper gets what it returns as
    the whole mapping (an instance that runs it is handed to the helper, or a container returns its mapping
    as its own); ``merged_into``, the containers that put its names and tensors into their own mapping;
    ``renamed_by``, those that send its tensors under names of their own. An empty mapping is only the
    helper's business when it arrives ``alone``; a bad name, unless every container renames it. A tuple: each
    class on the PP path puts its run into a set for every class above it, and a tuple hashes in C."""

    alone: bool = False
    merged_into: tuple[str, ...] = ()
    renamed_by: tuple[str, ...] = ()

    def inside(self) -> str:
        """`` (sent inside `pkg.Bundle.to_pp_tensors`)`` for a part's ``to_pp_tensors`` that only runs in its
        containers', whose mapping the helper checks: "" for one the helper gets alone."""
        if self.alone:
            return ""
        return f" (sent inside {', '.join(f'`{c}.{TO_PP}`' for c in (*self.merged_into, *self.renamed_by))})"


def _is_abstract_stub(method: MethodSummary) -> bool:
    return method.body_is_stub and any(d.rsplit(".", 1)[-1] == "abstractmethod" for d in method.decorators)


MAY_NOT_REACH = "its examples may not reach the code the finding is about"
AT_RUN_TIME = ("at run time the {role} had a working {method}, which check did not see defined (a decorator, a "
               "metaclass or a dynamic assignment may add it)")
"""For the rules that find a method missing: the round trip called it, so it exists at run time."""


@dataclass(frozen=True)
class Rule:
    """One rule. ``code`` is a public interface (CI configs and ``# noqa`` comments name it): it is never
    renumbered, and a retired rule keeps its code reserved."""

    code: str
    name: str
    summary: str
    check: Callable[[CheckContext], Iterable[Finding]]
    fix: str = NO_FIX  # what ``--fix`` can do: NO_FIX, SAFE_FIX or UNSAFE_FIX
    # Which fix, by name, when ``fix`` is not NO_FIX: ``ppaux_lint.fixes`` builds it. A name, not a function,
    # so that the rule stays data and the rules never import the fixes.
    fix_kind: str | None = None
    # A noqa comment naming this rule on a class declares that the class never crosses a pipeline stage, so
    # ``verify`` skips it instead of failing it.
    declares_untransported: bool = False
    # Why a ``verify`` round trip can pass beside this rule's finding, ending "this round trip passed because
    # ...", with ``{role}``, ``{method}`` and ``{observer}`` filled in by ``verify``: a pass beside a finding
    # looks like a contradiction, and the rule knows best why it is not one.
    passed_despite: str = MAY_NOT_REACH

    def finding(self, message: str, path: str, span, symbol: str, **extra) -> Finding:
        return Finding(code=self.code, message=message, path=path, span=span, symbol=symbol, **extra)

    @property
    def document(self) -> str:
        return rule_document(self.code)


def rule_document(code: str) -> str:
    """The rule's Markdown document, shipped inside the package so installed copies can print it."""
    from importlib import resources  # not at start-up: it loads zipfile and tempfile, which few commands need

    return resources.files(__package__).joinpath(f"{code}.md").read_text(encoding="utf-8")
