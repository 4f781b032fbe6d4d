"""Where summaries come from: the prefilter's scans, the cache, and parsing (in parallel when it pays).

The engine asks two questions of the store: "which of these files contain
any of these tokens?" and "give me the summaries of these files (or of this
module)". Everything that makes those answers fast without changing them
lives here.

Overlays (an editor's unsaved buffer, standard input) are answered from the bytes given, never from the
file on disk: the scan cache, keyed by the file's stat, neither answers nor remembers them, and their
summaries are not written to the cache, which would otherwise fill with one entry per keystroke.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ppaux_lint.cache import Cache, content_key, read_regular_file
from ppaux_lint.discover import SourceFile
from ppaux_lint.prefilter import needles
from ppaux_lint.scan_index import ScanIndex
from ppaux_lint.summary import FileSummary, ParseError, Span

PARALLEL_MIN_FILES = 48  # below this, starting workers costs more than it saves
PARALLEL_MIN_SCAN = 1500  # files to read before splitting the byte scan across processes pays
REGEX_MIN_NEEDLES = 24
CHUNK_SIZE = 16
CRASH_REASON = "the parser crashed on this file"


class SummaryStore:
    def __init__(self, files: Sequence[SourceFile], cache: Cache | None, config_key: str = "",
                 jobs: int | None = None, isolate: bool | None = None,
                 overlays: Mapping[str, bytes] | None = None) -> None:
        self.by_path = {f.path: f for f in files}
        self.by_module: dict[str, SourceFile] = {}
        for f in files:
            if f.module:
                self.by_module.setdefault(f.module, f)
        self.cache = cache
        self.config_key = config_key
        self.jobs = jobs or os.cpu_count() or 1
        self.isolate = isolate if isolate is not None else sys.platform == "linux"
        self.summaries: dict[str, FileSummary] = {}
        self.overlays = overlays or {}
        self._bytes: dict[str, bytes] = {}
        self._scans = ScanIndex(cache.load_scan() if cache is not None else None)

    # -- the prefilter's question --------------------------------------------------------------
    def scan(self, files: Iterable[SourceFile], tokens: frozenset[str]) -> list[SourceFile]:
        """The files that contain at least one token; unreadable files count as hits (they must be reported).

        An unchanged file (same mtime and size) already scanned for these tokens is answered from the
        cache without being read; the rest are read and searched, in worker processes when many are.
        """
        hits: list[SourceFile] = []
        todo: list[tuple[SourceFile, os.stat_result]] = []
        for source in files:
            if source.path in self.overlays:
                if _matches(self.overlays[source.path], tokens):
                    hits.append(source)
                continue
            try:
                stat = os.stat(source.path)
            except OSError:
                hits.append(source)
                continue
            known = self._scans.lookup(source.path, stat, tokens)
            if known is None:
                todo.append((source, stat))
            elif known:
                hits.append(source)
        paths = [source.path for source, _ in todo]
        if len(paths) >= PARALLEL_MIN_SCAN and self.jobs > 1:
            results = _scan_in_workers(paths, tokens, self.jobs)
        else:
            results = _scan_paths(paths, tokens)
        for (source, stat), (matched, data) in zip(todo, results, strict=True):
            if matched is None:
                hits.append(source)
                continue
            if matched:
                hits.append(source)
                self._bytes[source.path] = data  # it will be summarized next: read it once
            self._scans.remember(source.path, stat, tokens, frozenset(matched))
        return hits

    def save(self) -> None:
        if self.cache is not None and self._scans.dirty:
            self.cache.save_scan(self._scans.to_json(self.by_path))
            self._scans.dirty = False

    # -- summaries ---------------------------------------------------------------------------------
    def load_module(self, module: str) -> FileSummary | None:
        source = self.by_module.get(module)
        if source is None:
            return None
        return self.summarize([source])[source.path]

    def summarize(self, files: Sequence[SourceFile]) -> dict[str, FileSummary]:
        """Summaries of ``files``: remembered, else cached, else parsed."""
        out: dict[str, FileSummary] = {}
        misses: list[tuple[SourceFile, bytes, str]] = []
        for source in files:
            key = source.path
            if key in self.summaries:
                out[key] = self.summaries[key]
                continue
            data = self._bytes.pop(key, self.overlays.get(key))
            if data is None:
                try:
                    data = _read(source.path)
                except OSError as exc:
                    out[key] = self.summaries[key] = _unreadable(source, exc)
                    continue
            cache_key = content_key(data, key, source.module, source.is_package, self.config_key)
            cached = self.cache.get_summary(cache_key) if self.cache is not None else None
            if cached is not None and (cached.path, cached.module, cached.is_package) == (
                    source.path, source.module, source.is_package):  # else a foreign entry: a miss
                out[key] = self.summaries[key] = cached
            else:
                misses.append((source, data, cache_key))
        for (source, _, cache_key), summary in zip(misses, self._parse([(s, d) for s, d, _ in misses]), strict=True):
            out[source.path] = self.summaries[source.path] = summary
            if self.cache is not None and not _is_crash(summary) and source.path not in self.overlays:
                # (a crash may be transient, an OOM kill; an overlay is one moment of an edit)
                self.cache.put_summary(cache_key, summary)
        return out

    def _parse(self, work: list[tuple[SourceFile, bytes]]) -> list[FileSummary]:
        """Parse outside this process where forking is cheap, so that a parser crash on one hostile
        file becomes that file's PPA000 instead of the end of the run; in parallel when there is
        enough work to share."""
        if not work:
            return []
        if not self.isolate:
            return [_summarize_one(item) for item in work]
        workers = self.jobs if len(work) >= PARALLEL_MIN_FILES else 1
        return _parse_in_workers(work, workers)


def _matches(data: bytes, tokens: frozenset[str]) -> bool:
    return _searcher(needles(tokens))(data)


def _scan_paths(paths: Sequence[str], tokens: frozenset[str]) -> list[tuple[list[str] | None, bytes]]:
    """For each file, the tokens it contains (None if unreadable) and, when it has any, its bytes."""
    contains_any = _searcher(needles(tokens))
    encoded = [(t, t.encode("utf-8")) for t in tokens]
    out: list[tuple[list[str] | None, bytes]] = []
    for path in paths:
        try:
            data = _read(path)
        except OSError:
            out.append((None, b""))
            continue
        if contains_any(data):
            out.append(([t for t, raw in encoded if raw in data], data))
        else:
            out.append(([], b""))
    return out


def _searcher(search: tuple[bytes, ...]) -> Callable[[bytes], bool]:
    """``in`` per needle is fastest for a few needles; past a couple of dozen (the later rounds of a
    fixpoint over a deep hierarchy add many class names) one regex pass wins by an order of magnitude."""
    if len(search) <= REGEX_MIN_NEEDLES:
        return lambda data: any(needle in data for needle in search)
    pattern = re.compile(b"|".join(re.escape(n) for n in sorted(search, key=len, reverse=True)))
    return lambda data: pattern.search(data) is not None


def _scan_in_workers(paths: list[str], tokens: frozenset[str], jobs: int) -> list[tuple[list[str] | None, bytes]]:
    size = -(-len(paths) // jobs)
    chunks = [paths[i:i + size] for i in range(0, len(paths), size)]
    try:
        with ProcessPoolExecutor(max_workers=len(chunks), mp_context=_context()) as pool:
            parts = list(pool.map(_scan_paths, chunks, [tokens] * len(chunks)))
    except (BrokenProcessPool, OSError):
        return _scan_paths(paths, tokens)  # reading bytes cannot crash a worker; a failed pool can
    return [item for part in parts for item in part]


def _read(path: str) -> bytes:
    """A regular file's bytes: a FIFO swapped in after discovery is an OSError, not a read that never ends."""
    return read_regular_file(path)


def _failed(source: SourceFile, reason: str) -> FileSummary:
    """A summary that carries only why the file could not be summarized (a PPA000 at its first line)."""
    return FileSummary(path=source.path, module=source.module, is_package=source.is_package,
                       error=ParseError(reason, Span(1, 1, 1, 1)))


def _unreadable(source: SourceFile, exc: OSError) -> FileSummary:
    return _failed(source, f"cannot read: {exc.strerror or exc}")


def _summarize_one(item: tuple[SourceFile, bytes]) -> FileSummary:
    from ppaux_lint.summarize import summarize_source

    source, data = item
    try:
        return summarize_source(data, source.path, source.module, source.is_package)
    except Exception as exc:  # noqa: BLE001 - one file's surprise must not end the run: it becomes its PPA000
        return _failed(source, f"internal error while summarizing: {type(exc).__name__}: {exc}")


def _summarize_chunk(chunk: list[tuple[SourceFile, bytes]]) -> list[FileSummary]:
    return [_summarize_one(item) for item in chunk]


def _context() -> multiprocessing.context.BaseContext:
    return multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")


def _parse_in_workers(work: list[tuple[SourceFile, bytes]], jobs: int) -> list[FileSummary]:
    """Parse in worker processes; a chunk whose worker dies is redone file by file, each alone,
    so the one file that crashes the parser becomes a PPA000 and the others still get summaries."""
    size = CHUNK_SIZE if jobs > 1 else len(work)
    chunks = [work[i:i + size] for i in range(0, len(work), size)]
    results: list[list[FileSummary] | None] = [None] * len(chunks)
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=_context()) as pool:
        futures = [pool.submit(_summarize_chunk, chunk) for chunk in chunks]
        for i, future in enumerate(futures):
            try:
                results[i] = future.result()
            except BrokenProcessPool:
                break
            except Exception:  # noqa: BLE001 - e.g. a result that cannot be sent back: redo the chunk file by file
                continue
    out: list[FileSummary] = []
    for chunk, result in zip(chunks, results, strict=True):
        out.extend(result if result is not None else [isolated_summary(item) for item in chunk])
    return out


def isolated_summary(item: tuple[SourceFile, bytes], timeout: float = 60.0) -> FileSummary:
    """Summarize one file in a child process, so that a crash of the parser cannot end the run."""
    source = item[0]
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(item, sender), daemon=True)
    process.start()
    sender.close()
    summary = None
    if receiver.poll(timeout):
        try:
            summary = receiver.recv()
        except (EOFError, OSError):
            summary = None
    process.join(1.0)
    if process.is_alive():
        process.kill()
        process.join()
    if isinstance(summary, FileSummary):
        return summary
    code = process.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else (
        "timed out" if code is None else f"exited with code {code}")
    return _failed(source, f"{CRASH_REASON} (its process {how})")


def _is_crash(summary: FileSummary) -> bool:
    return summary.error is not None and summary.error.reason.startswith(CRASH_REASON)


def _child(item: tuple[SourceFile, bytes], sender) -> None:
    sender.send(_summarize_one(item))
    sender.close()
