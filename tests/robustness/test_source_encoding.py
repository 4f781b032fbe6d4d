"""``source_encoding`` decides as ``tokenize.detect_encoding`` does on a file's first two lines (as Python ends
them), including where it takes its shortcut: no ``coding`` on those lines, so no cookie can be there."""

from __future__ import annotations

import tokenize

from hypothesis import given
from hypothesis import strategies as st

from ppaux_lint.support.encoding import source_encoding

_PIECES = [b"\n", b"\r", b"\r\n", b"#", b" ", b"\t", b"\x0c", b"coding", b":", b"=", b"utf-8", b"latin-1", b"cp1252",
           b"nonsense", b"x = 1", b"\xef\xbb\xbf", b"\xff", b"\xc3\xa9", b"\xc3", b"-*-", b"vim: set fileencoding=",
           b"# -*- coding: latin-1 -*-\n"]


def _by_tokenize(data: bytes) -> object:
    lines = iter(data.splitlines(keepends=True)[:2])  # splitlines ends lines at \r, \n and \r\n, as Python does
    try:
        return tokenize.detect_encoding(lambda: next(lines, b""))[0]
    except SyntaxError as exc:
        return ("SyntaxError", str(exc))


def _ours(data: bytes) -> object:
    try:
        return source_encoding(data)
    except SyntaxError as exc:
        return ("SyntaxError", str(exc))


@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_as_tokenize_decides(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    assert _ours(data) == _by_tokenize(data)


def test_the_shortcut_cases() -> None:
    assert source_encoding(b"x = 1\n") == "utf-8"
    assert source_encoding(b"\xef\xbb\xbfx = 1\n") == "utf-8-sig"
    assert source_encoding(b"#!/usr/bin/env python\n# coding: latin-1\n") == "iso-8859-1"
    assert source_encoding(b"x = 1\n# coding: latin-1\n") == "utf-8"  # only after a comment or a blank line
    assert source_encoding(b"x = 1\n\n# coding: latin-1\n") == "utf-8"  # a third line holds no cookie
    assert _ours(b"#\xff\n")[0] == "SyntaxError"  # not UTF-8, no cookie: refused as tokenize refuses it
