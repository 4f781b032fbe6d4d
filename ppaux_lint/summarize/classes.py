"""One class: what it lists as bases and decorators, and what its namespace binds.

Produces ``ClassSummary`` with its ``MemberAssign`` (``to_pp_tensors = _helper``,
``= None``) and ``Field`` (annotated attributes) facts; each method is summarized
by ``methods``. Bases are recorded as written, dotted and unresolved: what they
name is decided by the index, across files.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.summarize.methods import summarize_method
from ppaux_lint.summarize.syntax import TRY_STATEMENTS, Scope, called_name, dotted, is_none, qualname, source
from ppaux_lint.summarize.text import Positions
from ppaux_lint.summary import ClassSummary, Field, MemberAssign, MethodSummary


def summarize_class(node: ast.ClassDef, scope: Scope, positions: Positions) -> ClassSummary:
    methods: list[MethodSummary] = []
    assigns: list[MemberAssign] = []
    fields: list[Field] = []
    for stmt in _class_level_statements(node.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.append(summarize_method(stmt, positions))
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    assigns.append(_member(target, stmt.value, positions))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields.append(Field(stmt.target.id, source(stmt.annotation), stmt.value is not None))
            if stmt.value is not None:
                assigns.append(_member(stmt.target, stmt.value, positions))
    return ClassSummary(
        name=node.name,
        qualname=qualname(scope, node.name),
        span=positions.name_span(node),
        class_line=node.lineno,
        bases=tuple(b for b in (dotted(base) for base in node.bases) if b),
        decorators=tuple(called_name(d) for d in node.decorator_list),
        methods=tuple(methods),
        assigns=tuple(assigns),
        fields=tuple(fields),
    )


def _member(target: ast.Name, value: ast.expr, positions: Positions) -> MemberAssign:
    text = "none" if is_none(value) else dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
    return MemberAssign(target.id, text, positions.span(target))


def _class_level_statements(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    """Statements that run in the class namespace, including those under if/try/with at class level."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out.extend(_class_level_statements(stmt.body + stmt.orelse))
        elif isinstance(stmt, TRY_STATEMENTS):
            handlers = [s for h in stmt.handlers for s in h.body]
            out.extend(_class_level_statements(stmt.body + handlers + stmt.orelse + stmt.finalbody))
        elif isinstance(stmt, ast.With):
            out.extend(_class_level_statements(stmt.body))
        else:
            out.append(stmt)
    return out
