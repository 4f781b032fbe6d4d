"""PPA020: a transport helper called with an argument that will make it raise.

Only what is certain at the call is judged: a literal ``None`` observer, or a newly constructed project
class that lacks the method the helper's ``isinstance`` check asks for (and has no unseen base that might
provide it).
"""

from __future__ import annotations

from typing import Iterator

from ppaux_lint import pp_errors
from ppaux_lint.findings import Finding
from ppaux_lint.names import ADD_HELPER, FROM_PP, POP_HELPER, TO_PP
from ppaux_lint.rules.base import CheckContext, Rule
from ppaux_lint.summary import CallSite, FileSummary


def check(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    helpers = {f"{module}.{name}" for module in index.protocols.helper_modules for name in (ADD_HELPER, POP_HELPER)}
    for summary in context.summaries:
        for call in summary.calls:
            target = index.resolve(summary.module, call.callee, call.scope) if summary.module else None
            if target not in helpers or len(call.arg_kinds) < 2:
                continue
            is_add = target.endswith(ADD_HELPER)
            problem = _add_problem(context, summary, call) if is_add else _pop_problem(context, summary, call)
            if problem:
                yield RULE.finding(f"`{target.rsplit('.', 1)[-1]}` {problem}", summary.path, call.span,
                                   _symbol(summary, call))


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
    return f"is passed a new `{cls}`, which has no `{TO_PP}`: {pp_errors.raised(pp_errors.OUTPUT_NOT_PP)}"


def _pop_problem(context: CheckContext, summary: FileSummary, call: CallSite) -> str:
    if call.arg_kinds[1] == "none":
        return (f"is passed `None` as the observer: as soon as the tensors carry an auxiliary output, "
                f"{pp_errors.raised(pp_errors.NO_OBSERVER)}")
    cls = _constructed_class(context, summary, call)
    if cls is None or not _lacks(context, cls, FROM_PP):
        return ""
    return (f"is passed a `{cls}` observer, which has no `{FROM_PP}`: "
            f"{pp_errors.raised(pp_errors.OBSERVER_NOT_PP)}")


RULE = Rule("PPA020", "bad-pp-helper-argument",
            "A PP transport helper is called with an argument that will make it raise", check)
