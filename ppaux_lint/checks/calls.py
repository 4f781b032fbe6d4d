"""PPA020 and PPA021: code that drives the transport helpers wrongly, or goes around them."""

from __future__ import annotations

from typing import Iterator

from ppaux_lint import pp_errors
from ppaux_lint.checks.context import CheckContext
from ppaux_lint.findings import Finding
from ppaux_lint.index import FROM_PP, TO_PP
from ppaux_lint.summary import CallSite, FileSummary

ADD = "add_auxiliary_output_to_pp_tensors"
POP = "pop_auxiliary_output_from_pp_tensors"


def helper_arguments(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    helpers = {f"{module}.{name}" for module in index.protocols.helper_modules for name in (ADD, POP)}
    for summary in context.summaries:
        for call in summary.calls:
            target = index.resolve(summary.module, call.callee, call.scope) if summary.module else None
            if target not in helpers or len(call.arg_kinds) < 2:
                continue
            is_add = target.endswith(ADD)
            problem = _add_problem(context, summary, call) if is_add else _pop_problem(context, summary, call)
            if problem:
                yield Finding(code="PPA020", message=f"`{target.rsplit('.', 1)[-1]}` {problem}",
                              path=summary.path, span=call.span, symbol=_symbol(summary, call))


def _symbol(summary: FileSummary, call: CallSite) -> str:
    scope = call.scope.replace(".<locals>", "")
    return ".".join(p for p in (summary.module, scope) if p)


def _constructed_class(context: CheckContext, summary: FileSummary, call: CallSite) -> str | None:
    kind = call.arg_kinds[1]
    if not kind.startswith("construct:"):
        return None
    target = context.index.resolve(summary.module, kind.split(":", 1)[1], call.scope)
    return target if target in context.index.classes else None


def _lacks(context: CheckContext, fqn: str, method: str) -> bool:
    member = context.index.lookup(fqn, method)
    if member is None:
        return not context.index.unresolved_bases(fqn)
    return member.is_none


def _add_problem(context: CheckContext, summary: FileSummary, call: CallSite) -> str:
    cls = _constructed_class(context, summary, call)
    if cls is None or not _lacks(context, cls, TO_PP):
        return ""
    return (f"is passed a new `{cls}`, which has no `{TO_PP}`: "
            f"{pp_errors.raised(pp_errors.OUTPUT_NOT_PP)}")


def _pop_problem(context: CheckContext, summary: FileSummary, call: CallSite) -> str:
    if call.arg_kinds[1] == "none":
        return (f"is passed `None` as the observer: as soon as the tensors carry an auxiliary output, "
                f"{pp_errors.raised(pp_errors.NO_OBSERVER)}")
    cls = _constructed_class(context, summary, call)
    if cls is None or not _lacks(context, cls, FROM_PP):
        return ""
    return (f"is passed a `{cls}` observer, which has no `{FROM_PP}`: "
            f"{pp_errors.raised(pp_errors.OBSERVER_NOT_PP)}")


def raw_prefix_uses(context: CheckContext) -> Iterator[Finding]:
    for summary in context.summaries:
        if summary.defines_helpers:
            continue
        for use in summary.prefix_uses:
            yield Finding(
                code="PPA021",
                message=(f"transport key prefix {pp_errors.PP_KEY_PREFIX!r} used directly ({use.how}); this "
                         f"bypasses the validation in {ADD}/{POP}: use the helpers instead"),
                path=summary.path, span=use.span, symbol=summary.module)
