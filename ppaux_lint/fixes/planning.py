"""Which findings have a fix: each finding's rule declares its fix by kind, and the builder of that kind plans it.

The rules never see this module: a rule only names its fix (``Rule.fix_kind``), so this is where a finding
meets the code that fixes it, through the registry of :mod:`.builders`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes.builders import builders
from ppaux_lint.fixes.plan import Plan, Planner
from ppaux_lint.rules import by_code

if TYPE_CHECKING:
    from ppaux_lint.check.engine import Analysis


def attach_fixes(analysis: Analysis) -> list[Finding]:
    """``analysis.findings``, each with ``fix`` set when a fix is available (description and safety)."""
    plans = {id(plan.finding): plan for plan in plan_fixes(analysis)}
    out = []
    for finding in analysis.findings:
        plan = plans.get(id(finding))
        out.append(replace(finding, fix=plan.fix) if plan is not None and finding.fix is None else finding)
    return out


def plan_fixes(analysis: Analysis) -> list[Plan]:
    """A plan for every finding whose rule declares a fix that its builder sees how to make."""
    # (not in a file judged in a copy's own pass, engine.py: the planner reads the main index, where another
    # file may be its module)
    fixable = [(finding, builders()[rule.fix_kind]) for finding in analysis.findings
               if (rule := by_code(finding.code)) is not None and rule.fix_kind is not None
               and finding.path not in analysis.discovery.copies]
    if not fixable:
        return []
    planner = Planner(analysis)
    plans = []
    for finding, build in fixable:
        try:
            plan = build(planner, finding)
        except Exception:  # noqa: BLE001 - a file we cannot see as the summary did: offer nothing, never fail check
            plan = None
        if plan is not None:
            plans.append(plan)
    return plans
