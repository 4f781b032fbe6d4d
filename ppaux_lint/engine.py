"""The pipeline, wired once: discover -> summarize -> index -> checks -> selection.

The CLI, ``verify`` and ``inventory`` all start here, so they see the project
the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ppaux_lint.checks import run_checks
from ppaux_lint.checks.context import CheckContext
from ppaux_lint.config import Config, load_config
from ppaux_lint.discover import Discovery, SourceFile, discover, find_root
from ppaux_lint.findings import Finding
from ppaux_lint.index import ProjectIndex
from ppaux_lint.model import ClassInfo
from ppaux_lint.selection import Selection, apply
from ppaux_lint.summary import FileSummary, ParseError, Span


@dataclass(frozen=True)
class Project:
    root: Path
    config: Config


@dataclass(frozen=True)
class Options:
    """What the command line adds to the config."""

    config_path: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    force_exclude: bool = False


@dataclass
class Analysis:
    project: Project
    discovery: Discovery
    summaries: tuple[FileSummary, ...]
    index: ProjectIndex
    findings: list[Finding]
    classes: dict[str, ClassInfo] = field(default_factory=dict)


def load_project(paths: Sequence[Path], options: Options) -> Project:
    root = find_root(paths, Path.cwd())
    return Project(root=root, config=load_config(root, options.config_path))


def analyze(paths: Sequence[str | Path], options: Options = Options(), project: Project | None = None) -> Analysis:
    given = [Path(p) for p in paths] or [Path(".")]
    project = project or load_project(given, options)
    config = project.config
    selection = Selection.build(options.select or config.select, config.ignore + options.ignore,
                                "--select/--ignore" if (options.select or options.ignore) else str(config.path))
    discovery = discover(given, project.root, config, options.exclude, options.force_exclude)
    summaries = tuple(summarize_files(discovery.files))
    index = ProjectIndex(summaries, config.protocols, config.structural)
    raw = run_checks(CheckContext(index=index, summaries=summaries))
    targets = {str(p) for p in discovery.targets}
    by_path = {s.path: s for s in summaries}
    wanted = sorted(set(f for f in raw if f.path in targets), key=lambda f: f.sort_key)
    findings = apply(wanted, selection, config.per_file_ignores, project.root, by_path)
    return Analysis(project, discovery, summaries, index, findings, index.infos())


def summarize_files(files: Sequence[SourceFile]) -> list[FileSummary]:
    from ppaux_lint.summarize import summarize_source  # libcst is imported only when something needs parsing

    out = []
    for source in files:
        try:
            data = source.path.read_bytes()
        except OSError as exc:
            out.append(FileSummary(path=str(source.path), module=source.module, is_package=source.is_package,
                                   error=ParseError(f"cannot read: {exc.strerror or exc}", Span(1, 1, 1, 1))))
            continue
        out.append(summarize_source(data, str(source.path), source.module, source.is_package))
    return out
