"""The processes ``check`` starts to compute (parse, scan): each imports only the standard library and ppaux-lint.

Why not ``multiprocessing``: its fork server, its resource tracker and its spawned children start as
``python -c ...``, which puts the working directory first on ``sys.path``, and then import ``signal``,
``socket``, ``pickle``, ``threading`` and more from there. A ``signal.py`` in the checked repository ran on
every cold check started from a terminal (issue 32). Those children also take the parent's ``sys.path`` and
run its ``__main__`` again. A child here starts in one of two ways, and neither can see the checked tree:

- **forked** from this process while it runs one thread (Linux): the cheapest start, a few milliseconds. The
  child keeps the modules this process had imported, and its ``sys.path`` is cut to the standard library's
  directories before it imports anything more, so nothing that the working directory, ``PYTHONPATH`` or a
  test runner put on this process's path can be imported there.
- **spawned** as ``python -I -S -c BOOT``. Isolated mode puts no working or script directory on the path,
  reads no ``PYTHON*`` variable and no user site, and ``-S`` runs no ``.pth`` file. BOOT's first act sets
  ``sys.path`` to the standard library and loads ``ppaux_lint`` from the very files this process runs. This
  is for a process that runs more threads (torch's pools, a test runner's, the user's), where a fork would
  copy locks that another thread holds, and for platforms where fork is not the way. It takes about 60 ms to
  start, and several children start in parallel.

A child serves tasks until its owner closes the task pipe: one message each way per task, an 8-byte length
then a pickle. It holds no descriptor of its owner's but the standard streams. It ignores Ctrl-C, since its
owner decides what that means, and it dies with its owner however the owner dies. A forked child dies through
``PR_SET_PDEATHSIG``. A spawned one dies when its task pipe hangs up, because the owner's end closes with the
owner, even on SIGKILL. An exception in a task ends the child as a crash does, and its owner says how it ended.

Our own threads that would make a fork unsafe, such as the terminal's spinner, are stopped while a child is
forked (``pausing``), so that a spinner never changes how, or how fast, workers start.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NoReturn, Protocol

from ppaux_lint.support import records

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_LENGTH = 8  # bytes of a message's length, little-endian
_READ_SIZE = 1 << 20


class ChildGone(Exception):
    """The child ended, or its pipe broke, before it answered."""


class Unreadable(ChildGone):
    """The child answered with something that does not unpickle here."""


class TimedOut(Exception):
    """No answer came before the deadline."""


class Pausable(Protocol):
    """A thread of ppaux-lint's own that can stop while a child is forked (the spinner)."""

    def pause(self) -> None:
        """Stop the thread, and return once it has ended."""

    def resume(self) -> None:
        """Start it again."""


_pausable: list[Pausable] = []
Task = tuple[Callable[[Any], object], object]  # a function and its one argument


@contextlib.contextmanager
def pausing(thread: Pausable) -> Iterator[None]:
    """While inside, ``thread`` is paused for every fork (``Child.start``)."""
    _pausable.append(thread)
    try:
        yield
    finally:
        _pausable.remove(thread)


def supported() -> bool:
    """Whether children can be started here at all: a POSIX system (pipes that ``poll`` can watch) and an
    interpreter that knows its own executable, for the spawned ones."""
    return os.name == "posix" and (can_fork() or bool(sys.executable))


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


def standard_library_path() -> list[str]:
    """The entries of ``sys.path`` that hold the standard library: its directory, the directory of its
    extension modules (``lib-dynload``) and its zip, never site-packages. All a child needs besides
    ppaux-lint, which it imports from the package's own directory (``ppaux_lint.__path__``). The standard
    library's directory is that of ``os``, a plain module on every version (``sysconfig`` became a package in
    Python 3.13: its directory held none of the library, and a child could not import ``bisect``)."""
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    kept = []
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        parent, name = os.path.split(real)
        if (real == stdlib or (parent == stdlib and name not in ("site-packages", "dist-packages"))
                or (name.endswith(".zip") and parent == os.path.dirname(stdlib))):
            kept.append(entry)
    return kept or [stdlib]


class Child:
    """A child serving tasks over two pipes: ``tasks`` (ours to write) and ``answers`` (ours to read)."""

    def __init__(self, pid: int, tasks: int, answers: int, popen: Any = None) -> None:
        self.pid = pid
        self.tasks: int | None = tasks
        self.answers = answers
        self._popen = popen  # a spawned child's Popen, which reaps it; a forked one is reaped by waitpid
        self.code: int | None = None
        self._reaped = popen is not None  # (a forked child's) its status read and the child reaped

    @classmethod
    def start(cls, task: Task | None = None) -> Child:
        """A new child, forked here when that is safe, else spawned (the module docstring says why), given
        ``task`` first: a forked child takes it as it is, unpickled (a test's patched function, a lambda)."""
        with _interrupts_held():
            if sys.platform == "linux":
                with _own_threads_paused():
                    if can_fork():
                        return cls._fork(task)
            child = cls._spawn()
        if task is not None:
            child.send(*task)
        return child

    @classmethod
    def _fork(cls, task: Task | None) -> Child:
        import ctypes  # noqa: F401 - here, once, rather than in every child it is forked into (die_with_parent's,
        import pickle  # noqa: F401 - 3-7 ms in each child of a cold run, on its way to its first task)

        owner = os.getpid()
        path = standard_library_path()  # here: computing it may import, which the child must not do first
        tasks_read, tasks_write = os.pipe()
        answers_read, answers_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                _close_all_but(tasks_read, answers_write)
                _ignore_interrupts()
                gc.enable()  # the owner may have stopped collecting for itself (``collector.off_until_exit``)
                sys.path[:] = path
                die_with_parent(owner)
                if task is not None:
                    _answer(answers_write, *task)
                serve(tasks_read, answers_write)
            finally:
                os._exit(1)
        os.close(tasks_read)
        os.close(answers_write)
        return cls(pid, tasks_write, answers_read)

    @classmethod
    def _spawn(cls) -> Child:
        import subprocess

        import ppaux_lint

        tasks_read, tasks_write = os.pipe()
        answers_read, answers_write = os.pipe()
        package = list(ppaux_lint.__path__)
        boot = _BOOT.format(path=standard_library_path(), init=os.path.join(package[0], "__init__.py"),
                            package=package, tasks=tasks_read, answers=answers_write)
        try:
            # -I ignores PYTHONDONTWRITEBYTECODE and PYTHONPYCACHEPREFIX: -B and -X carry them, for the child's
            # bytecode and the dataclasses' kept code (records.py)
            flags = ["-I", "-S", *(["-B"] if sys.dont_write_bytecode else []),
                     *(["-X", f"pycache_prefix={sys.pycache_prefix}"] if sys.pycache_prefix else [])]
            popen = subprocess.Popen([sys.executable, *flags, "-c", boot], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, pass_fds=(tasks_read, answers_write))
        except BaseException:
            for fd in (tasks_write, answers_read):
                os.close(fd)
            raise
        finally:
            os.close(tasks_read)
            os.close(answers_write)
        return cls(popen.pid, tasks_write, answers_read, popen)

    def send(self, function: Callable[[Any], object], argument: object) -> None:
        """Give the child ``function(argument)`` to compute. ChildGone if it is not there to take it."""
        import pickle

        assert self.tasks is not None, "a closed child takes no task"
        try:
            _write_message(self.tasks, pickle.dumps((function, argument), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:  # EPIPE: it died
            raise ChildGone(str(exc)) from None

    def receive(self, deadline: float | None = None) -> Any:
        """The answer to the task sent last. ChildGone if the child ends first; TimedOut after ``deadline``
        (``time.monotonic``), the child left running; Unreadable if the answer does not unpickle."""
        import pickle

        message = _read_message(self.answers, deadline)
        if message is None:
            raise ChildGone("no answer")
        try:
            return pickle.loads(message)
        except Exception as exc:  # noqa: BLE001 - an answer that does not unpickle is a failed child, not our crash
            raise Unreadable(f"sent a result that could not be read ({type(exc).__name__})") from None

    def close(self) -> None:
        """No more tasks: the child leaves when it has read this (its exit code is ``wait``'s)."""
        if self.tasks is not None:
            os.close(self.tasks)
            self.tasks = None

    def kill(self) -> None:
        import signal

        if self.code is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        """Close both pipes, wait for the child to end, and return its exit code (minus the signal that
        killed it)."""
        self.close()
        if self.answers >= 0:
            os.close(self.answers)
            self.answers = -1
        if self.code is None:
            if self._popen is not None:
                self.code = self._popen.wait()
            else:
                self.code = _exit_code(os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT))
        if not self._reaped:
            # Read first (``WNOWAIT``), reaped after. Ctrl-C can cut a wait short between any two steps, and
            # ``_stop``'s finalizer waits again: a status that ``waitpid`` had read in the step cut short was lost
            # with the child, so the next wait failed (ECHILD, a traceback) and ``kill``, seeing no code, could
            # have signalled a pid no longer ours.
            with contextlib.suppress(ChildProcessError):  # reaped by the wait that was cut short
                os.waitpid(self.pid, 0)
            self._reaped = True
        return self.code

    def ended(self) -> str:
        """How the child ended, worded to follow "its process" ("was killed by signal 11", "exited with code 1")."""
        code = self.wait()
        if code < 0:
            return f"was killed by signal {-code}"
        return f"exited with code {code}"


def _exit_code(status: os.waitid_result) -> int:
    """``waitid``'s account of an ended child as ``waitstatus_to_exitcode`` words it: its exit code, or minus the
    signal that ended it."""
    return status.si_status if status.si_code == os.CLD_EXITED else -status.si_status


# Run by ``python -I -S -c``: nothing is imported before sys.path is the standard library's, and ppaux_lint
# comes from the owner's own files, whatever is installed or lies in the working directory.
_BOOT = ("import sys\nsys.path[:] = {path!r}\nimport importlib.util\n"
         "spec = importlib.util.spec_from_file_location('ppaux_lint', {init!r}, "
         "submodule_search_locations={package!r})\n"
         "sys.modules['ppaux_lint'] = package = importlib.util.module_from_spec(spec)\n"
         "spec.loader.exec_module(package)\n"
         "from ppaux_lint.support.children import serve_spawned\nserve_spawned({tasks}, {answers})\n")


def serve_spawned(tasks: int, answers: int) -> NoReturn:
    """A spawned child's life: ignore Ctrl-C, end when the owner's end of ``tasks`` hangs up, serve."""
    import threading

    _ignore_interrupts()
    threading.Thread(target=_exit_on_hang_up, args=(tasks,), name="ppaux-lint-owner-watch", daemon=True).start()
    serve(tasks, answers)


def _exit_on_hang_up(fd: int) -> None:
    import select

    watch = select.poll()
    watch.register(fd, 0)  # POLLHUP and POLLERR are always reported, and are all this waits for
    while True:
        for _, events in watch.poll():
            if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                os._exit(1)


def serve(tasks: int, answers: int) -> NoReturn:
    """Compute each task read from ``tasks`` and write its answer to ``answers``, until ``tasks`` ends. Whatever
    happens, leave through ``os._exit``, so that no buffer of the parent's is flushed twice and no handler of
    the parent's runs here."""
    import pickle

    status = 1
    try:
        while True:
            message = _read_message(tasks)
            if message is None:
                status = 0
                records.save()  # os._exit runs no exit handler: what this child compiled is kept now
                break
            _answer(answers, *pickle.loads(message))
    finally:
        os._exit(status)


def _answer(answers: int, function: Callable[[Any], object], argument: object) -> None:
    import pickle

    _write_message(answers, pickle.dumps(function(argument), protocol=pickle.HIGHEST_PROTOCOL))


def _write_message(fd: int, payload: bytes) -> None:
    view = memoryview(len(payload).to_bytes(_LENGTH, "little") + payload)
    while view:
        view = view[os.write(fd, view):]


def _read_message(fd: int, deadline: float | None = None) -> bytes | None:
    """One message, or None where the pipe ends before one begins. A pipe that ends inside a message is
    ChildGone; TimedOut once ``deadline`` passes."""
    header = _read_exactly(fd, _LENGTH, deadline, at_start=True)
    if header is None:
        return None
    return _read_exactly(fd, int.from_bytes(header, "little"), deadline) or b""


def _read_exactly(fd: int, size: int, deadline: float | None, at_start: bool = False) -> bytes | None:
    parts = bytearray()
    while len(parts) < size:
        if deadline is not None:
            _await_readable(fd, deadline)
        part = os.read(fd, min(size - len(parts), _READ_SIZE))
        if not part:
            if at_start and not parts:
                return None
            raise ChildGone("its answer was cut short")
        parts += part
    return bytes(parts)


def _await_readable(fd: int, deadline: float) -> None:
    import select
    import time

    watch = select.poll()
    watch.register(fd, select.POLLIN)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimedOut
        if watch.poll(left * 1000):
            return


def readable(children: Iterable[Child], timeout: float | None = None) -> list[Child]:
    """Those of ``children`` with an answer to read (or whose pipe ended), once at least one has, or none once
    ``timeout`` seconds have passed."""
    import select

    by_fd = {child.answers: child for child in children}
    watch = select.poll()
    for fd in by_fd:
        watch.register(fd, select.POLLIN)
    return [by_fd[fd] for fd, _ in watch.poll(None if timeout is None else max(0, timeout) * 1000)]


@contextlib.contextmanager
def _own_threads_paused() -> Iterator[None]:
    """Our own threads (``pausing``) stopped, and gone, while inside."""
    paused = list(_pausable)
    if not paused:
        yield
        return
    before = threads()
    for thread in paused:
        thread.pause()
    _await_threads(max(1, before - len(paused)))
    try:
        yield
    finally:
        for thread in paused:
            thread.resume()


def _close_all_but(*kept: int) -> None:
    """Close every descriptor a fork inherited but the standard streams and ``kept``: a worker holds nothing
    of its owner's. Another child's task pipe held here would never end for it, and a pipe the owner writes to
    a process of its own (a launcher, a server's client) would never see its end while this worker lives."""
    keep = {0, 1, 2, *kept}
    try:
        inherited = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: every number the process may use
        inherited = list(range(3, os.sysconf("SC_OPEN_MAX")))
    for fd in inherited:
        if fd not in keep:
            with contextlib.suppress(OSError):  # the listing's own descriptor, closed already
                os.close(fd)


def _ignore_interrupts() -> None:
    """A child's first act: leave Ctrl-C to its owner. The signal came blocked from the owner
    (``_interrupts_held``), so that one sent meanwhile waits for this instead of a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def die_with_parent(owner: int) -> None:
    """Have the kernel SIGKILL this process when its parent, ``owner``, dies (Linux; elsewhere nothing
    happens); if it died already, before the request took hold, exit now (this process has another parent).
    Also how verify's children tie themselves to their driver (``runtime/guard/procs.py``)."""
    import ctypes
    import signal

    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != owner:
        os._exit(1)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C while a child starts. Here, where it would stop the start halfway: it is raised on leaving
    instead. In the child, which would die of it with a traceback until ``_ignore_interrupts``: the child
    inherits the signal blocked (a fork copies the mask; so does an exec) and lets it go once it ignores it."""
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    main = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not None
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum)) if main else None
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if main:
            signal.signal(signal.SIGINT, previous)
            if caught:
                signal.raise_signal(signal.SIGINT)
