"""Facts about the source text rather than its syntax: its decoding, its columns and its ``# noqa`` comments.

Produces ``FileSummary.noqa`` and every ``Span`` the other modules record, and
turns undecodable bytes into the ``ParseError`` of ``FileSummary.error``. It is
separate because the text must be read exactly as the interpreter reads it
(coding cookie, BOM) and reported as editors count it (characters, not the
UTF-8 bytes ``ast`` counts), whichever fact a span belongs to.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from ppaux_lint.facts.spans import source_lines
from ppaux_lint.facts.summary import ParseError, Span

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_DEFINITION_KEYWORD = re.compile(r"(?:async\s+)?(?:def|class)\s+")


class Unreadable(Exception):
    """Bytes that are not Python text; carries the error the file's summary reports."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(error.reason)
        self.error = error


def decode(source: bytes) -> str:
    """The file's text, honouring a coding cookie and a BOM as the interpreter does."""
    nul = source.find(b"\x00")
    if nul >= 0:
        line = source.count(b"\n", 0, nul) + 1
        raise Unreadable(ParseError("file contains a NUL byte", Span(line, 1, line, 1)))
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, LookupError) as exc:
        raise Unreadable(ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1))) from None
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        raise Unreadable(ParseError(f"cannot decode as {exc.encoding}: {exc.reason} at byte {exc.start}",
                                    Span(line, 1, line, 1))) from None
    except UnicodeError as exc:  # codecs such as punycode or "undefined" raise the base class
        raise Unreadable(ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1))) from None


def noqa_lines(text: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Each line with a ``# noqa`` comment and its codes; most files have none, and skip the line split."""
    if "noqa" not in text.lower():
        return ()
    found = []
    for number, line in enumerate(source_lines(text), start=1):
        match = NOQA.search(line)
        if match:
            codes = match.group("codes")
            found.append((number, tuple(c.strip().upper() for c in codes.split(",")) if codes else ()))
    return tuple(found)


class Positions:
    """ast counts columns in UTF-8 bytes; reports count characters. Converts, for the few nodes we keep."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None

    def _column(self, line: int, byte_offset: int) -> int:
        if self._lines is None:
            self._lines = source_lines(self.text)
        if not 0 < line <= len(self._lines):
            return byte_offset + 1
        content = self._lines[line - 1]
        if content.isascii():
            return byte_offset + 1
        return len(content.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace")) + 1

    def span(self, node: ast.AST) -> Span:
        line, end_line = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        return Span(line, self._column(line, node.col_offset),  # type: ignore[attr-defined]
                    end_line, self._column(end_line, node.end_col_offset or 0))  # type: ignore[attr-defined]

    def name_span(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> Span:
        """The span of a definition's name, which ast does not record: found after the keyword."""
        if self._lines is None:
            self._lines = source_lines(self.text)
        line = node.lineno
        content = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        start = self._column(line, node.col_offset) - 1
        match = _DEFINITION_KEYWORD.match(content, start)
        column = (match.end() if match else start) + 1
        return Span(line, column, line, column + len(node.name))
