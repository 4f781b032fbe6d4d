"""Where something is in a file: the one location type that summaries, findings and every renderer share.

Its own module so that a findings record can be read back (a replayed run, ``replay.py``) without loading
the summary model.
"""

from __future__ import annotations

import re

from ppaux_lint.support.records import dataclass

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Span:
    """1-based lines, 1-based columns (as ruff and SARIF count them), end exclusive.

    Columns count characters, not the UTF-8 bytes ``ast`` counts: ``summarize.text`` converts them.
    """

    line: int
    column: int
    end_line: int
    end_column: int


def source_lines(text: str) -> list[str]:
    """The text's lines as the interpreter numbers them: ended by ``\\n``, ``\\r\\n`` or ``\\r`` only.

    ``str.splitlines`` also ends a line at a vertical tab, a form feed, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028`` and
    ``\\u2029``, which Python reads as characters within a line, so its line N is not the parser's line N.
    """
    return _NEWLINE.split(text)
