"""Where things are, as LSP counts: 0-based lines and columns in the client's code units.

Findings carry 1-based character columns and fixes 0-based character offsets; LSP positions are 0-based
and count UTF-16 code units unless the client negotiated UTF-8 or UTF-32, so an emoji before a class name
would otherwise shift every squiggle after it. Lines end at ``\\r\\n``, ``\\r`` or ``\\n``, as they do for
LSP, for Python's tokenizer and so for the spans in the summaries.
"""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

from ppaux_lint.facts.summary import Span

_NEWLINE = re.compile(r"\r\n|\r|\n")


class Lines:
    """One text's lines, for turning spans and offsets into LSP positions."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]
        self.ends = [match.start() for match in _NEWLINE.finditer(text)] + [len(text)]

    def content(self, line: int) -> str:
        """Line ``line`` (0-based) without its line break; "" past the end."""
        return self.text[self.starts[line]:self.ends[line]] if 0 <= line < len(self.starts) else ""

    def position(self, line: int, column: int) -> types.Position:
        """0-based line and character column -> an LSP position (a column past the line's end is its end)."""
        if not 0 <= line < len(self.starts):
            return types.Position(line=max(line, 0), character=max(column, 0))
        return types.Position(line=line, character=self._units(self.content(line)[:max(column, 0)]))

    def at_offset(self, offset: int) -> types.Position:
        """A character offset into the text (a fix's edit) -> an LSP position."""
        line = max(bisect.bisect_right(self.starts, offset) - 1, 0)
        return self.position(line, offset - self.starts[line])

    def span_range(self, span: Span) -> types.Range:
        return types.Range(start=self.position(span.line - 1, span.column - 1),
                           end=self.position(span.end_line - 1, span.end_column - 1))

    def offsets_range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.at_offset(start), end=self.at_offset(end))

    def _units(self, text: str) -> int:
        if self.encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        if self.encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
