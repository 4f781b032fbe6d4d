"""``check``'s findings: replayed when no input changed since the same command ran, else analysed (and
recorded for the next run), each with the fix it offers.

The replay is the reason for the order here: the project is loaded and its cache asked first, and the
engine, the index, the rules and the fix machinery are imported only when the record misses (``replay.py``;
``tests/test_laziness.py`` pins it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from ppaux_lint.cache.owner import ProjectCache
from ppaux_lint.project.loading import Options, asked, discover_files, load_project
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.check.engine import Analysis
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.project.discover import Discovery


@dataclass(frozen=True)
class Checked:
    """What ``check`` reports: the findings with their fixes, discovery's warnings, how many files were asked
    about, any overlays read (whose text the full format quotes), and how many classes of those files could not
    be judged (code the analysis cannot follow touches them: ``index/namespaces.py``)."""

    findings: list[Finding]
    warnings: tuple[str, ...]
    files_checked: int
    overlays: dict[str, bytes] = field(default_factory=dict)
    replayed: bool = False
    unjudged: int = 0
    output_file: Path | None = None  # the project config's ``output-file``, where --output-file is not given


def check_project(paths: Sequence[str | Path], options: Options,
                  hold: Callable[[object], None] | None = None) -> Checked:
    """The findings for ``paths``: replayed when no input changed since the same command ran, else analysed
    (and recorded for the next run). ``hold``, when the process will end without freeing what it made, is given
    the analysis, so that nothing frees it object by object when the findings are out of it: 22 ms of a cold
    check of the 10,000-file monorepo, just before the report (``collector.keep_until_exit``)."""
    given = asked(paths)
    project = load_project(given, options)
    cache = ProjectCache(project, options)
    replayed = cache.replay(given)
    if replayed is not None:
        return Checked(replayed.findings, replayed.warnings, replayed.files_checked, replayed=True,
                       unjudged=replayed.unjudged, output_file=project.config.output_path)
    from ppaux_lint.check.engine import analyze

    discovery = discover_files(given, options, project)
    cache.stat_inputs(discovery)  # before the analysis reads anything (replay.py says why)
    analysis = analyze(given, options, project, discovery, cache, close=False)  # its workers serve the fixes too
    if hold is not None:
        hold(analysis)
    try:
        checked = _checked(analysis, discovery, project.config.output_path)
    finally:
        analysis.close()
    del analysis  # (unless held) recorded with the analysis gone: the record's encoding adds nothing to the peak
    cache.record(checked.findings, checked.warnings, checked.files_checked, checked.unjudged)
    return checked


def _checked(analysis: Analysis, discovery: Discovery, output_file: Path | None) -> Checked:
    """What ``check`` reports of ``analysis``, which its caller then no longer holds."""
    return Checked(with_fixes(analysis), discovery.warnings, len(discovery.targets), dict(analysis.overlays),
                   unjudged=len(analysis.unjudged()), output_file=output_file)


def with_fixes(analysis: Analysis) -> list[Finding]:
    """The analysis's findings, each with the fix it offers; a run without findings loads no fix machinery."""
    if not analysis.findings:
        return []
    from ppaux_lint.fixes import attach_fixes

    return attach_fixes(analysis)
