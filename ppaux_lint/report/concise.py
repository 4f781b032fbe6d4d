"""One line per finding, ``path:line:col: CODE message``, the shape editors and grep understand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ppaux_lint.facts.findings import Finding
from ppaux_lint.report.paths import display_path, printable


def render(findings: Sequence[Finding], out: TextIO) -> None:
    for f in findings:
        out.write(f"{printable(display_path(f.path))}:{f.span.line}:{f.span.column}: {f.code} {printable(f.message)}\n")
