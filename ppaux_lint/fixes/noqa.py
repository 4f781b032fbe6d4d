"""The ``# noqa: CODE`` comment that silences findings, where the engine reads it: the edit behind the language
server's "Disable PPA0xx for this line" and ``check --add-noqa``.

The comment goes on the line selection.py reads first for the finding (the ``class`` line for a class-level
finding), extending a ``# noqa: ...`` already there, since only the first such comment on a line counts. That
one is the summary's, found where the line's comment is: text in a string that looks like a noqa is neither
extended nor taken for one, and the edit never lands inside a string. A line that ends inside a string or
continues with a backslash cannot take a comment: no edit then. Several findings on one line share one
comment, and the edit goes before the line break, so a file's newlines stay as they are.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from typing import Protocol

from ppaux_lint.check.selection import noqa_lines
from ppaux_lint.facts.findings import Edit, Finding
from ppaux_lint.facts.summarize.text import NOQA as NOQA_COMMENT  # the pattern the summaries read noqa with
from ppaux_lint.facts.summary import FileSummary

_NOT_CODE = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                       tokenize.ENDMARKER})
_NEWLINE = re.compile(r"\r\n|\r|\n")  # as Python's tokenizer, and so the summaries' spans, count lines


class Lines(Protocol):
    """A text's lines: what the server's LSP ``Lines`` and :class:`TextLines` both are."""

    text: str
    starts: list[int]

    def content(self, line: int) -> str: ...


class TextLines:
    """One text's lines, where each starts and what each holds without its line break."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        self._ends = [match.start() for match in _NEWLINE.finditer(text)] + [len(text)]

    def content(self, line: int) -> str:
        """Line ``line`` (0-based) without its line break; "" past the end."""
        return self.text[self.starts[line]:self._ends[line]] if 0 <= line < len(self.starts) else ""


def noqa_edit(finding: Finding, summary: FileSummary, lines: Lines) -> Edit | None:
    """The edit that silences ``finding``, or None when its line cannot take the comment."""
    return _line_edit(noqa_lines(finding, summary)[0], [finding.code], summary, lines)


def noqa_edits(findings: Iterable[Finding], summary: FileSummary, lines: Lines) -> list[Edit]:
    """One edit per line that silences ``findings`` of one file, each line's codes in one comment; the lines
    that cannot take a comment are left out."""
    codes: dict[int, list[str]] = {}
    for finding in findings:
        line_codes = codes.setdefault(noqa_lines(finding, summary)[0], [])
        if finding.code not in line_codes:
            line_codes.append(finding.code)
    edits = (_line_edit(line, line_codes, summary, lines) for line, line_codes in sorted(codes.items()))
    return [edit for edit in edits if edit is not None]


def _line_edit(line: int, codes: list[str], summary: FileSummary, lines: Lines) -> Edit | None:
    content = lines.content(line - 1)
    start = lines.starts[line - 1] if line - 1 < len(lines.starts) else len(lines.text)
    existing = next((comment for comment in summary.noqa if comment.line == line), None)
    if existing is not None:  # a comment, never a string that looks like one (summarize.text)
        match = NOQA_COMMENT.match(content, existing.column)
        if not existing.codes or match is None or match.group("codes") is None:
            return None  # a bare noqa silences every code already
        new = [code for code in codes if code not in existing.codes]
        if not new:
            return None
        return Edit(start + match.end("codes"), start + match.end("codes"), "".join(f", {code}" for code in new))
    code = content.rstrip()
    if code.endswith("\\") or _ends_inside_a_token(lines.text, line):
        return None
    return Edit(start + len(code), start + len(content), f"  # noqa: {', '.join(codes)}")


def _ends_inside_a_token(text: str, line: int) -> bool:
    """Whether a token (a triple-quoted string, say) runs on past the end of ``line``; also when the text
    cannot be tokenized, since then nothing can be said about it. Lines are numbered as Python numbers them
    (``newline=None``: a lone CR ends a line too), as ``lines`` does."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type not in _NOT_CODE and token.start[0] <= line < token.end[0]:
                return True
            if token.start[0] > line:
                return False
    except (tokenize.TokenError, SyntaxError):
        return True
    return False
