"""Which findings the user wants: --select/--ignore prefixes, per-file-ignores, and ``# noqa`` comments."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ppaux_lint.config import compile_globs
from ppaux_lint.findings import Finding
from ppaux_lint.registry import RULES_BY_CODE
from ppaux_lint.summary import FileSummary


class SelectionError(Exception):
    """A --select/--ignore entry that names no rule: exit code 2, since a typo would silence checks."""


def _validate(prefixes: Iterable[str], where: str) -> tuple[str, ...]:
    out = []
    for prefix in prefixes:
        prefix = prefix.strip().upper()
        if prefix != "ALL" and not any(code.startswith(prefix) for code in RULES_BY_CODE):
            raise SelectionError(f"{where}: {prefix!r} matches no rule code (see `ppaux-lint rules`)")
        out.append(prefix)
    return tuple(out)


def _matches(code: str, prefixes: Sequence[str]) -> int:
    """Length of the longest matching prefix (ALL counts as 0 but matches), or -1."""
    best = -1
    for prefix in prefixes:
        if prefix == "ALL":
            best = max(best, 0)
        elif code.startswith(prefix):
            best = max(best, len(prefix))
    return best


@dataclass(frozen=True)
class Selection:
    select: tuple[str, ...]
    ignore: tuple[str, ...]

    @classmethod
    def build(cls, select: Sequence[str], ignore: Sequence[str], where: str) -> "Selection":
        return cls(_validate(select, where) or ("ALL",), _validate(ignore, where))

    def enabled(self, code: str) -> bool:
        """As in ruff, the more specific of a matching select and ignore wins."""
        selected = _matches(code, self.select)
        ignored = _matches(code, self.ignore)
        return selected >= 0 and selected > ignored


def apply(findings: Iterable[Finding], selection: Selection, per_file_ignores: dict[str, tuple[str, ...]],
          root: Path, summaries: dict[str, FileSummary]) -> list[Finding]:
    specs = [(compile_globs([glob]), codes) for glob, codes in
             per_file_ignores.items()]
    kept = []
    for finding in findings:
        if not selection.enabled(finding.code):
            continue
        relative = _relative(finding.path, root)
        if any(spec.match_file(relative) and _matches(finding.code, [c.upper() for c in codes]) >= 0
               for spec, codes in specs):
            continue
        summary = summaries.get(finding.path)
        if summary is not None and _suppressed(finding, summary):
            continue
        kept.append(finding)
    return kept


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _suppressed(finding: Finding, summary: FileSummary) -> bool:
    """``# noqa`` on the finding's line or, for class-level findings, on the class line."""
    lines = {finding.span.line}
    for cls in summary.classes:
        if cls.span == finding.span:
            lines.add(cls.class_line)
    for line, codes in summary.noqa:
        if line in lines and (not codes or finding.code in codes):
            return True
    return False
