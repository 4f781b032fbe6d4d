"""The pipeline, wired once: discover -> summarize -> index -> checks -> selection.

The CLI, ``verify`` and ``inventory`` all start here, so they see the project
the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ppaux_lint.cache import CACHE_DIR_NAME, Cache
from ppaux_lint.config import Config, Protocols, load_config
from ppaux_lint.discover import Discovery, discover, file_key
from ppaux_lint.findings import Finding
from ppaux_lint.index import ProjectIndex
from ppaux_lint.layout import PyProjects, common_root, project_roots
from ppaux_lint.model import ClassInfo
from ppaux_lint.prefilter import bound_names, initial_tokens, possibly_relevant
from ppaux_lint.rules import CheckContext, run_checks
from ppaux_lint.selection import Selection, Suppressed, apply
from ppaux_lint.store import SummaryStore
from ppaux_lint.summary import FileSummary


@dataclass(frozen=True)
class Project:
    """Where the project is, and the config at its root.

    ``root`` holds the cache and is where ``--exclude`` patterns start; ``tops`` are the directories walked
    (the root, or each path's own project when a run spans several); ``config`` is the root's, or the
    ``--config`` file's, which then replaces every other (``override``).
    """

    root: Path
    config: Config
    tops: tuple[Path, ...] = ()
    override: bool = False


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
    # In-memory contents by path (standard input, an editor's unsaved buffers): read instead of the file,
    # which need not exist yet; pass an overlay's path to have it checked.
    overlays: Mapping[str, bytes] = field(default_factory=dict)
    # Start no worker processes: the language server analyses in a thread, and a process forked from a
    # threaded one can inherit a lock another thread held (stdout's, mid-write) and hang on exit.
    in_process: bool = False


@dataclass
class Analysis:
    project: Project
    discovery: Discovery
    summaries: tuple[FileSummary, ...]
    index: ProjectIndex
    findings: list[Finding]
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    suppressed: list[Suppressed] = field(default_factory=list)  # silenced by noqa or per-file-ignores
    indexes: dict[tuple[Protocols, bool], ProjectIndex] = field(default_factory=dict)  # one per protocol set
    overlays: Mapping[str, bytes] = field(default_factory=dict)  # by file_key: what was read instead of disk

    def index_for(self, path: str) -> ProjectIndex:
        """The index that judged the classes of ``path``: the one built with its config's protocols."""
        config = self.discovery.configs.get(path)
        return self.indexes.get(_group(config), self.index) if config is not None else self.index


def load_project(paths: Sequence[Path], options: Options) -> Project:
    tops = project_roots(paths, Path.cwd(), PyProjects())
    root = common_root(tops)
    return Project(root, load_config(root, options.config_path), tuple(map(Path, tops)),
                   override=options.config_path is not None)


def analyze(paths: Sequence[str | Path], options: Options = Options(), project: Project | None = None) -> Analysis:
    """Every stage, once per protocol set among the configs of the files asked about.

    Configs differ per sub-project (scopes.py), and their protocols decide what a class is, so each set of
    protocols gets its own index over the whole project, and each finding is kept from the pass of the
    config its file follows; select, ignore and per-file-ignores come from that config too. A project
    with one config, the usual case, makes one pass.
    """
    given = [Path(p) for p in paths] or [Path(".")]
    project = project or load_project(given, options)
    overlays = {file_key(Path(path)): data for path, data in options.overlays.items()}
    discovery = discover(given, project.root, project.config if project.override else None, options.exclude,
                         options.force_exclude, project.tops, overlays)
    configs = {config.path: config for config in discovery.all_configs}
    selections = {path: _selection(config, options) for path, config in configs.items()}  # each one validated
    store = SummaryStore(discovery.files, _cache(project, options), project.config.summary_key(),
                         jobs=1 if options.in_process else None, isolate=False if options.in_process else None,
                         overlays=overlays)
    targets = discovery.targets
    passes = {_group(discovery.config_of(path)): discovery.config_of(path) for path in sorted(targets)}
    indexes: dict[tuple[Protocols, bool], ProjectIndex] = {}
    classes: dict[str, ClassInfo] = {}
    raw: set[Finding] = set()
    by_path: dict[str, FileSummary] = {}
    for group, config in (passes or {_group(project.config): project.config}).items():
        index, relevant = _index(store, discovery, config, options.prefilter)
        indexes[group] = index
        by_path.update((s.path, s) for s in relevant)
        for fqn, info in index.infos().items():  # each class as judged under its own file's config
            if fqn not in classes or _group(discovery.config_of(info.path)) == group:
                classes[fqn] = info
        # A finding is asked about when any file it involves is (PPA015 names both ends of a contract).
        raw.update(f for f in run_checks(CheckContext(index=index, summaries=tuple(relevant)))
                   if _group(discovery.config_of(f.path)) == group and any(p in targets for p in f.paths))
    store.save()
    findings: list[Finding] = []
    suppressed: list[Suppressed] = []
    for path, located in _by_config(sorted(raw, key=lambda f: f.sort_key), discovery).items():
        kept, silenced = apply(located, selections[path], configs[path].per_file_ignores,
                               _anchor(configs[path], project), by_path)
        findings.extend(kept)
        suppressed.extend(silenced)
    findings.sort(key=lambda f: f.sort_key)
    return Analysis(project, discovery, tuple(store.summaries.values()), next(iter(indexes.values())), findings,
                    classes, suppressed, indexes, overlays)


def _group(config: Config) -> tuple[Protocols, bool]:
    """What decides what a class is: configs that agree on it share one index."""
    return config.protocols, config.structural


def _selection(config: Config, options: Options) -> Selection:
    key = f"{config.where}: 'tool.ppaux-lint.{{}}'"
    return Selection.build(select=[(options.select, "--select")] if options.select else
                           [(config.select, key.format("select"))],
                           ignore=[(config.ignore, key.format("ignore")), (options.ignore, "--ignore")])


def _by_config(findings: list[Finding], discovery: Discovery) -> dict[Path | None, list[Finding]]:
    """Findings grouped by the config of the file each is located in, which decides whether it is reported."""
    out: dict[Path | None, list[Finding]] = {}
    for finding in findings:
        out.setdefault(discovery.config_of(finding.path).path, []).append(finding)
    return out


def _anchor(config: Config, project: Project) -> Path:
    """Where a config's per-file-ignores globs start: its own directory, as in ruff (``--config``'s and the
    defaults' start at the project root)."""
    return config.path.parent if config.path is not None and not project.override else project.root


def _index(store: SummaryStore, discovery: Discovery, config: Config,
           prefilter: bool) -> tuple[ProjectIndex, list[FileSummary]]:
    """The index under ``config``'s protocols, and the summaries of the files that could matter."""
    relevant, tokens = _relevant_summaries(store, discovery, config.protocols, prefilter)
    if prefilter:
        eager, focus = relevant, [f"{s.module}.{c.qualname}" for s in relevant for c in s.classes
                                  if possibly_relevant(c, tokens)]
    else:
        eager, focus = list(store.summaries.values()), None
    index = ProjectIndex(eager, config.protocols, config.structural, loader=store.load_module,
                         known_modules=store.by_module, focus=focus,
                         owners={module: source.path for module, source in store.by_module.items()})
    return index, relevant


def _cache(project: Project, options: Options) -> Cache | None:
    if options.no_cache:
        return None
    directory = options.cache_dir or (Path(project.config.cache_dir) if project.config.cache_dir else None)
    if directory is not None and not directory.is_absolute():
        directory = project.root / directory
    return Cache(directory or project.root / CACHE_DIR_NAME)


def _relevant_summaries(store: SummaryStore, discovery: Discovery, protocols: Protocols,
                        prefilter: bool) -> tuple[list[FileSummary], frozenset[str]]:
    """The summaries of every file that could matter, found by growing the prefilter's token set to a
    fixpoint (see prefilter.py). Without the prefilter every file is parsed first, and the same
    fixpoint only decides which files' own problems (PPA000, helper calls) are reported."""
    if not prefilter:
        store.summarize(discovery.files)
    tokens = initial_tokens(protocols)
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
