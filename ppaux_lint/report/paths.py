"""How paths appear in every report: relative to the working directory, with forward slashes; and how a text
that came from the checked tree is shown to a person without being able to speak to the terminal."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

# What a terminal or a log reader takes for something other than one character: control characters (a line
# break, an escape sequence that recolours or retitles the terminal), line and paragraph separators, and
# the bidirectional controls that reorder what is shown ("Trojan Source").
_ACTS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNPRINTABLE = re.compile(f"[\t\n\r{_ACTS}]")
_ACTING = re.compile(f"[{_ACTS}]")  # the same, a line break and a tab excepted


def inert(text: str) -> str:
    """``text`` with what a terminal would act on as its escape, as :func:`printable` writes it, but its line
    breaks and tabs kept: for a format that carries them in its own escaping (a GitHub annotation's message)."""
    return _ACTING.sub(lambda match: _escape(match.group()), text) if _ACTING.search(text) else text


def strict_json(value: Any) -> Any:
    """``value`` (what a machine format dumps) with each lone surrogate in its strings written as the text the
    human formats print for it, ``\\udcff``: a file name's byte that is not UTF-8 reaches us as one
    (``surrogateescape``), and JSON's escape of it, ``"\\udcff"``, is refused by strict parsers (Rust's serde,
    Go's, jq). ruff writes U+FFFD there, which loses the byte; this keeps it: the name's bytes are the text's
    UTF-8, each ``\\udcXY`` standing for the byte 0xXY."""
    if isinstance(value, str):
        return value if value.isascii() else value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {strict_json(key): strict_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(item) for item in value]
    return value


def display_path(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        relative = path
    return Path(relative).as_posix()


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on written as its escape (``\\n``, ``\\x1b``,
    ``\\u202e``), for the human formats and ppaux-lint's own warnings: a file name or a key from the checked
    tree cannot end a line (and start a forged one, or a CI runner's command), recolour the terminal or
    reorder what is shown. The machine formats carry such text in their own escaping (JSON, SARIF, GitHub's)."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda match: _escape(match.group()), text)


def _escape(character: str) -> str:
    code = ord(character)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(character)
    if named:
        return named
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
