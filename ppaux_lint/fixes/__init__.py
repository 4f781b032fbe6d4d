"""Autofix: findings in, edits out.

Two stages, so that ``check`` can say which findings have a fix without paying for libcst:

1. **Plan** (:mod:`.plan`; stdlib ``ast``, cheap; runs on every ``check``): for each finding the fix families
   below understand, decide whether a fix exists and what it will do. :func:`attach_fixes` turns plans into
   ``Finding.fix`` (description and safety; no edits yet).
2. **Materialize** (:mod:`.codemod`, :mod:`.apply`; libcst, only under ``--fix``/``--diff``): run the plan as
   a transformer over the file's concrete syntax tree, so every untouched node keeps its exact text, and turn
   the difference into ``Edit``s. Edits of one file are applied together unless they overlap; overlapping
   fixes wait for the next round (``--fix`` re-analyses and repeats, as ruff does).

Fix families (the checks stay fix-agnostic; the planner reads their findings):

- PPA017 (safe): rename the near-miss ``def`` to the real name, and ``self.<old>``/``cls.<old>`` uses inside
  the same class. Offered only when the old name is used nowhere else in the file and the class binds nothing
  under the new name.
- PPA001 (unsafe: adds behaviour): an output that is a dataclass, or whose ``__init__`` stores
  ``torch.Tensor``-annotated parameters as attributes, gets ``to_pp_tensors`` returning
  ``{"field": self.field, ...}`` (dataclass fields along the MRO, as ``dataclasses`` collects them; fields
  defaulting to ``None`` or with ``init=False`` stay home, since the first would make the helper raise and the
  second cannot be passed back to the constructor). An output that sets ``to_pp_tensors = None`` on purpose
  gets no fix.
- PPA002 (unsafe): an observer whose paired output is known, can be rebuilt from keyword arguments, and whose
  sent keys are known (from its own ``to_pp_tensors`` dict literal of ``self.<attr>`` values, or the tensor
  fields PPA001's fix would send) gets ``from_pp_tensors(self, tensors)`` returning
  ``Output(field=tensors["field"], ...)``; an import of the output is added when the observer's module does
  not bind it at run time.

A generated method (:mod:`.render`) goes at the end of the class body, indented with the module's indentation
unit, separated by as many blank lines as the class's last method, quoted as the file mostly quotes, annotated
only when the class's other methods annotate their returns, and wrapped one item per line when it would pass
the project's line length (ruff's or black's ``line-length``, else 88). A fix whose result does not compile is
dropped.
"""

from ppaux_lint.fixes.apply import (
    FileResult,
    FixOutcome,
    FixRound,
    applicable,
    apply_edits,
    fix_project,
    fix_round,
    line_edits,
    overlaps,
    preview,
    report_failures,
    unified_diff,
    write,
)
from ppaux_lint.fixes.plan import Plan, Planner, attach_fixes, plan_fixes
from ppaux_lint.fixes.render import MethodSpec, render_method

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
    "fix_project",
    "fix_round",
    "line_edits",
    "overlaps",
    "plan_fixes",
    "preview",
    "render_method",
    "report_failures",
    "unified_diff",
    "write",
]
