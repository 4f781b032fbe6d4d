"""Where something is in a file: the one location type that summaries, findings and every renderer share.

Its own module so that a findings record can be read back (a replayed run, ``replay.py``) without loading
the summary model.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """1-based lines, 1-based columns (as ruff and SARIF count them), end exclusive.

    Columns count characters, not the UTF-8 bytes ``ast`` counts: ``summarize.text`` converts them.
    """

    line: int
    column: int
    end_line: int
    end_column: int
