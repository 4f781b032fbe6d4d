"""The pipeline, wired once: discover -> summarize -> index -> checks -> selection.

The CLI, ``verify`` and ``inventory`` all start here, so they see the project
the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ppaux_lint.cache.owner import ProjectCache
from ppaux_lint.check.selection import Selection, Suppressed, apply
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import FileSummary
from ppaux_lint.index.first_hops import first_hops
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.project.config import Config, Protocols
from ppaux_lint.project.discover import Discovery, SourceFile, file_key
from ppaux_lint.project.loading import Options, Project, asked, discover_files, load_project, selection_sources
from ppaux_lint.rules import CheckContext, run_checks
from ppaux_lint.scan.lookahead import Graph, reach
from ppaux_lint.scan.prefilter import Bound, Uncovered, initial_tokens, possibly_relevant, uncovered
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.cache.store import SummaryStore


@dataclass
class Analysis:
    project: Project
    discovery: Discovery
    summaries: tuple[FileSummary, ...]
    index: ProjectIndex
    findings: list[Finding]
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    suppressed: list[Suppressed] = field(default_factory=list)  # silenced by noqa or per-file-ignores
    indexes: dict[Pass, ProjectIndex] = field(default_factory=dict)  # one per protocol set (and copy)
    overlays: Mapping[str, bytes] = field(default_factory=dict)  # by file_key: what was read instead of disk
    store: SummaryStore | None = None  # whose workers ``close`` stops, when ``analyze`` was asked to leave them up

    def close(self) -> None:
        """Stop the workers ``analyze(close=False)`` left up (a later load starts its own again)."""
        if self.store is not None:
            self.store.close()

    def unjudged(self) -> list[ClassInfo]:
        """The classes of the files asked about that no rule could judge: code the analysis cannot follow
        touches their namespace where their role's transport method is looked up (``index/namespaces.py``)."""
        targets = self.discovery.targets
        return [info for info in self.classes.values() if info.path in targets and info.could_not_be_judged]

    def index_for(self, path: str) -> ProjectIndex:
        """The index that judged the classes of ``path``: the one built with its config's protocols, where
        its own copy owns its module names."""
        config = self.discovery.configs.get(path)
        return self.indexes.get(_pass(self.discovery, path), self.index) if config is not None else self.index


def analyze(paths: Sequence[str | Path], options: Options | None = None, project: Project | None = None,
            discovery: Discovery | None = None, cache: ProjectCache | None = None, close: bool = True) -> Analysis:
    """Every stage, once per protocol set among the configs of the files asked about.

    Configs differ per sub-project (scopes.py), and their protocols decide what a class is, so each set of
    protocols gets its own index over the whole project, and each finding is kept from the pass of the
    config its file follows; select, ignore and per-file-ignores come from that config too. Likewise, when
    two roots claim one module name (two sub-projects with a ``utils.common``, two copies of a package), the
    files of each root that lost a name get a pass of their own in which that root owns its names, so each
    copy is judged against itself first (discover.py's ``copies``). A project with one config and no such
    collision, the usual case, makes one pass. ``project``, ``discovery`` and ``cache``, when the caller has
    them already, are what ``load_project``, ``discover_files`` and ``ProjectCache`` would give for
    ``paths`` (``check`` makes the cache first, to replay and to stat the inputs before anything is read).
    Everything on disk goes through ``cache``: the store it hands out, and the scan index it saves at the end.
    ``close=False`` leaves the store's workers up for the caller to stop (``Analysis.close``): one that plans fixes
    next has each module the planning loads (``fixes/plan.py``'s import-cycle search reads up to 200) parsed by a
    running worker, where a closed store starts a process for each: 132 of them took 2.6 s of a cold check of the
    10,000-file synthetic project.
    """
    options = options or Options()
    given = asked(paths)
    project = project or load_project(given, options)
    overlays = {file_key(Path(path)): data for path, data in options.overlays.items()}
    discovery = discovery or discover_files(given, options, project)
    configs = {config.path: config for config in discovery.all_configs}
    selections = {path: _selection(config, options) for path, config in configs.items()}  # each one validated
    cache = cache or ProjectCache(project, options)
    store = cache.summaries(discovery.files, overlays, jobs=1 if options.in_process else None,
                            isolate=False if options.in_process else None, target=discovery.target)
    targets = discovery.targets
    passes = {_pass(discovery, path): discovery.config_of(path) for path in sorted(targets)}
    indexes: dict[Pass, ProjectIndex] = {}
    classes: dict[str, ClassInfo] = {}
    judged: set[str] = set()  # the classes in ``classes`` that come from the pass of their own file
    raw: set[Finding] = set()
    by_path: dict[str, FileSummary] = {}
    relevant_of: dict[tuple[Protocols, bool], list[FileSummary]] = {}
    for key, config in sorted((passes or {(_group(project.config), ""): project.config}).items(),
                              key=lambda item: item[0][1]):  # the copies' passes after the main one
        group, copy = key
        if group not in relevant_of:  # the prefilter's fixpoint depends on the protocols only
            relevant_of[group] = _relevant_summaries(store, discovery, config.protocols, options.prefilter)
        index, relevant = _index(store, discovery, config, options.prefilter, relevant_of[group], copy)
        indexes[key] = index
        by_path.update((s.path, s) for s in relevant)
        for fqn, info in index.infos().items():  # each class as judged under its own file's config and copy
            own = _pass(discovery, info.path) == key
            if fqn not in classes or (own and fqn not in judged):
                classes[fqn] = info
                if own:
                    judged.add(fqn)
        # A finding is asked about when any file it involves is (PPA015 names both ends of a contract).
        context = CheckContext(index=index, summaries=tuple(relevant), requires_python=discovery.requires_python)
        raw.update(f for f in run_checks(context)
                   if _pass(discovery, f.path) == key and any(p in targets for p in f.paths))
    cache.finish()  # the scan index, saved when worth it
    if close:
        store.close()  # its workers; an error before this leaves them to the pool's own clean-up at exit
    findings: list[Finding] = []
    suppressed: list[Suppressed] = []
    for path, located in _by_config(sorted(raw, key=lambda f: f.sort_key), discovery).items():
        kept, silenced = apply(located, selections[path], configs[path].per_file_ignores,
                               _anchor(configs[path], project), by_path)
        findings.extend(kept)
        suppressed.extend(silenced)
    findings.sort(key=lambda f: f.sort_key)
    return Analysis(project, discovery, tuple(store.summaries.values()), next(iter(indexes.values())), findings,
                    classes, suppressed, indexes, overlays, None if close else store)


def _group(config: Config) -> tuple[Protocols, bool]:
    """What decides what a class is: configs that agree on it share one index."""
    return config.protocols, config.structural


Pass = tuple[tuple[Protocols, bool], str]  # a protocol set, and the root whose copy owns its names ("" for none)


def _pass(discovery: Discovery, path: str) -> Pass:
    """The pass that judges the classes of ``path``."""
    return _group(discovery.config_of(path)), discovery.copies.get(path, "")


def _selection(config: Config, options: Options) -> Selection:
    Selection.check_ignores(config.per_file_ignores, f"{config.where}: 'tool.ppaux-lint.per-file-ignores'")
    return Selection.build(**selection_sources(config, options))


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


def _index(store: SummaryStore, discovery: Discovery, config: Config, prefilter: bool,
           found: tuple[list[FileSummary], frozenset[str]], copy: str) -> tuple[ProjectIndex, list[FileSummary]]:
    """The index under ``config``'s protocols where ``copy``'s files own their module names (the first claimant
    owns a name when ``copy`` is ""), and the summaries of the files that could matter (``found``: they and the
    prefilter's tokens)."""
    relevant, tokens = found
    if copy:
        owners = discovery.owners(copy)
        loader = partial(_load_owned, store, owners)
    else:
        owners, loader = {module: source.path for module, source in store.by_module.items()}, store.load_module
    if prefilter:
        judged = [(s, c) for s in relevant for c in s.classes if possibly_relevant(c, tokens)]
        eager, focus = relevant, [f"{s.module}.{c.qualname}" for s, c in judged]
        ahead = (store.by_path.get(owners[module]) for module in dict.fromkeys(first_hops(judged, owners)))
        store.prefetch([source for source in ahead if source is not None])
    else:
        eager, focus = list(store.summaries.values()), None
    index = ProjectIndex(eager, config.protocols, config.structural, loader=loader,
                         known_modules=store.by_module, focus=focus, owners=owners)
    return index, relevant


def _load_owned(store: SummaryStore, owners: Mapping[str, str], module: str) -> FileSummary | None:
    """The summary of the file that owns ``module`` in a copy's pass."""
    path = owners.get(module)
    return store.summarize([store.by_path[path]])[path] if path is not None else None


def _relevant_summaries(store: SummaryStore, discovery: Discovery, protocols: Protocols,
                        prefilter: bool) -> tuple[list[FileSummary], frozenset[str]]:
    """The summaries of every file that could matter, found by growing the prefilter's token set to a
    fixpoint (see prefilter.py). Without the prefilter every file is parsed first, and the same
    fixpoint only decides which files' own problems (PPA000, helper calls) are reported.

    The second round also guesses every token the fixpoint will reach (lookahead.py), and one search for
    the guess finds the only files a later round can match while the guess holds its new tokens: a round
    then searches those (kept in memory), not the whole tree again. Not the first round: most trees (the
    SGLang tree among them) are settled by one, and reading a guess out of every file would cost them a
    third of their time for nothing."""
    if not prefilter:
        store.summarize(discovery.files)
    initial = tokens = new_tokens = initial_tokens(protocols)
    remaining = list(discovery.files)
    relevant: dict[str, FileSummary] = {}
    bound = Bound()
    graph: Graph | None = None  # collecting the lookahead's edges during the second round
    guessed = False
    guess: frozenset[str] = frozenset()
    candidates: list[SourceFile] = []  # the remaining files that hold a guessed token
    held = store.held(candidates)  # the candidates whose bytes the store holds, searched together (search.Held)
    fresh = Uncovered(tokens)  # added tokens hold none held before them: ``settle`` adds only new names
    while new_tokens:
        hits = store.scan_held(held, candidates, new_tokens) if new_tokens <= guess \
            else store.scan(remaining, new_tokens, graph)
        found = store.summarize(hits)
        relevant.update(found)
        hit_paths = {h.path for h in hits}
        remaining = [f for f in remaining if f.path not in hit_paths]
        bound.add(found.values(), tokens)
        added = bound.settle(tokens)
        tokens = tokens | added
        # A token containing an older one can only match files that older one already matched: what those files
        # bind to it is in ``added`` already, since ``settle`` followed every binding of the summaries read.
        new_tokens = fresh(added)
        if graph is not None:
            guess = reach(tokens, graph, bound.waiting_edges())
            candidates = store.scan(remaining, uncovered(guess - initial, initial)) if new_tokens else []
            held = store.held(candidates)
            graph, guessed = None, True
        elif not guessed:
            graph = {}
        candidates = [f for f in candidates if f.path not in hit_paths]
    store.forget_unsummarized()
    return list(relevant.values()), tokens
