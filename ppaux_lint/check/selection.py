"""Which findings the user wants: --select/--ignore prefixes, per-file-ignores, and ``# noqa`` comments."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import FileSummary
from ppaux_lint.project.globs import Globs
from ppaux_lint.rules import all_rules
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.records import dataclass


class SelectionError(UsageError):
    """A --select/--ignore entry that names no rule: exit code 2, since a typo would silence checks."""


def _validate(prefixes: Iterable[str], where: str) -> tuple[str, ...]:
    out = []
    for prefix in prefixes:
        prefix = prefix.strip().upper()
        if prefix != "ALL" and not any(rule.code.startswith(prefix) for rule in all_rules()):
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
    def build(cls, select: Sequence[tuple[Sequence[str], str]], ignore: Sequence[tuple[Sequence[str], str]],
              extend_select: Sequence[tuple[Sequence[str], str]] = ()) -> Selection:
        """From (codes, where they came from) pairs, so that an unknown code is reported with its source:
        the flag, or the config file and key. ``extend_select`` adds to ``select``, or to every rule when
        ``select`` is empty (as ruff's ``extend-select``, which never narrows the default)."""
        selected = tuple(code for codes, where in select for code in _validate(codes, where)) or ("ALL",)
        extended = tuple(code for codes, where in extend_select for code in _validate(codes, where))
        return cls(selected + extended, tuple(code for codes, where in ignore for code in _validate(codes, where)))

    @staticmethod
    def check_ignores(per_file_ignores: dict[str, tuple[str, ...]], where: str) -> None:
        """Every code of per-file-ignores names a rule, as ``--ignore``'s must: a typo would silence nothing."""
        for glob, codes in per_file_ignores.items():
            _validate(codes, f"{where} for {glob!r}")

    def enabled(self, code: str) -> bool:
        """As in ruff, the more specific of a matching select and ignore wins."""
        selected = _matches(code, self.select)
        ignored = _matches(code, self.ignore)
        return selected >= 0 and selected > ignored


@dataclass(frozen=True)
class Suppressed:
    """A finding the user silenced on purpose, and how: ``verify`` reads these (a ``# noqa: PPA001`` on a class
    declares that it never crosses a stage), and ``inventory`` can show them."""

    finding: Finding
    how: str  # "noqa" or "per-file-ignores"
    where: str  # the comment's line ("path:line") or the glob


def apply(findings: Iterable[Finding], selection: Selection, per_file_ignores: dict[str, tuple[str, ...]],
          root: Path, summaries: dict[str, FileSummary]) -> tuple[list[Finding], list[Suppressed]]:
    """The findings to report, and those that noqa comments or per-file-ignores silenced (findings of
    rules that are not selected are neither: nobody asked for them)."""
    specs = [(glob, Globs([glob]), codes) for glob, codes in per_file_ignores.items()]
    kept: list[Finding] = []
    suppressed: list[Suppressed] = []
    for finding in findings:
        if not selection.enabled(finding.code):
            continue
        relative = _relative(finding.path, root)
        glob = next((glob for glob, spec, codes in specs if spec.match_file(relative)
                     and _matches(finding.code, [c.upper() for c in codes]) >= 0), None)
        if glob is not None:
            suppressed.append(Suppressed(finding, "per-file-ignores", glob))
            continue
        summary = summaries.get(finding.path)
        line = _suppressed_at(finding, summary) if summary is not None else None
        if line is not None:
            suppressed.append(Suppressed(finding, "noqa", f"{relative}:{line}"))
            continue
        kept.append(finding)
    return kept, suppressed


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()


def noqa_lines(finding: Finding, summary: FileSummary) -> tuple[int, ...]:
    """The lines where a ``# noqa`` silences the finding: for a class-level finding the class line first (where
    the language server adds one), then the finding's own line."""
    class_lines = [cls.class_line for cls in summary.classes if cls.span == finding.span]
    return tuple(dict.fromkeys([*class_lines, finding.span.line]))


def _suppressed_at(finding: Finding, summary: FileSummary) -> int | None:
    """The line of the ``# noqa`` that silences the finding."""
    lines = noqa_lines(finding, summary)
    for comment in summary.noqa:
        if comment.line in lines and (not comment.codes or finding.code in comment.codes):
            return comment.line
    return None
