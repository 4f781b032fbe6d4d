"""The pipeline, wired once: discover -> summarize -> index -> checks -> selection.

The CLI, ``verify`` and ``inventory`` all start here, so they see the project
the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ppaux_lint.cache import CACHE_DIR_NAME, Cache
from ppaux_lint.rules import CheckContext, run_checks
from ppaux_lint.config import Config, load_config
from ppaux_lint.discover import Discovery, discover, find_root
from ppaux_lint.findings import Finding
from ppaux_lint.index import ProjectIndex
from ppaux_lint.model import ClassInfo
from ppaux_lint.prefilter import bound_names, initial_tokens, possibly_relevant
from ppaux_lint.selection import Selection, Suppressed, apply
from ppaux_lint.store import SummaryStore
from ppaux_lint.summary import FileSummary


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
    no_cache: bool = False
    cache_dir: Path | None = None
    prefilter: bool = True  # off only to prove, in tests, that it changes nothing


@dataclass
class Analysis:
    project: Project
    discovery: Discovery
    summaries: tuple[FileSummary, ...]
    index: ProjectIndex
    findings: list[Finding]
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    suppressed: list[Suppressed] = field(default_factory=list)  # silenced by noqa or per-file-ignores


def load_project(paths: Sequence[Path], options: Options) -> Project:
    root = find_root(paths, Path.cwd())
    return Project(root=root, config=load_config(root, options.config_path))


def analyze(paths: Sequence[str | Path], options: Options = Options(), project: Project | None = None) -> Analysis:
    given = [Path(p) for p in paths] or [Path(".")]
    project = project or load_project(given, options)
    config = project.config
    key = f"{config.path}: 'tool.ppaux-lint.{{}}'"
    selection = Selection.build(select=[(options.select, "--select")] if options.select else
                                [(config.select, key.format("select"))],
                                ignore=[(config.ignore, key.format("ignore")), (options.ignore, "--ignore")])
    discovery = discover(given, project.root, config, options.exclude, options.force_exclude)
    store = SummaryStore(discovery.files, _cache(project, options), config.summary_key())
    relevant, tokens = _relevant_summaries(store, discovery, config, options.prefilter)
    if options.prefilter:
        eager, focus = relevant, [f"{s.module}.{c.qualname}" for s in relevant for c in s.classes
                                  if possibly_relevant(c, tokens)]
    else:
        eager, focus = list(store.summaries.values()), None
    index = ProjectIndex(eager, config.protocols, config.structural, loader=store.load_module,
                         known_modules=store.by_module, focus=focus,
                         owners={module: source.path for module, source in store.by_module.items()})
    raw = run_checks(CheckContext(index=index, summaries=tuple(relevant)))
    store.save()
    targets = discovery.targets
    by_path = {s.path: s for s in relevant}
    wanted = sorted(set(f for f in raw if f.path in targets), key=lambda f: f.sort_key)
    findings, suppressed = apply(wanted, selection, config.per_file_ignores, project.root, by_path)
    return Analysis(project, discovery, tuple(store.summaries.values()), index, findings, index.infos(),
                    suppressed)


def _cache(project: Project, options: Options) -> Cache | None:
    if options.no_cache:
        return None
    directory = options.cache_dir or (Path(project.config.cache_dir) if project.config.cache_dir else None)
    if directory is not None and not directory.is_absolute():
        directory = project.root / directory
    return Cache(directory or project.root / CACHE_DIR_NAME)


def _relevant_summaries(store: SummaryStore, discovery: Discovery, config: Config,
                        prefilter: bool) -> tuple[list[FileSummary], frozenset[str]]:
    """The summaries of every file that could matter, found by growing the prefilter's token set to a
    fixpoint (see prefilter.py). Without the prefilter every file is parsed first, and the same
    fixpoint only decides which files' own problems (PPA000, helper calls) are reported."""
    if not prefilter:
        store.summarize(discovery.files)
    tokens = initial_tokens(config.protocols)
    new_tokens = tokens
    remaining = list(discovery.files)
    relevant: dict[str, FileSummary] = {}
    while new_tokens:
        hits = store.scan(remaining, new_tokens)
        relevant.update(store.summarize(hits))
        hit_paths = {h.path for h in hits}
        remaining = [f for f in remaining if f.path not in hit_paths]
        grown = set().union(*(bound_names(s, tokens) for s in relevant.values())) if relevant else set()
        added = grown - tokens
        tokens = tokens | added
        # A token containing an older one can only match files that older one already matched.
        new_tokens = frozenset(t for t in added if not any(old in t for old in tokens - added))
    return list(relevant.values()), tokens
