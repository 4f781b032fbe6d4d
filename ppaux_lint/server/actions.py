"""Code actions: the edits ``--fix`` would make, and a ``# noqa`` for each finding under the cursor.

A fix is planned and materialized by :mod:`ppaux_lint.fixes` exactly as ``--fix`` does, on the buffer's text
(the analysis's overlay), so the action and the command line can never disagree. Safe fixes are preferred
quick fixes; unsafe ones (they add behaviour) say so in their title and are never preferred, so an editor's
"fix all" does not apply them unasked.
"""

from __future__ import annotations

from lsprotocol import types

from ppaux_lint.facts.findings import Edit
from ppaux_lint.fixes import fix_round, plan_fixes
from ppaux_lint.fixes.noqa import noqa_edit
from ppaux_lint.server.diagnostics import diagnostic
from ppaux_lint.server.linting import Result

UNSAFE = "(unsafe) "


def code_actions(result: Result, path: str, wanted: types.Range) -> list[types.CodeAction]:
    """The actions for the findings of ``path`` whose range meets ``wanted``."""
    analysis = result.analysis
    if analysis is None:
        return []
    lines = result.lines(path)
    here = [f for f in analysis.findings if f.path == path and _meets(lines.span_range(f.span), wanted)]
    if not here:
        return []
    plans = {id(plan.finding): plan for plan in plan_fixes(analysis)}
    summaries = {summary.path: summary for summary in analysis.summaries}
    actions: list[types.CodeAction] = []
    for finding in here:
        shown = diagnostic(finding, result)
        plan = plans.get(id(finding))
        if plan is not None:
            applied = fix_round([plan], analysis.overlays).applied
            if applied and applied[0].fix is not None and applied[0].fix.edits:
                actions.append(types.CodeAction(
                    title=("" if plan.safe else UNSAFE) + plan.description, kind=types.CodeActionKind.QuickFix,
                    diagnostics=[shown], is_preferred=plan.safe,
                    edit=_workspace_edit(result, plan.path, applied[0].fix.edits)))
        summary = summaries.get(path)
        edit = noqa_edit(finding, summary, lines) if summary is not None else None
        if edit is not None:
            actions.append(types.CodeAction(title=f"Disable {finding.code} for this line",
                                            kind=types.CodeActionKind.QuickFix, diagnostics=[shown],
                                            edit=_workspace_edit(result, path, (edit,))))
    return actions


def _workspace_edit(result: Result, path: str, edits: tuple[Edit, ...]) -> types.WorkspaceEdit:
    lines = result.lines(path)
    return types.WorkspaceEdit(changes={result.uri(path): [
        types.TextEdit(range=lines.offsets_range(e.start, e.end), new_text=e.text) for e in edits]})


def _meets(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges touch (a cursor at either end of a diagnostic counts)."""
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)

