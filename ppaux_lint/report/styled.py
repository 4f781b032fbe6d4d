"""Lines of text with styles, written without rich wherever the bytes rich would write are known.

A report that goes to a pipe, a file or a ``NO_COLOR`` terminal shows no style, yet rendering it through rich
cost more than the rest of the report: 0.08 s for a monorepo's 269 findings, and 20 ms of imports for a
run with one. There it is written as it is, with tabs expanded as rich expands them (to cell-aware stops of
8), so the bytes are the same as rich would write. In a terminal the report's four styles are the same SGR
codes on every colour system rich knows, so a line without a tab is written with them directly (issue 36: a
run in a terminal no slower than piped); rich writes the rest, and on Windows, where it drives the console
itself. Either way each piece is printed literally: it is never read as rich markup or emoji codes, whatever
a message or a source line holds.
"""

from __future__ import annotations

import os
from typing import TextIO

Piece = tuple[str, str]  # the text, and its rich style ("" for none)
Line = list[Piece]
TAB_SIZE = 8  # rich's default
SGR = {"bold": "1", "bold red": "1;31", "cyan": "36", "blue": "34"}  # what rich writes for each, on any system


def write(lines: list[Line], out: TextIO) -> None:
    """Each line, ended by a newline."""
    if not styles_show(out):
        out.write("".join(expand_tabs("".join(text for text, _ in line)) + "\n" for line in lines))
        return
    if os.name != "nt" and all(style in SGR or not style for line in lines for _, style in line) and not any(
            "\t" in text for line in lines for text, _ in line):
        out.write("".join("".join(_sgr(text, style) for text, style in line) + "\n" for line in lines))
        return
    from rich.text import Text

    from ppaux_lint.report.console import make_console

    text = Text(end="")
    for line in lines:
        for piece, style in line:
            text.append(piece, style or None)
        text.append("\n")
    make_console(file=out, highlight=False, soft_wrap=True).print(text, end="")


def _sgr(text: str, style: str) -> str:
    return f"\x1b[{SGR[style]}m{text}\x1b[0m" if style and text else text


def styles_show(out: TextIO) -> bool:
    """Whether rich would style what it writes to ``out``: a terminal (or one forced by ``TTY_COMPATIBLE`` or
    ``FORCE_COLOR``, as rich reads them) that is not dumb, and no ``NO_COLOR``."""
    environ = os.environ
    if environ.get("NO_COLOR", ""):
        return False
    forced = environ.get("TTY_COMPATIBLE", "")
    if forced in ("0", "1"):
        terminal = forced == "1"
    elif "FORCE_COLOR" in environ:
        terminal = environ["FORCE_COLOR"] != ""
    else:
        try:
            terminal = out.isatty()
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            terminal = False
    return terminal and environ.get("TERM", "").lower() not in ("dumb", "unknown")


def expand_tabs(line: str) -> str:
    """``line`` with each tab turned into spaces up to the next stop, counting terminal cells as rich does (a
    wide character takes two)."""
    if "\t" not in line:
        return line
    if line.isascii():
        return line.expandtabs(TAB_SIZE)
    from rich.cells import cell_len

    out: list[str] = []
    position = 0
    for part in line.split("\t")[:-1]:
        position += cell_len(part)
        spaces = TAB_SIZE - position % TAB_SIZE
        out.append(part + " " * spaces)
        position += spaces
    out.append(line.rsplit("\t", 1)[1])
    return "".join(out)
