"""The default human format: location, code, message and a short code frame, as ruff shows them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from rich.markup import escape

from ppaux_lint.findings import Finding
from ppaux_lint.report.console import make_console
from ppaux_lint.report.paths import display_path

if TYPE_CHECKING:
    from rich.console import Console

CONTEXT_LINES = 1


def render(findings: Sequence[Finding], out: TextIO, overlays: Mapping[str, bytes] | None = None) -> None:
    """``overlays``: the in-memory text a file was checked as (standard input), which the frame must show."""
    console = make_console(file=out, highlight=False, soft_wrap=True)
    sources: dict[str, list[str]] = {}
    for f in findings:
        console.print(f"[bold]{escape(display_path(f.path))}[/]:{f.span.line}:{f.span.column}: "
                      f"[bold red]{f.code}[/] {escape(f.message)}")
        if f.path not in sources:
            in_memory = overlays.get(f.path) if overlays is not None else None
            sources[f.path] = (_read_lines(f.path) if in_memory is None
                               else in_memory.decode("utf-8", errors="replace").splitlines())
        lines = sources[f.path]
        _frame(console, lines, f)
        for related in f.related:  # the other end of a cross-file finding, which may be the file asked about
            console.print(f"  [cyan]note[/]: {escape(display_path(related.path))}:{related.span.line}:"
                          f"{related.span.column}: {escape(related.message)}")
        if f.fix is not None:
            note = "" if f.fix.safe else " (unsafe: needs --unsafe-fixes)"
            console.print(f"  [cyan]help[/]: {escape(f.fix.description)}{note}")
        console.print()


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def _frame(console: Console, lines: list[str], f: Finding) -> None:
    if not lines or f.span.line > len(lines):
        return
    first = max(1, f.span.line - CONTEXT_LINES)
    last = min(len(lines), f.span.line + CONTEXT_LINES)
    width = len(str(last))
    console.print(f"  {'':>{width}} [blue]|[/]")
    for number in range(first, last + 1):
        console.print(f"  [blue]{number:>{width}} |[/] {escape(lines[number - 1])}")
        if number == f.span.line:
            end = f.span.end_column if f.span.end_line == f.span.line else len(lines[number - 1]) + 1
            carets = "^" * max(1, end - f.span.column)
            console.print(f"  {'':>{width}} [blue]|[/] {' ' * (f.span.column - 1)}[bold red]{carets}[/] "
                          f"[bold red]{f.code}[/]")
    console.print(f"  {'':>{width}} [blue]|[/]")
