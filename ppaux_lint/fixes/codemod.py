"""Plans run as a libcst transformer over a file's concrete syntax tree.

libcst keeps every untouched node's exact text, which ``ast`` cannot; it is also slow to import and to parse
with, so it is imported here, inside the functions, and only ``--fix``/``--diff`` ever call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ppaux_lint.fixes.render import render_method

if TYPE_CHECKING:
    from ppaux_lint.fixes.plan import Plan


class Unfixable(Exception):
    """The file is not shaped as the plan assumed; the fix is reported as failed, the run goes on."""


def transform(plans: Sequence[Plan], text: str, quote: str) -> str:
    """Run ``plans`` (all for one file) as one libcst transformer; returns the new text. ``quote`` is the
    file's usual string quote (``render.quote_style``), which generated strings follow."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = cst.parse_module(text)
    lost = _lost_by_libcst(text, module.code)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    by_class = {(p.class_name, p.class_line): p for p in plans}
    imports = [p.add_import for p in plans if p.add_import is not None]

    class Transformer(cst.CSTTransformer):
        def __init__(self) -> None:
            super().__init__()
            self.stack: list[Plan | None] = []

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.stack.append(by_class.get((node.name.value, positions[node.name].start.line)))

        def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
            plan = self.stack.pop()
            if plan is None or plan.method is None:
                return updated
            if not isinstance(updated.body, cst.IndentedBlock):
                raise Unfixable("class body is on the class line")
            source = render_method(plan.method, module.default_indent, quote, module.default_newline,
                                   plan.body_column, plan.line_length)
            method = cst.parse_statement(source, config=module.config_for_parsing)
            methods = [s for s in updated.body.body if isinstance(s, cst.FunctionDef)]
            spacing = ([line for line in methods[-1].leading_lines if line.comment is None] if methods
                       else [cst.EmptyLine(indent=False)])
            method = method.with_changes(leading_lines=spacing)
            return updated.with_changes(body=updated.body.with_changes(body=[*updated.body.body, method]))

        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            plan = self.stack[-1] if self.stack else None
            if plan is None or plan.rename is None:
                return updated
            old, new, line, column = plan.rename
            start = positions[original.name].start
            if original.name.value == old and (start.line, start.column + 1) == (line, column):
                return updated.with_changes(name=updated.name.with_changes(value=new))
            return updated

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
            plan = self.stack[-1] if self.stack else None
            if (plan is not None and plan.rename is not None and updated.attr.value == plan.rename[0]
                    and isinstance(updated.value, cst.Name) and updated.value.value in ("self", "cls")):
                return updated.with_changes(attr=updated.attr.with_changes(value=plan.rename[1]))
            return updated

        def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
            if not imports:
                return updated
            body = list(updated.body)
            present = {module.code_for_node(small).strip() for line in body if isinstance(line, cst.SimpleStatementLine)
                       for small in line.body}
            statements = [cst.parse_statement(f"from {mod} import {name}{module.default_newline}",
                                              config=module.config_for_parsing) for mod, name in sorted(set(imports))
                          if f"from {mod} import {name}" not in present]  # the file has that statement already
            if not statements:
                return updated
            at = _import_position(body)
            return updated.with_changes(body=[*body[:at], *statements, *body[at:]])

    result = wrapper.module.visit(Transformer())
    return result.code + lost


def _lost_by_libcst(text: str, reproduced: str) -> str:
    r"""The end of ``text`` that libcst's code leaves out, to be put back after the transform. libcst takes only
    ``\n`` for a file's last newline, so a file that ends in a lone ``\r`` (old Mac line endings, or a mixed
    file's last line) comes back without it. Any other difference would change text that no fix touches: that
    file is not fixed."""
    if reproduced == text:
        return ""
    lost = text[len(reproduced):]
    if not text.startswith(reproduced) or lost.strip("\r\n"):
        raise Unfixable("libcst cannot reproduce this file byte for byte")
    return lost


def _import_position(body: list) -> int:
    """After the last top-level import; else after the module docstring; else at the top."""
    import libcst as cst

    last = None
    for number, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
            last = number
    if last is not None:
        return last + 1
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) and \
            isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        return 1
    return 0
