"""The worker processes of one analysis: a pool started on first use and kept until the analysis ends.

The store parses in workers so that a parser crash becomes one file's PPA000 (store.py), and scans in
them when a tree is large. A pool per call made every on-demand load of one module (the file of a plain
base class, a re-exporting ``__init__``) fork a process: at 50,000 files, 231 of them took 7 of 18
seconds. One pool for the run turns each into a message. It is forked on the first scan, while this
process is still small, so its workers never carry the summaries gathered later.

A pool that breaks (a worker killed by a crash) is shut down and the next use starts a fresh one; after
``close`` (the analysis is over, though fix planning may still load a module) each use gets a pool of its
own again, so nothing outlives the call that needed it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a run first needs a worker: a warm run of a file or two never does
    import multiprocessing.context
    from concurrent.futures import ProcessPoolExecutor


def context() -> multiprocessing.context.BaseContext:
    import multiprocessing

    return multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")


class Workers:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False

    @contextlib.contextmanager
    def pool(self) -> Iterator[ProcessPoolExecutor]:
        from concurrent.futures import ProcessPoolExecutor

        if self._closed:
            with ProcessPoolExecutor(max_workers=self.jobs, mp_context=context()) as pool:
                yield pool
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=context())
        yield self._pool

    def broken(self) -> None:
        """The pool lost a worker: stop it (before anything forks again), so the next use starts afresh."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        self.broken()
        self._closed = True
