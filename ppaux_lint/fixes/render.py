"""The source of a generated method, written the way its file is written.

A generated method should read as if the file's author wrote it, so the planner records the file's habits
(quote character, the class body's column, the project's line length) and the method is rendered to them.
Plain text, no libcst: the planner needs the style facts on every ``check``.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

from ppaux_lint.facts.spans import source_lines
from ppaux_lint.support.fileio import MAX_SETTINGS_BYTES, read_regular_file
from ppaux_lint.support.records import dataclass

DEFAULT_LINE_LENGTH = 88  # ruff's and black's default


@dataclass(frozen=True)
class MethodSpec:
    """A method to generate. kind "dict": ``return {key: self.attr}`` over ``items`` (key, attr);
    kind "construct": ``return constructor(param=tensors[key])`` over ``items`` (param, key)."""

    name: str
    params: tuple[str, ...]
    kind: str
    items: tuple[tuple[str, str], ...]
    constructor: str = ""
    returns: str = ""


def render_method(spec: MethodSpec, indent: str, quote: str, newline: str, column: int, line_length: int) -> str:
    """The method's source at indentation zero, its body indented by ``indent``."""
    def literal(key: str) -> str:
        if quote in key or "\\" in key or not key.isprintable():
            return repr(key)
        return f"{quote}{key}{quote}"

    if spec.kind == "dict":
        entries = [f"{literal(key)}: self.{attr}" for key, attr in spec.items]
        opening, closing = "return {", "}"
    else:
        entries = [f"{param}=tensors[{literal(key)}]" for param, key in spec.items]
        opening, closing = f"return {spec.constructor}(", ")"
    one_line = opening + ", ".join(entries) + closing
    if column + len(indent) + len(one_line) <= line_length:
        body = [one_line]
    else:
        body = [opening, *(f"{indent}{entry}," for entry in entries), closing]
    returns = f" -> {spec.returns}" if spec.returns else ""
    lines = [f"def {spec.name}({', '.join(spec.params)}){returns}:", *(indent + line for line in body)]
    return newline.join(lines) + newline


def body_column(node: ast.ClassDef, text: str) -> int:
    """The absolute column of the class body, so that line length counts the method where it will stand."""
    if not node.body:
        return 4
    lines = source_lines(text)  # numbered as ast numbers them, which str.splitlines does not (a form feed)
    line = lines[node.body[0].lineno - 1] if node.body[0].lineno - 1 < len(lines) else ""
    return len(line) - len(line.lstrip())


def quote_style(text: str) -> str:
    """The quote the file mostly uses for plain (not triple-quoted) strings; double on a tie."""
    single = double = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.STRING:
                continue
            body = token.string.lstrip("rRbBuUfF")
            if body[:3] in ('"""', "'''"):
                continue
            if body.startswith("'") and '"' not in body:
                single += 1
            elif body.startswith('"') and "'" not in body:
                double += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return "'" if single > double else '"'


def configured_line_length(root: Path) -> int:
    """ruff's ``line-length``, else black's, from the project's pyproject.toml; else the shared default."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:  # a regular file only: a repository's ``pyproject.toml`` may be a link to /dev/zero or a FIFO
        data = tomllib.loads(read_regular_file(root / "pyproject.toml", MAX_SETTINGS_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    tool = data.get("tool", {})
    for key in ("ruff", "black"):
        value = tool.get(key, {}).get("line-length") if isinstance(tool.get(key), dict) else None
        if isinstance(value, int) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH
