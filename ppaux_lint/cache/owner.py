"""The one owner of what ppaux-lint keeps on disk for a project, for one run.

A run makes one :class:`ProjectCache` from its project and options, and everything on disk goes through it:
the cache directory (``--cache-dir``, else the config's ``cache-dir``, else ``.ppaux_lint_cache``), refused
when it would share a directory with the user's files (a usage error, ``directory.py``), made with its
markers on the first write and never before; the replay record of the command (``replay.py``); the
summaries keyed by content and the prefilter's scan index (``summaries.py``, ``scan_index.py``). The
engine asks it for a :class:`~.store.SummaryStore`, which puts its questions about the disk back to this
owner (the store's :class:`~.store.Disk`), and tells it when the analysis is over, to save the scan index
when that is worth it. With ``--no-cache`` it answers every question with a miss and writes nothing.

The stats the record takes before the analysis are the stamps the scan index trusts, so each input is stat
once per run. Importing this module loads nothing of the analysis: a replayed run reads its record and
stops there, and the summaries' entries and the store are imported when a store is first asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ppaux_lint.cache.directory import cache_directory, prepare, refuse_shared
from ppaux_lint.cache.replay import Record, Run
from ppaux_lint.cache.scan_index import ScanIndex, Stamp, stamp
from ppaux_lint.project.excludes import is_within
from ppaux_lint.project.layout import is_marked
from ppaux_lint.project.loading import Options, Project

if TYPE_CHECKING:
    from ppaux_lint.cache.store import SummaryStore
    from ppaux_lint.cache.summaries import Entries
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.facts.summary import FileSummary
    from ppaux_lint.project.discover import Discovery, SourceFile

_UNKNOWN: tuple[None, None] = (None, None)
_UNSTATABLE: tuple[bool, None] = (True, None)  # a hit, as an unreadable file is: it must be reported


def _nowhere_to_cache(root: Path) -> bool:
    """Whether a project root takes no cache unless one is asked for (``--cache-dir``, ``cache-dir``): the file
    system's own, which files in unrelated trees (``check /tmp/a.py /var/b.py``, an editor's buffers there) make
    the project's, as no user would want ``/.ppaux_lint_cache``; and a loose directory (no ``pyproject.toml`` or
    ``.git`` makes it a project) outside the working directory, as ``check /etc/x.py`` or ``--stdin-filename
    /etc/x.py`` make ``/etc``: ruff keeps such a file's cache in the working directory, never beside it."""
    if root == Path(root.anchor):
        return True
    return not is_marked(str(root)) and not is_within(str(root), os.getcwd())


class ProjectCache:
    def __init__(self, project: Project, options: Options) -> None:
        self.directory = cache_directory(project, options.cache_dir)
        unasked = options.cache_dir is None and not project.config.cache_dir and _nowhere_to_cache(project.root)
        self.enabled = not options.no_cache and not unasked
        if self.enabled:  # before anything is read from it or written to it (directory.py says why)
            refuse_shared(self.directory, project, options)
        self._project = project
        self._options = options
        self._made: set[Path] = set()
        self._record: Record | None = None
        self._stamps: Mapping[str, Stamp] = {}
        self._entries: Entries | None = None
        self._scans: ScanIndex | None = None
        self._live: Mapping[str, SourceFile] = {}
        self._finished = False  # the analysis is over: summaries made later are written as they come

    def _make(self, inner: Path) -> bool:
        """Make ``inner``, a directory within the cache, and the cache's markers, once per run; False when the
        cache cannot be written (the next write tries again)."""
        if inner not in self._made:
            if not prepare(self.directory, inner):
                return False
            self._made.add(inner)
        return True

    # -- the command's record ---------------------------------------------------------------------
    def replay(self, given: list[Path]) -> Run | None:
        """The last run of the command that checks ``given``, when no input of it has changed since. Never with
        the cache off or with overlays, which neither replay nor record."""
        if not self.enabled or self._options.overlays:
            return None
        self._record = Record(self.directory, self._project, self._options, given)
        return self._record.read()

    def stat_inputs(self, discovery: Discovery) -> None:
        """Stat the inputs of the command that ``replay`` missed, before the analysis reads anything; the scan
        index then trusts those stats rather than taking its own. Nothing is stat, or recorded later, when the
        cache cannot be written."""
        if self._record is not None and self._make(self._record.directory):
            # On a cold run (no scan index to look files up in) the scan is the first to read every file, and
            # it stats each as it opens it: the record takes those stats (``remember_scan``).
            self._load_entries()
            cold = self._scans is not None and self._scans.empty and self._options.prefilter
            self._record.stat_inputs(discovery, scanned_first=cold)
            self._stamps = self._record.stamps()

    def record(self, findings: list[Finding], warnings: tuple[str, ...], files_checked: int,
               unjudged: int = 0) -> None:
        """Keep what the command reported for its next run (only when ``stat_inputs`` stat its inputs)."""
        if self._record is not None:
            self._record.write(Run(findings, warnings, files_checked, unjudged))

    # -- summaries and scans, for the engine ------------------------------------------------------
    def summaries(self, files: Sequence[SourceFile], overlays: Mapping[str, bytes] | None = None,
                  jobs: int | None = None, isolate: bool | None = None,
                  target: Callable[[str], int] | None = None) -> SummaryStore:
        """The run's source of summaries for ``files`` (``overlays`` read instead of some; ``jobs``, ``isolate``
        and ``target`` as the store takes them), backed by this cache."""
        from ppaux_lint.cache.store import SummaryStore

        self._load_entries()
        store = SummaryStore(files, self, jobs, isolate, overlays, target)
        self._live = store.by_path
        return store

    def _load_entries(self) -> None:
        """The summaries' entries and the scan index, once, when the cache is on."""
        if self.enabled and self._entries is None:
            from ppaux_lint.cache.summaries import Entries

            self._entries = Entries(self.directory, self._project.config.summary_key())
            self._scans = ScanIndex(self._entries.load_scan())

    def finish(self) -> None:
        """The analysis is over: write the summaries it made (one pack for many) and the scan index when what it
        learned is worth the write, and let go of the index and of the files' table, which the record's encoding
        would otherwise carry to the run's peak."""
        entries, scans, live = self._entries, self._scans, self._live
        self._scans, self._live = None, {}
        self._finished = True
        self._flush()
        if entries is not None and scans is not None and scans.worth_saving() and self._make(entries.summaries):
            entries.save_scan(scans.to_json(live))  # into the summaries' parent, made with them

    def _flush(self) -> None:
        """Write the summaries made since the last flush (``summaries.Entries.flush``), or drop them when the
        cache cannot be written."""
        entries = self._entries
        if entries is not None and entries.pending:
            if self._make(entries.summaries) and self._make(entries.packs):
                entries.flush()
            else:
                entries.pending.clear()

    # -- the store's questions (store.Disk) -------------------------------------------------------
    @property
    def records_scans(self) -> bool:
        return self._scans is not None

    def scanned(self, path: str, tokens: frozenset[str]) -> tuple[bool | None, Stamp | None]:
        scans = self._scans
        if scans is None:
            return _UNKNOWN
        stat = self._stamps.get(path)
        if stat is None:
            if self._record is not None and self._record.defers(path):
                return _UNKNOWN  # nothing to look up: the scan stats it as it reads it (``stat_inputs``)
            try:
                stat = stamp(os.stat(path))
            except OSError:
                return _UNSTATABLE
        return scans.lookup(path, stat, tokens), stat

    def remember_scan(self, path: str, stat: Stamp, tokens: frozenset[str], found: frozenset[str]) -> None:
        if self._scans is not None:
            self._scans.remember(path, stat, tokens, found)
        if self._record is not None:
            self._record.note(path, stat)

    def summary_key(self, source: SourceFile, data: bytes, target: int) -> str:
        return self._entries.key(source, data, target) if self._entries is not None else ""

    def summary(self, key: str, source: SourceFile) -> FileSummary | None:
        return self._entries.get_summary(key, source) if self._entries is not None else None

    @property
    def keeps_summaries(self) -> bool:
        return self._entries is not None

    def keep_summary(self, key: str, summary: FileSummary, entry: bytes | None = None) -> None:
        """Kept until the analysis is over (``finish``), so that a cold run writes its entries at once; one that
        fix planning makes after it is written at once."""
        if self._entries is not None:
            self._entries.put_summary(key, summary, entry)
            if self._finished:
                self._flush()
