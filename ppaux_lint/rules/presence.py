"""Whether a transport method is there at all, as the helpers' ``isinstance`` check sees it.

PPA001, PPA002, PPA017 and PPA018 each report one answer to the same question, so they share it here: a
class lacking a method gets exactly one of them (the stub it inherits, the misspelling it carries, or the
plain absence), never two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import FROM_PP
from ppaux_lint.facts.summary import MethodSummary
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.project_index import Member, ProjectIndex

if TYPE_CHECKING:
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.rules.base import Rule

STUB, NEAR_MISS, MISSING, ASSIGNED_NONE = "stub", "near-miss", "missing", "none"


@dataclass(frozen=True)
class Absence:
    """Why ``method`` is not usable on a class; ``near`` is (owner, misspelt method) for NEAR_MISS,
    ``owner`` the Protocol whose stub is inherited for STUB."""

    kind: str
    owner: str = ""
    near: tuple[str, MethodSummary] | None = None


def absence(index: ProjectIndex, info: ClassInfo, method: str, role: str) -> Absence | None:
    """How ``method`` is missing from a class in ``role``, or None when it is there or cannot be known.

    A Protocol stub counts whatever the class's role (the explicit PP base makes it a PP implementer).
    An unresolved base might provide the method, so its absence is not known and nothing is said. Neither
    is anything said where no instance can meet the helper: callers pass ``CheckContext.concrete()``
    classes, which have instances of their own, and ``from_pp_tensors`` is not asked of an observer that
    never returns an output (``instances.py``).
    """
    if method == FROM_PP and info.no_output:
        return None
    member: Member | None = index.lookup(info.fqn, method)
    if member is not None and member.stub_of_protocol:
        return Absence(STUB, owner=member.owner)
    if role not in info.roles or (member is not None and not member.is_none):
        return None
    if member is None and info.unresolved_bases:
        return None
    near = index.near_miss(info.fqn, method)
    if near is not None:
        return Absence(NEAR_MISS, owner=near[0], near=near)
    return Absence(ASSIGNED_NONE if member is not None else MISSING)


def missing_findings(rule: Rule, index: ProjectIndex, infos: Iterable[ClassInfo], method: str, role: str, *,
                     noun: str, purpose: str, helper: str, error: str,
                     route: Callable[[ClassInfo], str] | None = None) -> Iterator[Finding]:
    """The findings of a missing-method rule (PPA001, PPA002): each class in ``role`` that lacks ``method``
    outright or sets it to None, named with how it was recognised and the error ``helper`` raises; ``route``
    says, where it has something to say, how an instance reaches the helper."""
    from ppaux_lint.contract import pp_errors

    for info in infos:
        found = absence(index, info, method, role)
        if found is None or found.kind not in (MISSING, ASSIGNED_NONE):
            continue  # there, unknowable, or another rule's answer (a stub, a misspelling)
        how = (f"sets `{method} = None`, which a runtime-checkable Protocol treats as missing"
               if found.kind == ASSIGNED_NONE else f"has no `{method}`")
        message = (f"{noun} `{info.fqn}` ({info.recognized[role]}) {how}, so it cannot be {purpose}; "
                   f"with pipeline parallelism {helper} raises {pp_errors.raised(error)}")
        reached = route(info) if route is not None else ""
        if reached:
            message = f"{message} ({reached})"
        yield rule.finding(message, info.path, info.summary.span, info.fqn)
