"""``rename-near-miss``: rename a misspelt transport method to its real name, and nothing more.

The ``def`` and the ``self.<old>``/``cls.<old>`` uses inside the same class are renamed, only when the old
name is used nowhere else in the file and the class binds nothing under the new name.
"""

from __future__ import annotations

import ast

from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes.plan import Plan, Planner
from ppaux_lint.fixes.syntax import binds, intended_name, other_references

KIND = "rename-near-miss"


def build(planner: Planner, finding: Finding) -> Plan | None:
    owner = finding.symbol
    found = planner.sources.class_node(owner)
    if found is None or found[1] != finding.path:
        return None
    node, path, _ = found
    definition = next((d for d in node.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and d.lineno == finding.span.line), None)
    if definition is None:
        return None
    old = definition.name
    new = intended_name(old)
    if new is None or binds(node, new):
        return None
    if other_references(planner.sources.tree(path), node, definition, old):
        return None  # renaming the def alone would break those uses
    return planner.base_plan(finding, owner, node, description=f"Rename `{old}` to `{new}`",
                             rename=(old, new, finding.span.line, finding.span.column))
