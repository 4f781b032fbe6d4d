"""The encoding Python reads a source file in, decided as the interpreter decides it.

Python takes a BOM or a coding cookie on one of a file's first two lines, and ends a line at ``\\n``, ``\\r\\n``
or a lone ``\\r``. ``tokenize.detect_encoding`` reads its lines with a ``readline`` that knows only ``\\n``, so
for a file with old Mac line endings it saw the whole file as one line: a cookie there made it decode every
byte as UTF-8 and refuse a file that Python imports. Here it is handed the first two lines as Python ends
them. Every reader of source bytes (the summaries, the prefilter, the report's frames, the fixer, the
language server) asks this one function.
"""

from __future__ import annotations

import re

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)?")
_BOM = b"\xef\xbb\xbf"


def source_encoding(data: bytes) -> str:
    """The encoding of ``data``: its BOM's or its cookie's, else UTF-8. SyntaxError for a cookie or BOM that
    Python refuses, as ``tokenize.detect_encoding`` raises it."""
    lines = []
    position = 0
    for _ in range(2):
        line = _LINE.match(data, position).group()  # type: ignore[union-attr]  # the pattern matches anywhere
        if not line:
            break
        lines.append(line)
        position += len(line)
    head = b"".join(lines)
    if b"coding" not in head:  # no cookie can be there (tokenize's pattern needs the word): most files
        try:
            head.decode("utf-8")  # what tokenize asks of those lines, or it refuses the file
        except UnicodeDecodeError:
            pass
        else:
            return "utf-8-sig" if head.startswith(_BOM) else "utf-8"
    import tokenize

    supply = iter(lines)
    return tokenize.detect_encoding(lambda: next(supply, b""))[0]
