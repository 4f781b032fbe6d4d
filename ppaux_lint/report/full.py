"""The default human format: location, code, message and a short code frame, as ruff shows them.

rich is imported only when there is a finding to print: a clean run, the usual one in an editor or a git
hook, prints nothing here and should not pay for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from ppaux_lint.report.paths import display_path

if TYPE_CHECKING:
    from ppaux_lint.findings import Finding

CONTEXT_LINES = 1


def render(findings: Sequence[Finding], out: TextIO, overlays: Mapping[str, bytes] | None = None) -> None:
    """``overlays``: the in-memory text a file was checked as (standard input), which the frame must show."""
    if not findings:
        return
    from rich.markup import escape

    from ppaux_lint.report.console import make_console

    lines_out: list[str] = []  # rich markup, printed at once: one print per line was most of the time it took
    sources: dict[str, list[str]] = {}
    for f in findings:
        lines_out.append(f"[bold]{escape(display_path(f.path))}[/]:{f.span.line}:{f.span.column}: "
                         f"[bold red]{f.code}[/] {escape(f.message)}")
        if f.path not in sources:
            in_memory = overlays.get(f.path) if overlays is not None else None
            sources[f.path] = (_read_lines(f.path) if in_memory is None
                               else in_memory.decode("utf-8", errors="replace").splitlines())
        lines_out.extend(_frame(sources[f.path], f))
        for related in f.related:  # the other end of a cross-file finding, which may be the file asked about
            lines_out.append(f"  [cyan]note[/]: {escape(display_path(related.path))}:{related.span.line}:"
                             f"{related.span.column}: {escape(related.message)}")
        if f.fix is not None:
            note = "" if f.fix.safe else " (unsafe: needs --unsafe-fixes)"
            lines_out.append(f"  [cyan]help[/]: {escape(f.fix.description)}{note}")
        lines_out.append("")
    make_console(file=out, highlight=False, soft_wrap=True).print("\n".join(lines_out))


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def _frame(lines: list[str], f: Finding) -> list[str]:
    from rich.markup import escape

    if not lines or f.span.line > len(lines):
        return []
    first = max(1, f.span.line - CONTEXT_LINES)
    last = min(len(lines), f.span.line + CONTEXT_LINES)
    width = len(str(last))
    frame = [f"  {'':>{width}} [blue]|[/]"]
    for number in range(first, last + 1):
        frame.append(f"  [blue]{number:>{width}} |[/] {escape(lines[number - 1])}")
        if number == f.span.line:
            end = f.span.end_column if f.span.end_line == f.span.line else len(lines[number - 1]) + 1
            carets = "^" * max(1, end - f.span.column)
            frame.append(f"  {'':>{width}} [blue]|[/] {' ' * (f.span.column - 1)}[bold red]{carets}[/] "
                         f"[bold red]{f.code}[/]")
    frame.append(f"  {'':>{width}} [blue]|[/]")
    return frame
