"""``check --add-noqa``: today's findings silenced in place, for adopting ppaux-lint on an old code base.

Each finding gets the ``# noqa: CODE`` that the engine reads for it (:mod:`ppaux_lint.fixes.noqa`: the class
line for a class-level finding, appended to a noqa comment already there, never inside a string or after a
backslash), so that the next ``check`` reports none of them. The files are written as ``--fix`` writes them
(:mod:`ppaux_lint.fixes.writing`): only the checked files, each replaced atomically in its own encoding (a BOM
kept), newlines untouched; a file it may not write is a warning. A file that cannot be read or parsed
(``summary.error``) gets nothing: no comment silences the finding that says so, as ruff leaves syntax errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ppaux_lint.check.engine import analyze
from ppaux_lint.fixes.noqa import TextLines, noqa_edits
from ppaux_lint.fixes.sources import read_source_data, writes_back
from ppaux_lint.fixes.writing import CheckedFiles, NotWritten
from ppaux_lint.project.loading import Options
from ppaux_lint.report.paths import display_path, printable
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class Added:
    count: int  # comments added or extended, one per line
    warnings: tuple[str, ...]  # discovery's, then each file left unwritten


def add_noqa(paths: Sequence[Path], options: Options) -> Added:
    from ppaux_lint.fixes import apply_edits

    analysis = analyze(list(paths), options)
    warnings = list(analysis.discovery.warnings)
    summaries = {summary.path: summary for summary in analysis.summaries}
    targets = analysis.discovery.targets
    by_path: dict[str, list] = {}
    for finding in analysis.findings:
        summary = summaries.get(finding.path)
        if finding.path in targets and summary is not None and summary.error is None:
            by_path.setdefault(finding.path, []).append(finding)
    files = CheckedFiles(targets, analysis.discovery.linked)
    count = 0
    for path, findings in sorted(by_path.items()):
        try:
            data, text, encoding = read_source_data(path)
        except (OSError, UnicodeDecodeError, SyntaxError) as error:  # gone or changed since it was analysed
            warnings.append(f"{printable(display_path(path))}: no noqa added: cannot read it: {error}")
            continue
        edits = noqa_edits(findings, summaries[path], TextLines(text))
        if not edits:
            continue
        try:
            if not writes_back(data, text, encoding):
                raise NotWritten(f"the file's encoding, {encoding}, does not write back the bytes it was read from")
            files.write(path, apply_edits(text, edits), encoding, text)
        except NotWritten as why:
            warnings.append(f"{printable(display_path(path))}: no noqa added: {why}")
            continue
        count += len(edits)
    return Added(count, tuple(warnings))
