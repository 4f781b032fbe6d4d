"""Autofix: findings in, edits out.

A rule declares its fix as data and knows nothing of this package: ``Rule.fix`` says how far the fix may be
trusted (safe, or unsafe when it adds behaviour) and ``Rule.fix_kind`` names it. This package reads the
declared kind and runs the builder registered under it (:mod:`.builders`, one module per kind), so the rules
never import the fixes and a fix is added here without touching the engine.

Two stages, so that ``check`` can say which findings have a fix without paying for libcst:

1. **Plan** (:mod:`.planning`, :mod:`.plan`; stdlib ``ast``, cheap; runs on every ``check`` with findings):
   for each finding whose rule declares a fix, its builder decides whether a fix exists and what it will do.
   :func:`attach_fixes` turns plans into ``Finding.fix`` (description and safety; no edits yet).
2. **Materialize** (:mod:`.codemod`, :mod:`.apply`; libcst, only under ``--fix``/``--diff``): run the plan as
   a transformer over the file's concrete syntax tree, so every untouched node keeps its exact text, and turn
   the difference into ``Edit``s. Edits of one file are applied together unless they overlap; overlapping
   fixes wait for the next round (``--fix`` re-analyses and repeats, as ruff does). :mod:`.writing` writes
   the results: only to the checked files, each replaced atomically or, with a warning, not at all.

The kinds of fix, one builder module each, whose docstring says what it generates and when it gives up:

- ``rename-near-miss`` (:mod:`.builders.rename_near_miss`; safe, declared by PPA017): rename a misspelt
  transport method to its real name.
- ``add-to-pp-tensors`` (:mod:`.builders.add_to_pp_tensors`; unsafe: adds behaviour, declared by PPA001):
  generate an output's missing ``to_pp_tensors``.
- ``add-from-pp-tensors`` (:mod:`.builders.add_from_pp_tensors`; unsafe, declared by PPA002): generate a
  sampling observer's missing ``from_pp_tensors``.

A generated method (:mod:`.render`) goes at the end of the class body, indented with the module's indentation
unit, separated by as many blank lines as the class's last method, quoted as the file mostly quotes, annotated
only when the class's other methods annotate their returns, and wrapped one item per line when it would pass
the project's line length (ruff's or black's ``line-length``, else 88). A fix whose result does not compile is
dropped.

As a stage: takes an analysis (its findings, index and sources); gives each finding its ``Fix`` and, under
``--fix``/``--diff``, the edits. It stands above the check and the reports, and must never import the
command line, the server or the runtime; nothing below it imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ppaux_lint.fixes.plan import Plan, Planner
from ppaux_lint.fixes.planning import attach_fixes, plan_fixes
from ppaux_lint.fixes.render import MethodSpec, render_method

if TYPE_CHECKING:
    from ppaux_lint.fixes.apply import (
        FileResult,
        FixOutcome,
        FixRound,
        applicable,
        apply_edits,
        failure_warnings,
        fix_project,
        fix_round,
        line_edits,
        overlaps,
        preview,
        unified_diff,
    )


def __getattr__(name: str) -> Any:
    """The names of ``__all__`` not imported above, from ``apply`` on first use (it imports the codemod and the
    writer): a check only plans."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ppaux_lint.fixes import apply

    value = globals()[name] = getattr(apply, name)
    return value


__all__ = [
    "FileResult",
    "FixOutcome",
    "FixRound",
    "MethodSpec",
    "Plan",
    "Planner",
    "applicable",
    "apply_edits",
    "attach_fixes",
    "failure_warnings",
    "fix_project",
    "fix_round",
    "line_edits",
    "overlaps",
    "plan_fixes",
    "preview",
    "render_method",
    "unified_diff",
]
