"""PPA001, PPA002, PPA017, PPA018: is the transport method there at all, as the isinstance check sees it?"""

from __future__ import annotations

from typing import Iterator

from ppaux_lint import pp_errors
from ppaux_lint.checks.context import CheckContext
from ppaux_lint.findings import Finding
from ppaux_lint.index import FROM_PP, TO_PP, ProjectIndex
from ppaux_lint.model import ClassInfo

# role-independent facts per transport method: rule codes and the errors a miss causes
_SIDES = (
    ("output", TO_PP, "PPA001", "auxiliary output", "add_auxiliary_output_to_pp_tensors", pp_errors.OUTPUT_NOT_PP,
     pp_errors.EMPTY_OUTPUT, "sent to the next pipeline stage"),
    ("observer", FROM_PP, "PPA002", "sampling observer", "pop_auxiliary_output_from_pp_tensors",
     pp_errors.OBSERVER_NOT_PP, pp_errors.NOT_RECONSTRUCTED, "rebuilt on the first pipeline stage"),
)


def missing_transport_methods(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    for info in context.concrete():
        for role, method, code, noun, helper, missing_error, stub_error, purpose in _SIDES:
            member = index.lookup(info.fqn, method)
            if member is not None and member.stub_of_protocol:
                yield _stub_finding(info, member.owner, method, stub_error)
                continue
            if role not in info.roles:
                continue
            if member is not None and not member.is_none:
                continue
            if member is None and info.unresolved_bases:
                continue  # an unseen base may provide it: stay silent rather than guess
            near = _near_miss(index, info, method)
            if near is not None:
                yield near
                continue
            how = (f"sets `{method} = None`, which a runtime-checkable Protocol treats as missing"
                   if member is not None else f"has no `{method}`")
            yield Finding(
                code=code,
                message=(f"{noun} `{info.fqn}` ({info.recognized[role]}) {how}, so it cannot be {purpose}; "
                         f"with pipeline parallelism {helper} raises {pp_errors.raised(missing_error)}"),
                path=info.path,
                span=info.summary.span,
                symbol=info.fqn,
            )


def _stub_finding(info: ClassInfo, protocol: str, method: str, error: str) -> Finding:
    return Finding(
        code="PPA018",
        message=(f"`{info.fqn}` inherits `{protocol}` but never overrides `{method}`: the isinstance check "
                 f"passes, the Protocol's stub returns None, and the helper raises {pp_errors.raised(error)}"),
        path=info.path,
        span=info.summary.span,
        symbol=info.fqn,
    )


def _near_miss(index: ProjectIndex, info: ClassInfo, method: str) -> Finding | None:
    """PPA017 replaces PPA001/PPA002 when a method along the MRO is a likely misspelling."""
    found = index.near_miss(info.fqn, method)
    if found is None:
        return None
    owner, candidate = found
    return Finding(
        code="PPA017",
        message=(f"`{owner}.{candidate.name}` looks like a misspelling of `{method}`: did you mean "
                 f"`{method}`? As written, `{info.fqn}` has no `{method}`, so the PP helpers reject it"),
        path=index.modules[index.class_module[owner]].path,
        span=candidate.span,
        symbol=owner,
    )
