"""Where summaries come from: the prefilter's scans, the cache, and parsing (in parallel when it pays).

The engine asks two questions of the store, which the cache's owner (``owner.py``) hands it: "which of these
files contain any of these tokens?" and "give me the summaries of these files (or of this module)".
Everything that makes those answers fast without changing them lives here: the run's memory of bytes and
summaries, and the worker processes; what the disk knows comes from the owner, through :class:`Disk`. The
worker processes start only when a run needs them: a warm run of a file or two never does.

Overlays (an editor's unsaved buffer, standard input) are answered from the bytes given, never from the
file on disk: the scan cache, keyed by the file's stat, neither answers nor remembers them, and their
summaries are not written to the cache, which would otherwise fill with one entry per keystroke.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol

from ppaux_lint.facts.summary import FileSummary, ParseError, Span
from ppaux_lint.project.discover import SourceFile
from ppaux_lint.project.python_versions import DEFAULT_TARGET
from ppaux_lint.scan import lookahead
from ppaux_lint.scan.prefilter import encoded, searchable
from ppaux_lint.scan.search import Held, searcher
from ppaux_lint.support.fileio import MAX_SOURCE_BYTES, read_regular_file_stat
from ppaux_lint.support.workers import ChildFailed, Failed, Workers, in_child

if TYPE_CHECKING:
    from ppaux_lint.cache.scan_index import Stamp

PARALLEL_MIN_FILES = 48  # below this, one task: splitting the work costs more than it saves
# Files to read before splitting the byte scan across the workers pays. The workers are up for the parse
# anyway, and each keeps what it read for the next rounds (``_Held``): at 1,000 files, 0.86x the wall time of
# one process's scan (it was 1500 while each round in the workers read the tree again).
PARALLEL_MIN_SCAN = 300
HELD_MAX_TOKENS = 8  # past this many, one search of each held file for them all beats a find per token
KEEP_BYTES = 32 << 20  # of files a scan read and found nothing in, kept for the next rounds (``SummaryStore``)
HOLD_BYTES = 64 << 20  # of the same, kept by each scan worker (``_Held``)
CHUNK_SIZE = 16
SCAN_CHUNK = 1000  # files a worker reads per task (~0.1 s): what a stopped pool waits for (workers.py)
CRASH_REASON = "the parser crashed on this file"
PARSE_TIMEOUT = 60.0  # seconds a child may take over its files before it counts as hung


class Disk(Protocol):
    """What the store asks of the disk, answered by the cache's owner (``owner.py``) from the scan index and
    the summaries' entries, or with a miss for everything when the cache is off."""

    records_scans: bool  # whether what a scan finds is remembered: without a cache nothing would read it

    def scanned(self, path: str, tokens: frozenset[str]) -> tuple[bool | None, Stamp | None]:
        """Whether the file holds any of ``tokens`` as far as the disk knows (None: read it), and the stamp
        to remember what reading it finds under."""

    def remember_scan(self, path: str, stat: Stamp, tokens: frozenset[str], found: frozenset[str]) -> None:
        """The file, unchanged since ``stat``, was searched for ``tokens`` and holds ``found``."""

    def summary_key(self, source: SourceFile, data: bytes, target: int) -> str:
        """What ``source``'s summary is kept under, given its bytes and the grammar it is parsed with."""

    def summary(self, key: str, source: SourceFile) -> FileSummary | None:
        """The summary kept under ``key``, if it is ``source``'s."""

    keeps_summaries: bool  # whether summaries are kept: then the workers that make them encode their entries

    def keep_summary(self, key: str, summary: FileSummary, entry: bytes | None = None) -> None:
        """Keep ``summary`` under ``key`` for later runs; ``entry`` is what ``summary_entry`` makes of it, when
        the worker that made the summary encoded it already."""


class SummaryStore:
    def __init__(self, files: Sequence[SourceFile], disk: Disk, jobs: int | None = None,
                 isolate: bool | None = None, overlays: Mapping[str, bytes] | None = None,
                 target: Callable[[str], int] | None = None) -> None:
        """``target``: the Python 3 minor version each path is parsed for (``Discovery.target``); None: the
        default of ``project.python_versions``."""
        self.by_path = {f.path: f for f in files}
        self.by_module: dict[str, SourceFile] = {}
        for f in files:
            if f.module:
                self.by_module.setdefault(f.module, f)
        self._disk = disk
        self._target = target or _default_target
        self.jobs = jobs or os.cpu_count() or 1
        self._workers = Workers(self.jobs)
        self.isolate = isolate if isolate is not None else sys.platform == "linux"
        self.summaries: dict[str, FileSummary] = {}
        self.overlays = overlays or {}
        self._bytes: dict[str, bytes] = {}
        # Misses a scan in this process read are kept for the fixpoint's next rounds, up to this many bytes:
        # the three reads of a 1,000-file tree were a sixth of its cold run. (A scan in workers keeps none: their
        # bytes would have to travel here.) The stamps are each kept file's as the scan read it.
        self._keep_budget = KEEP_BYTES
        self._kept_stamps: dict[str, Stamp] = {}
        self._prefetched: dict[str, FileSummary] = {}  # made ahead of a question (``prefetch``), not asked yet
        # The worker that read each file a scan sent to the workers, from the second scan on: most trees (SGLang's
        # among them) are settled by one round, and workers holding what the first read would only have doubled
        # their memory; a tree that needs a second round needs a third, the lookahead's search.
        self._read_by: dict[str, int] | None = None

    # -- the prefilter's question --------------------------------------------------------------
    def scan(self, files: Iterable[SourceFile], tokens: frozenset[str],
             graph: lookahead.Graph | None = None) -> list[SourceFile]:
        """The files that contain at least one token; unreadable files count as hits (they must be reported).

        An unchanged file already scanned for these tokens is answered by the disk without being read; a hit
        of an earlier scan not summarized yet, from the bytes that scan kept; the rest are read and searched,
        in worker processes when many are. With ``graph``, the lookahead edges of every file read are added
        to it.
        """
        hits: list[SourceFile] = []
        todo: list[tuple[SourceFile, Stamp | None]] = []
        contains = None
        disk = self._disk
        for source in files:
            data = self._in_memory(source.path)
            if data is not None:
                contains = contains or searcher(encoded(tokens))
                text = searchable(data)
                if graph is not None:
                    lookahead.add_edges(text, graph)
                hit = contains(text)
                if hit:
                    hits.append(source)
                kept = self._kept_stamps.get(source.path)
                if kept is not None:  # a miss kept by an earlier scan: what this one finds is remembered too
                    found = _tokens_in(_encoded_each(tokens), text) if hit else frozenset()
                    disk.remember_scan(source.path, kept, tokens, found)
                continue
            known, stat = disk.scanned(source.path, tokens)
            if known is not None:
                if known:
                    hits.append(source)
                continue
            todo.append((source, stat))
        paths = [source.path for source, _ in todo]
        record = disk.records_scans
        in_workers = len(paths) >= PARALLEL_MIN_SCAN and self.jobs > 1
        keep = not in_workers and self._keep_budget > 0  # only then do misses come with their bytes
        if in_workers:
            results = _scan_in_workers(self._workers, paths, tokens, record, graph, self._read_by)
            if self._read_by is None:
                self._read_by = {}
        else:
            results = _scan_paths(paths, tokens, record, graph, keep=keep)[0]
        for (source, stat), (hit, found, data, opened) in zip(todo, results, strict=True):
            if hit is None or hit:
                hits.append(source)
            stat = stat or opened  # the disk's, taken before the read; else the read's own, as it opened it
            if hit:
                self._bytes[source.path] = data  # it will be summarized or searched again: read it once
            elif hit is not None and keep and len(data) <= self._keep_budget:
                self._bytes[source.path] = data  # a small tree's later rounds search it here, not on disk
                self._keep_budget -= len(data)
                if stat is not None and record:
                    self._kept_stamps[source.path] = stat
            if stat is not None and hit is not None:
                disk.remember_scan(source.path, stat, tokens, found)
        return hits

    def held(self, files: Iterable[SourceFile]) -> Held:
        """The files whose bytes this store holds and whose scans record nothing (no stamp kept for the scan
        index), to be searched again by ``scan_held``."""
        keys, texts = [], []
        for source in files:
            data = self._in_memory(source.path)
            if data is not None and source.path not in self._kept_stamps:
                keys.append(source.path)
                texts.append(searchable(data))
        return Held(keys, texts)

    def scan_held(self, held: Held, files: Sequence[SourceFile], tokens: frozenset[str]) -> list[SourceFile]:
        """``scan(files, tokens)``, the files ``held`` holds searched there (when ``tokens`` are few), in the order
        ``scan`` gives: the files in memory in their order, then those read from disk."""
        if len(tokens) > HELD_MAX_TOKENS:
            return self.scan(files, tokens)
        found = held.holding(encoded(tokens))
        in_memory: list[SourceFile] = []
        on_disk: list[SourceFile] = []
        for source in files:
            if source.path not in held.keys:
                (in_memory if self._in_memory(source.path) is not None else on_disk).append(source)
        found.update(f.path for f in self.scan(in_memory, tokens))
        return [f for f in files if f.path in found] + self.scan(on_disk, tokens)

    def _in_memory(self, path: str) -> bytes | None:
        """The bytes of ``path`` this store already holds: an overlay's, else what an earlier scan kept."""
        return self.overlays.get(path, self._bytes.get(path))

    def forget_unsummarized(self) -> None:
        """Drop the bytes that scans kept of files never summarized: the fixpoint is over."""
        self._bytes.clear()
        self._kept_stamps.clear()
        self._keep_budget = 0

    # -- summaries ---------------------------------------------------------------------------------
    def load_module(self, module: str) -> FileSummary | None:
        source = self.by_module.get(module)
        if source is None:
            return None
        return self.summarize([source])[source.path]

    def prefetch(self, files: Sequence[SourceFile]) -> None:
        """Summarize ``files`` now, together (in the workers, in parallel), because the index is about to ask for
        them one at a time (``index/first_hops.py``). Each joins ``summaries`` only when it is asked for, so the
        summaries a run reports holding are the ones it used, whatever was guessed."""
        todo = [source for source in files if source.path not in self.summaries and source.path not in self._prefetched]
        for path in self.summarize(todo):
            self._prefetched[path] = self.summaries.pop(path)

    def summarize(self, files: Sequence[SourceFile]) -> dict[str, FileSummary]:
        """Summaries of ``files``: remembered, else prefetched, else cached, else parsed."""
        out: dict[str, FileSummary] = {}
        misses: list[tuple[SourceFile, bytes, int, str]] = []
        for source in files:
            key = source.path
            if key in self.summaries:
                out[key] = self.summaries[key]
                continue
            if key in self._prefetched:
                out[key] = self.summaries[key] = self._prefetched.pop(key)
                continue
            data = self._bytes.pop(key, self.overlays.get(key))
            if data is None:
                try:
                    data = _read(source.path)[0]
                except OSError as exc:
                    out[key] = self.summaries[key] = _unreadable(source, exc)
                    continue
            target = self._target(key)
            cache_key = self._disk.summary_key(source, data, target)
            cached = self._disk.summary(cache_key, source)
            if cached is not None:
                out[key] = self.summaries[key] = cached
            else:
                misses.append((source, data, target, cache_key))
        kept = [source.path not in self.overlays for source, *_ in misses]  # an overlay is one moment of an edit
        parsed = self._parse([(s, d, t) for s, d, t, _ in misses], encode=self._disk.keeps_summaries and any(kept))
        for (source, *_, cache_key), keep, (summary, entry) in zip(misses, kept, parsed, strict=True):
            out[source.path] = self.summaries[source.path] = summary
            if keep and not _is_crash(summary):  # (a crash may be transient, an OOM kill)
                self._disk.keep_summary(cache_key, summary, entry)
        return out

    def _parse(self, work: list[Work], encode: bool) -> list[Parsed]:
        """Parse outside this process where forking is cheap, so that a parser crash on one hostile
        file becomes that file's PPA000 instead of the end of the run, in the run's workers (workers.py says
        how each starts), even for one file: they stay up for the run, so each module the index loads on demand
        later is one message to a worker rather than a fork of its own (eleven forks were most of a cold run of
        the 1,000-file synthetic project). A worker that dies or hangs costs only its files, each then parsed
        in a child of its own (``isolated_summary``).
        With ``encode``, each summary comes with its cache entry, made by the process that parsed it: on a
        cold run, encoding was as much of this process's time as the rest of its part in parsing."""
        if not work:
            return []
        task = partial(_summarize_chunk, encode=encode)
        if not self.isolate:
            return task(work)
        try:
            return _parse_in_workers(self._workers, work, task)
        except OSError:  # no child could start (a process limit): parse here, without the crash isolation
            return task(work)

    def close(self) -> None:
        """The analysis is over: stop its workers (a later load of a module starts a pool for itself)."""
        self._workers.close()


# Whether it holds a token (None: unreadable), which ones (when recorded), its bytes (a hit's), and its stamp as
# the read opened it (when recorded: the scan index and the run's record take it, see replay.stat_inputs)
Scanned = tuple["bool | None", frozenset[str], bytes, "Stamp | None"]
_MISS: Scanned = (False, frozenset(), b"", None)  # one object for every unrecorded miss: pickled once


def _scan_paths(paths: Sequence[str], tokens: frozenset[str], record: bool, graph: lookahead.Graph | None,
                keep: bool = False, hold: int | None = None) -> tuple[list[Scanned], lookahead.Graph | None]:
    """For each file: whether it contains a token (None if unreadable), which tokens it contains when
    ``record`` asks (for the scan cache; an empty set otherwise), its bytes when it has any (a miss's only when
    ``keep`` asks), and its stamp as it was opened when ``record`` asks; and ``graph``, with the lookahead
    edges of every file read added (a worker's copy goes back to the parent). ``hold``: the pid of the process
    that sent the task, from a worker that keeps the misses it reads for the next rounds (``_HELD``)."""
    from ppaux_lint.cache.scan_index import stamp

    contains_any = searcher(encoded(tokens))
    each = _encoded_each(tokens) if record else []
    held = _HELD if hold is not None and hold != os.getpid() else None  # never in the process that owns the run
    out: list[Scanned] = []
    for path in paths:
        try:
            data, status = (held and held.take(path)) or _read(path)
        except OSError:
            out.append((None, frozenset(), b"", None))
            continue
        text = searchable(data)  # its bytes, unless a coding cookie names another codec than UTF-8
        if graph is not None:
            lookahead.add_edges(text, graph)
        if contains_any(text):
            out.append((True, _tokens_in(each, text), data, stamp(status) if record else None))
            continue
        if held is not None:
            held.keep(path, data, status)
        if keep:
            out.append((False, frozenset(), data, stamp(status) if record else None))
        else:
            out.append((False, frozenset(), b"", stamp(status)) if record else _MISS)
    return out, graph


class _Held:
    """The misses a scan worker read, kept for the run's next rounds: the fixpoint searches what is left of the
    tree again, up to twice more, and the store sends each worker the files it read (``Workers.map``'s
    ``prefer``), so those reads come from here. Each file is kept as it was first read, as the main process
    keeps a small tree's (``SummaryStore.scan``); a worker's memory ends with the run's analysis."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[bytes, os.stat_result]] = {}
        self.room = HOLD_BYTES

    def take(self, path: str) -> tuple[bytes, os.stat_result] | None:
        found = self.files.pop(path, None)
        if found is not None:
            self.room += len(found[0])
        return found

    def keep(self, path: str, data: bytes, status: os.stat_result) -> None:
        if len(data) <= self.room:
            self.files[path] = (data, status)
            self.room -= len(data)


_HELD = _Held()  # in a worker, what it read; in the process that owns the run, always empty


def _encoded_each(tokens: frozenset[str]) -> list[tuple[str, bytes]]:
    return [(t, t.encode("utf-8")) for t in tokens]


def _tokens_in(each: list[tuple[str, bytes]], text: bytes) -> frozenset[str]:
    """Which of the tokens (each with its bytes) ``text`` holds: what the scan index remembers of a hit."""
    return frozenset(t for t, raw in each if raw in text)


def _scan_in_workers(workers: Workers, paths: list[str], tokens: frozenset[str], record: bool,
                     graph: lookahead.Graph | None, read_by: dict[str, int] | None) -> list[Scanned]:
    """``_scan_paths`` of ``paths``, in the workers, each file sent to the worker that read it in an earlier round
    (``read_by``: path -> pid, brought up to date), which holds it (``_Held``); None: nothing is held."""
    # Tasks of at most SCAN_CHUNK files, as many for each worker: five tasks on two workers left one worker
    # reading a third of the tree while the other waited.
    tasks = workers.jobs * -(-len(paths) // (workers.jobs * SCAN_CHUNK))
    size = -(-len(paths) // tasks)
    groups: dict[int | None, list[int]] = {}
    for at, path in enumerate(paths):
        groups.setdefault(read_by.get(path) if read_by is not None else None, []).append(at)
    chunks = [(pid, indices[i:i + size]) for pid, indices in groups.items() for i in range(0, len(indices), size)]
    task = partial(_scan_paths, tokens=tokens, record=record, graph=None if graph is None else {},
                   hold=os.getpid() if read_by is not None else None)
    try:
        parts = workers.map(task, [[paths[i] for i in indices] for _, indices in chunks],
                            prefer=[pid for pid, _ in chunks])
        ran_on = workers.ran_on
    except OSError:  # no worker could start (a process limit): reading bytes needs none
        parts, ran_on = [Failed("could not start")] * len(chunks), [None] * len(chunks)
    out: list[Scanned | None] = [None] * len(paths)
    for (_, indices), part, pid in zip(chunks, parts, ran_on, strict=True):
        if isinstance(part, Failed):  # reading bytes cannot crash a worker, but a worker can be killed
            part = _scan_paths([paths[i] for i in indices], tokens, record, {} if graph is not None else None)
        found, edges = part
        for at, scanned in zip(indices, found, strict=True):
            out[at] = scanned
            if read_by is None:
                continue
            if pid is None:
                read_by.pop(paths[at], None)
            else:
                read_by[paths[at]] = pid
        for name, bound in (edges or {}).items():
            graph.setdefault(name, set()).update(bound)  # type: ignore[union-attr]
    return out  # type: ignore[return-value]  # every index is in exactly one chunk


def _read(path: str) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes, and its stat as it was opened: a FIFO swapped in after discovery is an OSError,
    not a read that never ends, and so is a file too large for any Python source (its PPA000 says so)."""
    return read_regular_file_stat(path, MAX_SOURCE_BYTES)


def _failed(source: SourceFile, reason: str) -> FileSummary:
    """A summary that carries only why the file could not be summarized (a PPA000 at its first line)."""
    return FileSummary(path=source.path, module=source.module, is_package=source.is_package,
                       error=ParseError(reason, Span(1, 1, 1, 1)))


def _unreadable(source: SourceFile, exc: OSError) -> FileSummary:
    return _failed(source, f"cannot read: {exc.strerror or exc}")


def _default_target(path: str) -> int:
    return DEFAULT_TARGET


Work = tuple[SourceFile, bytes, int]  # a file to summarize, its bytes, and the grammar to parse it with


def _summarize_one(item: Work) -> FileSummary:
    from ppaux_lint.facts.summarize.source import summarize_source

    source, data, target = item
    try:
        return summarize_source(data, source.path, source.module, source.is_package, target)
    except Exception as exc:  # noqa: BLE001 - one file's surprise must not end the run: it becomes its PPA000
        return _failed(source, f"internal error while summarizing: {type(exc).__name__}: {exc}")


Parsed = tuple[FileSummary, "bytes | None"]  # a summary, and its cache entry when asked for (summaries.py)


def _summarize_chunk(chunk: list[Work], encode: bool = False) -> list[Parsed]:
    summaries = [_summarize_one(item) for item in chunk]
    if not encode:
        return [(summary, None) for summary in summaries]
    from ppaux_lint.cache.summaries import summary_entry

    return [(summary, None if _is_crash(summary) else summary_entry(summary)) for summary in summaries]


def _parse_in_workers(workers: Workers, work: list[Work], task: Callable[[list[Work]], list[Parsed]]) -> list[Parsed]:
    """Parse in worker processes; a chunk whose worker dies is redone file by file, each alone, so the one
    file that crashes the parser becomes a PPA000 and the others still get summaries."""
    chunks = _chunks([len(item[1]) for item in work], workers.jobs)
    out: list[Parsed | None] = [None] * len(work)
    results = workers.map(task, [[work[i] for i in c] for c in chunks], PARSE_TIMEOUT)
    for chunk, result in zip(chunks, results, strict=True):
        done = result if not isinstance(result, Failed) else [(isolated_summary(work[i]), None) for i in chunk]
        for index, parsed in zip(chunk, done, strict=True):
            out[index] = parsed
    return out  # type: ignore[return-value]  # every index is in exactly one chunk


def _chunks(sizes: Sequence[int], jobs: int) -> list[list[int]]:
    """The indices of the files each task parses, largest files first, so that no worker is left with a
    big file while the others wait. Much work goes in tasks of ``CHUNK_SIZE`` files that idle workers take in
    turn; a little (the few files a prefiltered run parses, when the scan's workers are already up) in one
    task per worker with about the same bytes each: in one task, a large tree's eight relevant files took
    twice as long as in two."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    if len(sizes) >= PARALLEL_MIN_FILES:
        return [order[i:i + CHUNK_SIZE] for i in range(0, len(order), CHUNK_SIZE)]
    tasks: list[list[int]] = [[] for _ in range(max(1, min(jobs, len(sizes))))]
    loads = [0] * len(tasks)
    for index in order:
        lightest = loads.index(min(loads))
        tasks[lightest].append(index)
        loads[lightest] += sizes[index]
    return tasks


def isolated_summary(item: Work) -> FileSummary:
    """Summarize one file in a child process, so that a crash of the parser cannot end the run."""
    try:
        return in_child(_summarize_one, item, PARSE_TIMEOUT)
    except ChildFailed as failure:
        return _failed(item[0], f"{CRASH_REASON} (its process {failure})")


def _is_crash(summary: FileSummary) -> bool:
    return summary.error is not None and summary.error.reason.startswith(CRASH_REASON)
