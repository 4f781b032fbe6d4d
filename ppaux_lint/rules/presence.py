"""Whether a transport method is there at all, as the helpers' ``isinstance`` check sees it.

PPA001, PPA002, PPA017 and PPA018 each report one answer to the same question, so they share it here: a
class lacking a method gets exactly one of them (the stub it inherits, the misspelling it carries, or the
plain absence), never two.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import FROM_PP
from ppaux_lint.facts.summary import MethodSummary
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.project_index import Member, ProjectIndex
from ppaux_lint.project.python_versions import pythons
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.rules.base import CheckContext, Rule

STUB, NEAR_MISS, MISSING, ASSIGNED_NONE, DYNAMIC = "stub", "near-miss", "missing", "none", "dynamic"
STATIC_PROTOCOLS = 12
"""The Python 3 minor version from which a runtime-checkable Protocol's ``isinstance`` looks attributes up
statically (``inspect.getattr_static``), never through ``__getattr__`` (checked on 3.10.13, 3.11.7 and 3.12.1)."""


@dataclass(frozen=True)
class Absence:
    """Why ``method`` is not usable on a class; ``near`` is (owner, misspelt method) for NEAR_MISS,
    ``owner`` the Protocol whose stub is inherited for STUB, or the class whose ``__getattr__`` offers it for
    DYNAMIC; ``member`` what the lookup found (a member set to None, a ``__getattr__``)."""

    kind: str
    owner: str = ""
    near: tuple[str, MethodSummary] | None = None
    member: Member | None = None


def absence(index: ProjectIndex, info: ClassInfo, method: str, role: str) -> Absence | None:
    """``_absence``, asked once per class, method and role of an index: PPA001, PPA002, PPA017 and PPA018 all ask
    it of every class (14,400 times on the monorepo benchmark, a tenth of its rules' time)."""
    answers = _ANSWERS.setdefault(index, {})
    key = (info.fqn, method, role)
    if key not in answers:
        answers[key] = _absence(index, info, method, role)
    return answers[key]


_ANSWERS: weakref.WeakKeyDictionary[ProjectIndex, dict[tuple[str, str, str], Absence | None]] = \
    weakref.WeakKeyDictionary()


def _absence(index: ProjectIndex, info: ClassInfo, method: str, role: str) -> Absence | None:
    """How ``method`` is missing from a class in ``role``, or None when it is there or cannot be known.

    A Protocol stub counts whatever the class's role (the explicit PP base makes it a PP implementer).
    An unresolved base might provide the method, so its absence is not known and nothing is said; nor where
    code the analysis cannot follow touches the class's namespace, or a base's the lookup passes
    (``Member.unknown``). Neither is anything said where no instance can meet the helper: callers pass
    ``CheckContext.concrete()`` classes, which have instances of their own, and ``from_pp_tensors`` is not
    asked of an observer that never returns an output (``instances.py``). A class that offers the method only
    through ``__getattr__`` is DYNAMIC: whether the helpers see it depends on the Python version.
    """
    if method == FROM_PP and info.no_output:
        return None
    member: Member | None = index.lookup(info.fqn, method)
    if member is not None and member.unknown is not None:
        return None
    if member is not None and member.stub_of_protocol:
        return Absence(STUB, owner=member.owner)
    if role not in info.roles or (member is not None and not member.is_none):
        return None
    if member is None and info.unresolved_bases:
        return None
    near = index.near_miss(info.fqn, method)
    if near is not None:
        return Absence(NEAR_MISS, owner=near[0], near=near)
    dynamic = index.dynamic_attributes(info.fqn) if member is None else None
    if dynamic is not None:
        return Absence(DYNAMIC, owner=dynamic.owner, member=dynamic)
    return Absence(ASSIGNED_NONE if member is not None else MISSING, member=member)


def missing_findings(rule: Rule, context: CheckContext, infos: Iterable[ClassInfo], method: str, role: str, *,
                     noun: str, purpose: str, helper: str, error: str,
                     route: Callable[[ClassInfo], str] | None = None) -> Iterator[Finding]:
    """The findings of a missing-method rule (PPA001, PPA002): each class in ``role`` that lacks ``method``
    outright, sets it to None, or offers it only through ``__getattr__`` on a Python version the project allows
    where the helpers no longer ask it; named with how it was recognised, how its namespace came to lack the
    method, and the error ``helper`` raises; ``route`` says, where it has something to say, how an instance
    reaches the helper."""
    from ppaux_lint.contract import pp_errors

    index = context.index
    for info in infos:
        found = absence(index, info, method, role)
        if found is None or found.kind not in (MISSING, ASSIGNED_NONE, DYNAMIC):
            continue  # there, unknowable, or another rule's answer (a stub, a misspelling)
        when = "with pipeline parallelism"
        if found.kind == DYNAMIC:
            allowed = pythons(context.requires_python(info.path))
            if not allowed.allows_from(STATIC_PROTOCOLS):
                continue  # every version it runs on asks __getattr__, which may answer
            how = _dynamic(found, method, allowed.allows_before(STATIC_PROTOCOLS), allowed.described())
            when = (f"on Python 3.{STATIC_PROTOCOLS} and newer" if allowed.allows_before(STATIC_PROTOCOLS)
                    else "on every Python it allows") + f", {when}"
        else:
            how = _how(index, info, method, found)
        message = (f"{noun} `{info.fqn}` ({info.recognized[role]}) {how}, so it cannot be {purpose}; "
                   f"{when} {helper} raises {pp_errors.raised(error)}")
        reached = route(info) if route is not None else ""
        if reached:
            message = f"{message} ({reached})"
        yield rule.finding(message, info.path, info.summary.span, info.fqn)


def _how(index: ProjectIndex, info: ClassInfo, method: str, found: Absence) -> str:
    """How the class's final namespace came to lack the method: set to None (where), deleted, or never given one
    by the decorators and assignments that were followed."""
    member = found.member
    if found.kind == ASSIGNED_NONE and member is not None:
        set_how = f"gets `{method} = None` ({member.origin})" if member.origin else f"sets `{method} = None`"
        return f"{set_how}, which a runtime-checkable Protocol treats as missing"
    namespace = index.namespace(info.fqn)
    removed = namespace.added.get(method)
    if removed is not None and removed.deleted:
        return f"has no `{method}`: it is {removed.origin}"
    if namespace.followed:
        return f"has no `{method}` (nor does {' or '.join(namespace.followed)} add one)"
    return f"has no `{method}`"


def _dynamic(found: Absence, method: str, before: bool, requirement: str) -> str:
    getattr_member = found.member
    where = f"`{found.owner}.{getattr_member.method.name}`" if getattr_member and getattr_member.method \
        else f"`{found.owner}`'s `__getattr__`"
    check = "which the runtime-checkable Protocol's isinstance check"
    versions = (f"{check} consults up to Python 3.{STATIC_PROTOCOLS - 1} but not from Python 3.{STATIC_PROTOCOLS} on"
                if before else f"{check} no longer consults from Python 3.{STATIC_PROTOCOLS} on")
    return f"offers `{method}` only through {where}, {versions} ({requirement})"
