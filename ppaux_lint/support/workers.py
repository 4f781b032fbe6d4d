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
``in_child`` runs it in one child of its own, on Linux a bare fork that costs about as much as that parse.

How a worker starts depends on the threads this process runs at that moment. A fork copies the calling
thread only, with every lock as it was: a lock that another thread held (a stream's, rich's spinner's,
one of torch's pools) stays held in the child forever, which is why CPython 3.12 warns about such forks.
So a process with one thread forks (the command line, off a terminal: the fastest start), and one with
more (a terminal's spinner, a program or test run that imported torch) has the forkserver fork its
workers: a process started once, single-threaded, with the parser already imported (about 0.15 s, then
a few milliseconds a child). Elsewhere than Linux workers are spawned, that platform's default.

No worker outlives this process, however it ends. A worker dies with its owner: the kernel kills one
forked here when this process dies (``PR_SET_PDEATHSIG``), and one forked by the forkserver watches this
process's end of a pipe, which closes when it dies, even by SIGKILL. A worker ignores Ctrl-C, which a
terminal sends to the whole process group: this process decides what it means, and stops the pool, whose
workers finish the small tasks they hold first (``Workers.stop``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:  # imported when a run first needs a worker: a warm run of a file or two never does
    import multiprocessing.connection
    import multiprocessing.context
    from concurrent.futures import Future, ProcessPoolExecutor

Argument = TypeVar("Argument")
Result = TypeVar("Result")

# What every worker of the store runs: the forkserver imports it once, so that no worker it forks pays for it.
SERVER_PRELOAD = ["ppaux_lint.cache.store", "ppaux_lint.facts.summarize"]
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def threads() -> int:
    """The threads this process runs, counted as CPython 3.12's fork warning counts them (``Threads:`` in
    /proc/self/status): torch's native pools count, though ``threading`` never sees them. 0 when unknown."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Threads:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _await_threads(count: int, patience: float = 1.0) -> None:
    """Wait until this process runs no more than ``count`` threads, for at most ``patience`` seconds: a thread
    that ``join`` saw finish lives on for a fraction of a millisecond, and until then a fork is unsafe."""
    import time

    deadline = time.monotonic() + patience
    while threads() > count and time.monotonic() < deadline:
        time.sleep(0.0002)


def can_fork() -> bool:
    """Whether a fork of this process now is both the platform's way and safe: Linux, one thread."""
    return sys.platform == "linux" and threads() == 1


def context() -> multiprocessing.context.BaseContext:
    """Where workers come from now (the module docstring says why)."""
    import multiprocessing

    if sys.platform != "linux":
        return multiprocessing.get_context("spawn")
    if can_fork():
        return multiprocessing.get_context("fork")
    return _forkserver()


def _forkserver() -> multiprocessing.context.BaseContext:
    """The forkserver's context, its server started (once per process) with Ctrl-C held, so that every
    worker it forks starts with it held too (``_interrupts_held``). The resource tracker is started first:
    starting it lets Ctrl-C go."""
    import multiprocessing
    from multiprocessing import forkserver, resource_tracker

    served = multiprocessing.get_context("forkserver")
    served.set_forkserver_preload(SERVER_PRELOAD)
    resource_tracker.ensure_running()
    with _interrupts_held():
        forkserver.ensure_running()
    return served


class Pool:
    """A process pool as its users see it: ``submit`` may start a worker, so it holds Ctrl-C meanwhile."""

    def __init__(self, executor: ProcessPoolExecutor) -> None:
        self.executor = executor

    def submit(self, function: Callable[..., Result], *arguments: object) -> Future[Result]:
        with _interrupts_held():
            return self.executor.submit(function, *arguments)


class Workers:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: Pool | None = None
        self._threads_without = 0  # this process's threads before the pool started its own
        self._closed = False

    @contextlib.contextmanager
    def pool(self) -> Iterator[Pool]:
        """The run's pool (after ``close``, one for this use only). Whatever ends its use early (Ctrl-C, a
        bug) stops it before passing on: nothing may outlive the run, and an idle pool's end at exit would
        wait for its workers anyway."""
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is None:
            self._threads_without = threads()
            start = context()
            self._pool = Pool(ProcessPoolExecutor(max_workers=self.jobs, mp_context=start, initializer=_start_worker,
                                                  initargs=(os.getpid(), start.get_start_method() == "fork")))
        try:
            yield self._pool
        except BaseException:
            self.stop()
            raise
        if self._closed:
            self.stop()

    @property
    def running(self) -> bool:
        """Whether a pool is up: more work goes to it rather than to a process of its own."""
        return self._pool is not None

    def stop(self) -> None:
        """Stop the pool (it lost a worker, its use is over, or was interrupted), so the next use starts afresh.

        Its workers finish the tasks they hold (the reason tasks are small: store.py); one killed while it
        sends an answer would leave the pool's thread waiting forever for the rest, and this process with
        it at exit. Then wait the moment it takes the pool's joined threads to end (for ``can_fork``)."""
        if self._pool is not None:
            self._pool.executor.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            _await_threads(self._threads_without)

    def close(self) -> None:
        self.stop()
        self._closed = True


class ChildFailed(Exception):
    """The child of ``in_child`` died, hung or sent nothing readable; the message says how, worded to follow
    "its process" ("was killed by signal 11", "timed out", "exited with code 1")."""


def in_child(function: Callable[[Argument], Result], argument: Argument, timeout: float) -> Result:
    """``function(argument)`` computed in a process started for it, so that whatever kills the computation
    (a parser's segfault, an abort) kills only the child. The result comes back pickled through a pipe.
    The child is forked here when that is safe (``can_fork``), else by the forkserver; either way a Ctrl-C
    or an error here kills it before it is passed on."""
    import pickle
    import select
    import time

    child: _Forked | _Served | None = None
    try:
        with _interrupts_held():  # a Ctrl-C that comes while the child starts is raised once ``child`` is set
            child = _Forked(function, argument) if can_fork() else _Served(function, argument)
        parts: list[bytes] = []
        deadline = time.monotonic() + timeout
        hung = False
        with open(child.output, "rb", buffering=0) as pipe:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([pipe], [], [], left)[0]:
                    hung = True
                    child.kill()
                    break
                part = pipe.read(1 << 20)
                if not part:
                    break
                parts.append(part)
    except BaseException:  # interrupted (Ctrl-C): the child must not outlive the wait for it
        if child is not None:
            child.kill()
            child.wait()
        raise
    code = child.wait()
    if hung:
        raise ChildFailed("timed out")
    if code < 0:
        raise ChildFailed(f"was killed by signal {-code}")
    if code != 0:
        raise ChildFailed(f"exited with code {code}")
    try:
        return pickle.loads(b"".join(parts))
    except Exception as exc:  # noqa: BLE001 - a result that does not unpickle is a failed child, not our crash
        raise ChildFailed(f"sent a result that could not be read ({type(exc).__name__})") from None


class _Forked:
    """A child forked here: the cheapest start, for a process with one thread."""

    def __init__(self, function: Callable[[Any], object], argument: object) -> None:
        owner = os.getpid()
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(read_end)
            _compute_and_exit(owner, True, function, argument, write_end)
        os.close(write_end)
        self.output = read_end

    def kill(self) -> None:
        import signal

        os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        """The exit code, or minus the signal that killed it (as ``multiprocessing`` says it)."""
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


class _Served:
    """A child that ``context()`` starts (the forkserver forks it): for a process with more than one thread."""

    def __init__(self, function: Callable[[Any], object], argument: object) -> None:
        start = context()
        reader, writer = start.Pipe(duplex=False)
        self._process = start.Process(target=_serve, args=(os.getpid(), function, argument, writer), daemon=True)
        try:
            self._process.start()
        finally:
            writer.close()  # the child's copy is its own: end of file comes when the child ends
        self.output = os.dup(reader.fileno())
        reader.close()

    def kill(self) -> None:
        self._process.kill()

    def wait(self) -> int:
        self._process.join()
        return self._process.exitcode  # type: ignore[return-value]  # joined: never None


def _serve(owner: int, function: Callable[[Any], object], argument: object,
           writer: multiprocessing.connection.Connection) -> NoReturn:
    _compute_and_exit(owner, False, function, argument, writer.fileno())


def _compute_and_exit(owner: int, forked: bool, function: Callable[[Any], object], argument: object,
                      output: int) -> NoReturn:
    """The child of ``in_child``: whatever happens, it leaves through os._exit, so no parent buffer is
    flushed twice and no handler of the parent's runs here."""
    import pickle

    status = 1
    try:
        _start_worker(owner, forked)
        payload = pickle.dumps(function(argument), protocol=pickle.HIGHEST_PROTOCOL)
        with open(output, "wb", closefd=False) as pipe:
            pipe.write(payload)
        status = 0
    finally:
        os._exit(status)


def _start_worker(owner: int, forked: bool) -> None:
    """A worker's first act (the pool's initializer, ``in_child``'s child): leave Ctrl-C to ``owner``, the
    process that wanted the worker, and make sure to die with it, whether ``owner`` forked this process or
    had it started (by the forkserver, or spawned)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held by the start (_interrupts_held)
    if forked:
        die_with_parent(owner)
    else:
        _exit_with_owner()


def die_with_parent(owner: int) -> None:
    """Have the kernel SIGKILL this process when its parent, ``owner``, dies (Linux; elsewhere nothing
    happens); if it died already, before the request took hold, exit now (this process has another parent).
    Also how verify's children tie themselves to their driver (``runtime/procs.py``)."""
    import ctypes
    import signal

    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != owner:
        os._exit(1)


def _exit_with_owner() -> None:
    """Exit when the process that had this one started ends: its end of the pipe ``multiprocessing`` gives each
    process it starts closes then. For a worker forked by the forkserver (whose death the kernel would
    report, but which lives as long as any worker does) and for spawned ones."""
    import multiprocessing
    import threading
    from multiprocessing.connection import wait

    owner = multiprocessing.parent_process()
    assert owner is not None  # this process was started by ``multiprocessing``

    def watch() -> None:
        wait([owner.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="ppaux-lint-owner-watch", daemon=True).start()


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C while a worker starts. Here, where it would stop the start halfway (a forkserver child then
    prints that its pickled orders were cut short): it is raised on leaving instead. In the worker, which
    begins with this process's handler (a fork) or the default one (the forkserver's child) and would print
    a traceback until ``_start_worker`` ignores it: the worker inherits the signal blocked (from this
    thread, or from the forkserver, which is started with it blocked) and lets it go once it ignores it."""
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask")
            or signal.getsignal(signal.SIGINT) is None):  # (None: a handler set outside Python, left alone)
        yield  # Python raises KeyboardInterrupt in the main thread only
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)
