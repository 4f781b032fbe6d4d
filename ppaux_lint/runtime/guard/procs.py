"""Child processes that can hang, crash, fork or be killed without taking verify down.

Verify runs the project's code in children because that code may hang, call ``os._exit``, fork, or
exhaust memory, and a report must still come out. Each child speaks JSON lines: requests on stdin, events
on a private copy of stdout. The child moves its own fd 1 onto stderr first, so a stray ``print`` in
project code cannot corrupt the channel.

The parent reads a child's events without a thread, polling the pipe, and takes the child's own exit, not
the end of the pipe, as the end of its events: a process the child forked holds the pipe open for as long
as it lives, so waiting for the pipe to end would wait for that process too (and a reader thread blocked
on it would block whoever closes the pipe). A child is a fresh interpreter, or, where that is safe, a
fork of its parent, which costs milliseconds instead of an interpreter's start and torch's import.
Torch-free: the driver needs none of torch.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import json
import math
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import ppaux_lint
from ppaux_lint.support.children import die_with_parent as tie_to_parent
from ppaux_lint.support.children import threads

_HOME = str(Path(ppaux_lint.__file__).resolve().parents[1])  # what holds ppaux_lint/, wherever this module lies
# Started with -c so the child imports the very ppaux_lint the parent runs, installed or not.
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from ppaux_lint.runtime.guard.procs import boot; boot(sys.argv[2:])")
_STDERR_TAIL = 2000
_EXIT_POLL = 0.1
"""How often a silent child is asked whether it has exited, while its pipe may be held open by another."""
_DRAIN_READS = 16
"""Reads of 64 KiB taken from a dead child's pipe: a pipe holds 64 KiB unless its writer enlarged it."""
_LONGEST_LINE = 16 * 2**20
"""A line longer than this is no event of ours (a process the project's code forked writing to the pipe)."""


class ChildGone(Exception):
    """The child exited or was killed, or closed its channel."""


class Child:
    """One child Python process running ``module.main(args)``.

    With ``own_group`` the child leads a new process group, so ``kill`` also
    ends everything it started that stayed in that group; without it the child
    stays in its parent's group and dies with it. With ``die_with_parent``
    (Linux) the kernel kills the child when this process dies, even by
    SIGKILL. It is tied to the thread that starts the child, so only a child
    started from a thread that outlives it may ask for it.

    With ``fork`` the child is a fork of this process, when this process can
    fork safely (``fork_safe``), else a fresh interpreter as without it: a
    fork starts at once, with whatever this process has imported, and closes
    the objects in ``leave_behind`` (this process's own channel, say), which
    are not the child's to use. ``env`` is for a fresh interpreter only.
    """

    def __init__(self, module: str, args: list[str], *, own_group: bool, env: dict[str, str] | None = None,
                 die_with_parent: bool = False, fork: bool = False, leave_behind: Iterable[Any] = ()):
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - held for the child's life, closed by kill()
        self._own_group = own_group and os.name == "posix"
        self._killed = False
        self._ended = False
        self.proc: subprocess.Popen | _Forked
        if fork and fork_safe():
            self.proc = _Forked(module, args, self._stderr.fileno(), own_group=self._own_group,
                                die_with_parent=die_with_parent, leave_behind=leave_behind)
        else:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _BOOT, _HOME, module, str(os.getpid() if die_with_parent else 0), *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=self._own_group,
                env=env,
            )
        assert self.proc.stdout is not None
        self._lines = _Lines(self.proc.stdout.fileno())

    def send(self, message: dict[str, Any]) -> None:
        """Send a request; a dead child is noticed by the next ``receive``, not here."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next event; ``TimeoutError`` when none comes in time, ``ChildGone`` once the child has exited
        (or closed its channel) and every event it sent before has been received."""
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            if self._lines.ready:
                return self._lines.ready.popleft()
            if self._ended:
                raise ChildGone
            left = deadline - time.monotonic()
            if self._lines.wait(min(max(left, 0.0), _EXIT_POLL)):
                self._ended = self._lines.pull()
            elif self._wait_unreaped(0.0) is not None:
                self._lines.drain()  # what it wrote before it exited; anything later is not its
                self._ended = True
            if left <= 0 and not self._lines.ready and not self._ended:
                raise TimeoutError

    def exit_description(self, wait: float = 5.0) -> str:
        """How the child ended, e.g. "exited with code 3" or "was killed by SIGKILL"."""
        code = self._wait_unreaped(wait)
        if code is None:
            return "closed its channel but did not exit"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def _wait_unreaped(self, wait: float) -> int | None:
        """The exit code (negative for a signal) once the child has ended, without reaping it.

        While the child is an unreaped zombie its pid, and so its process
        group's id, cannot be handed to another process; ``kill`` relies on
        that to signal the group safely even after the child itself died.
        """
        if not hasattr(os, "waitid") or self.proc.returncode is not None:
            try:
                return self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                return None
        deadline = time.monotonic() + wait
        while True:
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
            except ChildProcessError:  # already reaped: the process object knows the code
                return self.proc.wait()
            if info is not None:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)

    def stderr_tail(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - _STDERR_TAIL))
        return self._stderr.read().decode(errors="replace").strip()

    def close(self, grace: float = 5.0) -> None:
        """Let the child finish by closing its input, then kill whatever is left of it."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        self._wait_unreaped(grace)
        self.kill()

    def kill(self) -> None:
        """Kill the child and, when it leads a group, every process left in that group; then reap it."""
        if self._killed:
            return
        self._killed = True
        if self._own_group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._stderr.close()


def fork_safe() -> bool:
    """Whether a fork of this process would be sound: one thread (a fork copies only the caller's, so a
    lock another thread held stays locked for ever in the child; Python 3.12+ warns), and no CUDA context
    (a forked child cannot use its parent's)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return False
    return threads() == 1  # 0: no way to count them


class _Forked:
    """A child that is a fork of this process running ``module.main(args)``: the part of ``Popen``'s interface
    that ``Child`` uses."""

    def __init__(self, module: str, args: list[str], stderr: int, *, own_group: bool, die_with_parent: bool,
                 leave_behind: Iterable[Any]) -> None:
        request_out, request_in = os.pipe()
        events_out, events_in = os.pipe()
        parent = os.getpid()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()  # or the child would write this process's pending output again
        pid = os.fork()
        if pid == 0:
            os.close(request_in)
            os.close(events_out)
            _run_forked(module, args, (request_out, events_in, stderr), own_group, parent if die_with_parent else 0,
                        leave_behind)
        os.close(request_out)
        os.close(events_in)
        if own_group:
            with contextlib.suppress(OSError):  # as the child does: whichever runs first, the group exists
                os.setpgid(pid, pid)
        self.pid = pid
        self.returncode: int | None = None
        self.stdin: BinaryIO | None = os.fdopen(request_in, "wb")
        self.stdout: BinaryIO | None = os.fdopen(events_out, "rb")

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: no code to read
                self.returncode = -signal.SIGKILL
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is None:
                with contextlib.suppress(ChildProcessError):
                    self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
                continue
            if time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"fork of pid {os.getpid()}", timeout or 0.0)
            time.sleep(0.02)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _run_forked(module: str, args: list[str], fds: tuple[int, int, int], own_group: bool, parent: int,
                leave_behind: Iterable[Any]) -> None:
    """The forked child's whole life: its own stdin, stdout and stderr, then ``module.main``; never returns, so
    that nothing of the parent's stack runs on in the child."""
    code = 1
    try:
        if own_group:
            os.setpgid(0, 0)
        if parent:
            tie_to_parent(parent)
        for thing in leave_behind:
            thing.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds[:2]:
            os.close(fd)
        importlib.import_module(module).main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:  # noqa: BLE001 - said on stderr, where the parent reads a dead child's last words
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


def boot(argv: list[str]) -> None:
    """A child's start: ``argv`` is the module to run, the parent's pid to die with (0: none), its arguments."""
    module, parent = argv[0], int(argv[1])
    if parent:
        tie_to_parent(parent)
    importlib.import_module(module).main(argv[2:])


class Channel:
    """The child's side: JSON lines out on a private stdout, requests in on stdin.

    Only the process that made it speaks on it: a process that the project's code forks from this one
    shares the pipe, and if it ran on through verify's code it would report a round trip of its own.
    """

    def __init__(self) -> None:
        self._owner = os.getpid()
        sys.stdout.flush()
        out = os.dup(1)
        os.dup2(2, 1)  # project code that prints now prints to stderr
        self._out: TextIO = os.fdopen(out, "w", buffering=1, encoding="utf-8")
        devnull = os.open(os.devnull, os.O_RDONLY)
        self._in = os.dup(0)
        os.dup2(devnull, 0)  # and project code that reads stdin cannot eat our requests
        os.close(devnull)
        self._lines = _Lines(self._in)
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - stays open as stdin for the process

    def send(self, message: dict[str, Any]) -> None:
        if os.getpid() == self._owner:
            self._out.write(json.dumps(message) + "\n")

    def receive(self, timeout: float | None) -> dict[str, Any]:
        """The next request; ``TimeoutError`` when none comes in time (``None``: wait for ever), ``EOFError``
        once the parent has closed the channel (or died)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        ended = False
        while True:
            if self._lines.ready:
                return self._lines.ready.popleft()
            if ended:
                raise EOFError
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if self._lines.wait(left):
                ended = self._lines.pull()
            elif left is not None and left <= 0:
                raise TimeoutError

    def requests(self) -> Iterator[dict[str, Any]]:
        """Every request, until the parent closes the channel."""
        while True:
            try:
                yield self.receive(None)
            except EOFError:
                return

    def close(self) -> None:
        """Let go of both pipes (in a forked child, which must not hold its parent's)."""
        self._out.close()
        os.close(self._in)


class _Lines:
    """The JSON objects a pipe carries, one a line, read as they come: never blocks on a partial line."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._partial = b""
        self.ready: collections.deque[dict[str, Any]] = collections.deque()

    def wait(self, timeout: float | None) -> bool:
        """Whether there is something to ``pull`` (data, or the end of the pipe) within ``timeout`` seconds."""
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        return bool(poller.poll(None if timeout is None else math.ceil(timeout * 1000)))

    def pull(self) -> bool:
        """Read what is there; true at the end of the pipe."""
        try:
            data = os.read(self._fd, 65536)
        except OSError:
            return True
        if not data:
            return True
        *lines, self._partial = (self._partial + data).split(b"\n")
        if len(self._partial) > _LONGEST_LINE:
            self._partial = b""
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not ours: the channel carries only JSON objects
            if isinstance(event, dict):
                self.ready.append(event)
        return False

    def drain(self) -> None:
        """Read what is there already (at most what a pipe holds), without waiting for more."""
        for _ in range(_DRAIN_READS):
            if not self.wait(0) or self.pull():
                return
