"""Facts about the source text rather than its syntax: its decoding, its columns and its ``# noqa`` comments.

Produces ``FileSummary.noqa`` and every ``Span`` the other modules record, and
turns undecodable bytes into the ``ParseError`` of ``FileSummary.error``. It is
separate because the text must be read exactly as the interpreter reads it
(coding cookie, BOM) and reported as editors count it (characters, not the
UTF-8 bytes ``ast`` counts), whichever fact a span belongs to.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections.abc import Iterator

from ppaux_lint.facts.spans import source_lines
from ppaux_lint.facts.summary import NoqaComment, ParseError, Span
from ppaux_lint.support.encoding import source_encoding

NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_DEFINITION_KEYWORD = re.compile(r"(?:async\s+)?(?:def|class)[ \t\f]*")  # then the name, or a backslash


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
        encoding = source_encoding(source)
        return source.decode(encoding)
    except (SyntaxError, LookupError) as exc:
        raise Unreadable(ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1))) from None
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        raise Unreadable(ParseError(f"cannot decode as {exc.encoding}: {exc.reason} at byte {exc.start}",
                                    Span(line, 1, line, 1))) from None
    except UnicodeError as exc:  # codecs such as punycode or "undefined" raise the base class
        raise Unreadable(ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1))) from None


def noqa_comments(text: str, tree: ast.Module) -> tuple[NoqaComment, ...]:
    """Each ``# noqa`` comment and its codes. Text that only looks like one, inside a string (a docstring, an
    f-string, a string that began lines earlier), is none: ``x = "# noqa"`` silenced the line's findings.

    Most files have none and skip the rest. On a line that has one, its comment begins at the first ``#`` that
    no string literal covers (in Python nothing else can hold a ``#``), and the directive may stand anywhere in
    that comment. Which literals cover it is read from the tree, descending only into the nodes that span such
    a line, and only a literal running over several lines, which may hold comments between its parts, is
    tokenized, once: never the whole file, which would cost as much as parsing it."""
    if "noqa" not in text.lower():
        return ()
    lines = source_lines(text)
    candidates = [number for number, line in enumerate(lines, start=1) if NOQA.search(line)]
    literals = _literals_on(tree, candidates)
    comments = _Comments(lines)
    found = []
    for number in candidates:
        line = lines[number - 1]
        start = next((column for column in _hashes(line)
                      if not any(comments.covers(literal, number, column) for literal in literals.get(number, ()))),
                     None)
        match = NOQA.search(line, start) if start is not None else None
        if match is not None:
            codes = match.group("codes")
            found.append(NoqaComment(number, tuple(c.strip().upper() for c in codes.split(",")) if codes else (),
                                     match.start()))
    return tuple(found)


_Literal = ast.Constant | ast.JoinedStr


def _hashes(line: str) -> Iterator[int]:
    column = line.find("#")
    while column >= 0:
        yield column
        column = line.find("#", column + 1)


def _literals_on(tree: ast.AST, wanted: list[int]) -> dict[int, list[_Literal]]:
    """The string and bytes literals whose span includes each of the ``wanted`` lines (ascending), an f-string
    whole (what it holds is part of it); a node is looked into only when its span includes one of them."""
    found: dict[int, list[_Literal]] = {}
    pending = [tree]
    while pending:
        for child in ast.iter_child_nodes(pending.pop()):
            lines = _lines_spanned(child, wanted)
            if not lines:
                continue
            if isinstance(child, ast.JoinedStr) or (isinstance(child, ast.Constant)
                                                    and isinstance(child.value, (str, bytes))):
                for line in lines:
                    found.setdefault(line, []).append(child)  # type: ignore[arg-type]
            else:
                pending.append(child)
    return found


def _lines_spanned(node: ast.AST, wanted: list[int]) -> list[int]:
    """The ``wanted`` lines ``node`` may reach; all for a node without a position (arguments, a ``with`` item).
    A definition's position starts at its keyword, below its decorators."""
    first = getattr(node, "lineno", None)
    if first is None:
        return wanted
    first = min([first, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    last = node.end_lineno or first  # type: ignore[attr-defined]
    return wanted[bisect.bisect_left(wanted, first):bisect.bisect_right(wanted, last)]


class _Comments:
    """Whether a ``#`` lies in a literal's text, for the literals of one file."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._tokenized: dict[int, frozenset[tuple[int, int]]] = {}  # by id of a literal: where its comments are

    def covers(self, literal: _Literal, line: int, column: int) -> bool:
        """Whether the ``#`` at ``column`` of ``line`` lies in ``literal``'s text. Within its span it does, unless
        the literal runs over several lines (``("a"  # why`` newline ``"b")``, or a replacement field of a
        Python 3.12 f-string), where the span's own tokens decide."""
        start_line, end_line = literal.lineno, literal.end_lineno or literal.lineno
        start = _character(self.lines[start_line - 1], literal.col_offset)
        end = _character(self.lines[end_line - 1], literal.end_col_offset or 0)
        if not (start_line, start) <= (line, column) < (end_line, end):
            return False
        if start_line == end_line:
            return True
        if id(literal) not in self._tokenized:
            self._tokenized[id(literal)] = self._comments(start_line, start, end_line, end)
        return (line, column) not in self._tokenized[id(literal)]

    def _comments(self, start_line: int, start: int, end_line: int, end: int) -> frozenset[tuple[int, int]]:
        """Where the comments between the parts of a literal over several lines start (line, index)."""
        lines = self.lines
        segment = "\n".join([lines[start_line - 1][start:], *lines[start_line:end_line - 1],
                             lines[end_line - 1][:end]])
        try:  # in parentheses, as the literal stands in its statement: its line breaks are no NEWLINE
            tokens = list(tokenize.generate_tokens(io.StringIO(f"({segment})").readline))
        except (tokenize.TokenError, SyntaxError):  # a literal the parser read tokenizes; if not, no comment
            return frozenset()
        found = set()
        for token in tokens:
            if token.type == tokenize.COMMENT:
                row, column = token.start  # in the segment, where line 1 starts at ``start`` after the "("
                found.add((start_line + row - 1, column - 1 + start if row == 1 else column))
        return frozenset(found)


def _character(content: str, byte_offset: int) -> int:
    """ast's UTF-8 byte offset in a line, as an index into its characters."""
    if content.isascii():
        return byte_offset
    return len(content.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))


class SourceText(str):
    """A module's text that answers ``needle in text`` and ``text.count(needle)`` once per needle. The summarizer
    asks the whole file's text such questions for every class, method and statement it visits (is there a
    ``setattr``, a ``:=``, a ``yield`` anywhere?), which is cheap once but made a module of many classes cost the
    square of its size: 20,000 small classes took longer than the parser's time limit."""

    _found: dict[object, bool] | None = None  # each instance's own, made on its first question
    _counts: dict[str, int] | None = None

    def __contains__(self, needle: object) -> bool:
        found = self._found
        if found is None:
            found = self._found = {}
        answer = found.get(needle)
        if answer is None:
            answer = found[needle] = str.__contains__(self, needle)  # type: ignore[arg-type]
        return answer

    def count(self, needle: str, *where: int | None) -> int:  # type: ignore[override]
        if where:
            return str.count(self, needle, *where)
        counts = self._counts
        if counts is None:
            counts = self._counts = {}
        answer = counts.get(needle)
        if answer is None:
            answer = counts[needle] = str.count(self, needle)
        return answer


class Positions:
    """ast counts columns in UTF-8 bytes; reports count characters. Converts, for the few nodes we keep."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._ascii = text.isascii()  # most files: every column is ast's byte offset, and no line need be split

    def lines(self, first: int, last: int) -> list[str]:
        """The source lines ``first`` to ``last`` (1-based, both included), as ast numbers them."""
        if self._lines is None:
            self._lines = source_lines(self.text)
        return self._lines[first - 1:last]

    def _column(self, line: int, byte_offset: int) -> int:
        if self._ascii:
            return byte_offset + 1
        if self._lines is None:
            self._lines = source_lines(self.text)
        if not 0 < line <= len(self._lines):
            return byte_offset + 1
        return _character(self._lines[line - 1], byte_offset) + 1

    def span(self, node: ast.AST) -> Span:
        line, end_line = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        return Span(line, self._column(line, node.col_offset),  # type: ignore[attr-defined]
                    end_line, self._column(end_line, node.end_col_offset or 0))  # type: ignore[attr-defined]

    def name_span(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> Span:
        """The span of a definition's name, which ast does not record: found after the keyword, on a later line
        when backslashes continue the statement there (``def \\`` then ``to_pp_tensor(self):``)."""
        if self._lines is None:
            self._lines = source_lines(self.text)
        line = node.lineno
        content = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        start = self._column(line, node.col_offset) - 1
        match = _DEFINITION_KEYWORD.match(content, start)
        column = (match.end() if match else start) + 1
        while content.endswith("\\", column - 1) and content[column - 1:].strip() == "\\" \
                and line < len(self._lines):  # nothing but the backslash left: the name is on a later line
            line += 1
            content = self._lines[line - 1]
            column = len(content) - len(content.lstrip(" \t\f")) + 1
        return Span(line, column, line, column + len(node.name))
