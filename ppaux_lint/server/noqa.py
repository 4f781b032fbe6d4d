"""The edit behind "Disable PPA0xx for this line": a ``# noqa: CODE`` where the engine reads it.

The comment goes on the line selection.py reads first for the finding (the ``class`` line for a class-level
finding), extending a ``# noqa: ...`` already there, since only the first such comment on a line counts. That
one is the summary's, found where the line's comment is: text in a string that looks like a noqa is neither
extended nor taken for one, and the edit never lands inside a string. A line that ends inside a string or
continues with a backslash cannot take a comment: no edit then.
"""

from __future__ import annotations

import io
import tokenize

from ppaux_lint.check.selection import noqa_lines
from ppaux_lint.facts.findings import Edit, Finding
from ppaux_lint.facts.summarize.text import NOQA as NOQA_COMMENT  # the pattern the summaries read noqa with
from ppaux_lint.facts.summary import FileSummary
from ppaux_lint.server.positions import Lines

_NOT_CODE = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
                       tokenize.ENDMARKER})


def noqa_edit(finding: Finding, summary: FileSummary, lines: Lines) -> Edit | None:
    """The edit that silences ``finding``, or None when its line cannot take the comment."""
    line = noqa_lines(finding, summary)[0]
    content = lines.content(line - 1)
    start = lines.starts[line - 1] if line - 1 < len(lines.starts) else len(lines.text)
    existing = next((comment for comment in summary.noqa if comment.line == line), None)
    if existing is not None:  # a comment, never a string that looks like one (summarize.text)
        match = NOQA_COMMENT.match(content, existing.column)
        if not existing.codes or match is None or match.group("codes") is None:
            return None  # a bare noqa silences every code already
        return Edit(start + match.end("codes"), start + match.end("codes"), f", {finding.code}")
    code = content.rstrip()
    if code.endswith("\\") or _ends_inside_a_token(lines.text, line):
        return None
    return Edit(start + len(code), start + len(content), f"  # noqa: {finding.code}")


def _ends_inside_a_token(text: str, line: int) -> bool:
    """Whether a token (a triple-quoted string, say) runs on past the end of ``line``; also when the text
    cannot be tokenized, since then nothing can be said about it."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type not in _NOT_CODE and token.start[0] <= line < token.end[0]:
                return True
            if token.start[0] > line:
                return False
    except (tokenize.TokenError, SyntaxError):
        return True
    return False
