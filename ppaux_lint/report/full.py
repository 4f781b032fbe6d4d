"""The default human format: location, code, message and a short code frame, as ruff shows them.

rich is imported only where a report shows styles (``styled.py``): a clean run, the usual one in an editor or a
git hook, and a report read by CI or piped elsewhere, should not pay for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from ppaux_lint.facts.spans import source_lines
from ppaux_lint.report.paths import display_path, printable
from ppaux_lint.support.fileio import MAX_SOURCE_BYTES, read_regular_file

if TYPE_CHECKING:
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.report.styled import Line

CONTEXT_LINES = 1


def render(findings: Sequence[Finding], out: TextIO, overlays: Mapping[str, bytes] | None = None) -> None:
    """``overlays``: the in-memory text a file was checked as (standard input), which the frame must show."""
    if not findings:
        return
    from ppaux_lint.report import styled

    lines_out: list[styled.Line] = []  # written at once: one print per line was most of the time it took
    sources: dict[str, list[str]] = {}
    for f in findings:
        lines_out.append([(printable(display_path(f.path)), "bold"), (f":{f.span.line}:{f.span.column}: ", ""),
                          (f.code, "bold red"), (f" {printable(f.message)}", "")])
        if f.path not in sources:
            in_memory = overlays.get(f.path) if overlays is not None else None
            sources[f.path] = _lines(_read(f.path) if in_memory is None else in_memory)
        lines_out.extend(_frame(sources[f.path], f))
        for related in f.related:  # the other end of a cross-file finding, which may be the file asked about
            lines_out.append([("  ", ""), ("note", "cyan"),
                              (f": {printable(display_path(related.path))}:{related.span.line}:"
                               f"{related.span.column}: {printable(related.message)}", "")])
        if f.fix is not None:
            note = "" if f.fix.safe else " (unsafe: needs --unsafe-fixes)"
            lines_out.append([("  ", ""), ("help", "cyan"), (f": {printable(f.fix.description)}{note}", "")])
        lines_out.append([])
    styled.write(lines_out, out)


def _read(path: str) -> bytes:
    """The file the findings quote, read as the analysis read it: a regular file no larger than any source (a
    3 GB sparse file was read whole to quote its line 1, and its NULs written out), else nothing to quote."""
    try:
        return read_regular_file(path, MAX_SOURCE_BYTES)
    except OSError:
        return b""


def _lines(source: bytes) -> list[str]:
    """The lines the findings count, shown printable: decoded as the interpreter decodes the file (its
    coding cookie), split where it ends lines, and each character that a terminal would not show as one
    column (a form feed, ``\\x1c``, ``\\u2028``) drawn as one visible symbol, so the caret stays under it."""
    from ppaux_lint.support.encoding import source_encoding

    try:
        encoding = source_encoding(source)
        text = source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeError):  # the file's PPA000 says why; show what can be shown
        text = source.decode("utf-8", errors="replace")
    lines = source_lines(text)
    if lines[-1] == "":  # the end of the last line, not a line of its own
        lines.pop()
    return [line.translate(_PRINTABLE) for line in lines]


# C0 controls (a tab excepted: the caret line keeps it) as their Unicode control pictures, DEL as its own, and
# the characters some terminals take for a line break as the newline symbol; the other C1 controls (0x9b starts
# an escape sequence on some terminals) and the bidirectional controls that reorder what is shown ("Trojan
# Source") as the replacement character: one character for one, so the caret line stays under its column.
_PRINTABLE = {code: 0x2400 + code for code in range(0x20) if code != 0x09}
_PRINTABLE.update(dict.fromkeys((*range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                  *range(0x2066, 0x206A)), 0xFFFD))
_PRINTABLE.update({0x7F: 0x2421, 0x85: 0x2424, 0x2028: 0x2424, 0x2029: 0x2424})


def _frame(lines: list[str], f: Finding) -> list[Line]:
    if not lines or f.span.line > len(lines):
        return []
    first = max(1, f.span.line - CONTEXT_LINES)
    last = min(len(lines), f.span.line + CONTEXT_LINES)
    width = len(str(last))
    gutter = [(f"  {'':>{width}} ", ""), ("|", "blue")]
    frame = [gutter]
    for number in range(first, last + 1):
        frame.append([("  ", ""), (f"{number:>{width}} |", "blue"), (f" {lines[number - 1]}", "")])
        if number == f.span.line:
            end = f.span.end_column if f.span.end_line == f.span.line else len(lines[number - 1]) + 1
            carets = "^" * max(1, end - f.span.column)
            indent = "".join("\t" if c == "\t" else " " for c in lines[number - 1][:f.span.column - 1])
            frame.append([*gutter, (f" {indent}", ""), (carets, "bold red"), (" ", ""), (f.code, "bold red")])
    frame.append(gutter)
    return frame
