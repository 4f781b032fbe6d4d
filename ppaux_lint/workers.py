"""The worker processes of one analysis: a pool started on first use and kept until the analysis ends.

The store parses in workers so that a parser crash becomes one file's PPA000 (store.py), and scans in
them when a tree is large. A pool per call made every on-demand load of one module (the file of a plain
base class, a re-exporting ``__init__``) fork a process: at 50,000 files, 231 of them took 7 of 18
seconds. One pool for the run turns each into a message. It is forked on the first scan, while this
process is still small, so its workers never carry the summaries gathered later.

A pool that breaks (a worker killed by a crash) is shut down and the next use starts a fresh one; after
``close`` (the analysis is over, though fix planning may still load a module) each use gets a pool of its
own again, so nothing outlives the call that needed it.

A little work (the file an editor saved, the one module a fix planner loads) does not pay for a pool: its
import, its manager thread and a fork per core cost a one-file run 50-60 ms, ten times the parse itself.
``in_child`` runs it in one bare fork, which on Linux costs about as much as that parse.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # imported when a run first needs a worker: a warm run of a file or two never does
    import multiprocessing.context
    from concurrent.futures import ProcessPoolExecutor

Argument = TypeVar("Argument")
Result = TypeVar("Result")


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

    @property
    def running(self) -> bool:
        """Whether a pool is up: then its threads are too, and this process must not fork on its own."""
        return self._pool is not None

    def broken(self) -> None:
        """The pool lost a worker: stop it (before anything forks again), so the next use starts afresh."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        self.broken()
        self._closed = True


class ChildFailed(Exception):
    """The child of ``in_child`` died, hung or sent nothing readable; the message says how, worded to follow
    "its process" ("was killed by signal 11", "timed out", "exited with code 1")."""


def can_fork() -> bool:
    return sys.platform == "linux"  # where forking is the platform's own way to start workers (see context)


def in_child(function: Callable[[Argument], Result], argument: Argument, timeout: float) -> Result:
    """``function(argument)`` computed in a process forked for it, so that whatever kills the computation
    (a parser's segfault, an abort) kills only the child. The result comes back pickled through a pipe.
    A fork copies only the calling thread, so the store starts one of its own only while no pool (and no pool
    thread) is running (``Workers.running``); redoing a failed chunk is the exception, as it was with the
    pool's own fork context."""
    import pickle
    import select
    import signal
    import time

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: whatever happens, it leaves through os._exit, so no parent buffer is flushed twice
        status = 1
        try:
            os.close(read_end)
            payload = pickle.dumps(function(argument), protocol=pickle.HIGHEST_PROTOCOL)
            with open(write_end, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    parts: list[bytes] = []
    deadline = time.monotonic() + timeout
    hung = False
    try:
        with open(read_end, "rb", buffering=0) as pipe:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([pipe], [], [], left)[0]:
                    hung = True
                    os.kill(pid, signal.SIGKILL)
                    break
                part = pipe.read(1 << 20)
                if not part:
                    break
                parts.append(part)
    except BaseException:  # interrupted (Ctrl-C): the child must not outlive the wait for it
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    _, status = os.waitpid(pid, 0)
    if hung:
        raise ChildFailed("timed out")
    if os.WIFSIGNALED(status):
        raise ChildFailed(f"was killed by signal {os.WTERMSIG(status)}")
    if os.WEXITSTATUS(status) != 0:
        raise ChildFailed(f"exited with code {os.WEXITSTATUS(status)}")
    try:
        return pickle.loads(b"".join(parts))
    except Exception as exc:  # noqa: BLE001 - a result that does not unpickle is a failed child, not our crash
        raise ChildFailed(f"sent a result that could not be read ({type(exc).__name__})") from None
