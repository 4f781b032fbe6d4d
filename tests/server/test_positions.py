"""Spans and offsets as LSP positions: 0-based, in the client's code units, with every kind of line break."""

from __future__ import annotations

import pytest
from lsprotocol import types

from ppaux_lint.facts.summary import Span
from ppaux_lint.server.positions import Lines

TEXT = 'x = "😋é"; y = 1\r\nclass A:\rpass\n'


@pytest.mark.parametrize(("encoding", "column"), [
    (types.PositionEncodingKind.Utf16, 15),  # the emoji is two UTF-16 code units
    (types.PositionEncodingKind.Utf8, 18),  # four bytes for the emoji, two for é
    (types.PositionEncodingKind.Utf32, 14),
])
def test_columns_count_the_clients_code_units(encoding, column):
    lines = Lines(TEXT, encoding)
    start = TEXT.index("1")  # character column 14 of line 0
    assert lines.position(0, start) == types.Position(line=0, character=column)
    assert lines.span_range(Span(1, start + 1, 1, start + 2)).start.character == column


def test_lines_break_at_crlf_cr_and_lf():
    lines = Lines(TEXT)
    assert [lines.content(i) for i in range(4)] == ['x = "😋é"; y = 1', "class A:", "pass", ""]
    assert lines.at_offset(TEXT.index("class")) == types.Position(line=1, character=0)
    assert lines.at_offset(TEXT.index("pass") + 2) == types.Position(line=2, character=2)
    assert lines.at_offset(len(TEXT)) == types.Position(line=3, character=0)


def test_a_span_past_the_text_passes_through():
    """A file that could not be read has no lines; its PPA000 still gets a position."""
    assert Lines("").span_range(Span(3, 2, 3, 2)).start == types.Position(line=2, character=1)
