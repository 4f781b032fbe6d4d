"""Child processes that can hang, crash or be killed without taking verify down.

Verify runs the project's code in children because that code may hang, call
``os._exit``, or exhaust memory, and a report must still come out. Each child
speaks JSON lines: requests on stdin, events on a private copy of stdout. The
child moves its own fd 1 onto stderr first, so a stray ``print`` in project
code cannot corrupt the channel. Torch-free: the driver needs none of torch.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, TextIO

_HOME = str(Path(__file__).resolve().parents[2])
# Started with -c so the child imports the very ppaux_lint the parent runs, installed or not.
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from ppaux_lint.runtime.procs import boot; boot(sys.argv[2:])"
_PR_SET_PDEATHSIG = 1
_STDERR_TAIL = 2000
_END = object()


class ChildGone(Exception):
    """The child closed its channel: it exited or was killed."""


class Child:
    """One child Python process running ``module.main(args)``.

    With ``own_group`` the child leads a new process group, so ``kill`` also
    ends everything it started (the ``dist`` transport's peer, or processes
    the project's code spawned); without it the child stays in its parent's
    group and dies with it. With ``die_with_parent`` (Linux) the kernel kills
    the child when this process dies, even by SIGKILL: a launcher such as
    torchrun signals its ranks' groups, never a worker's own, so without it a
    worker stuck in project code would outlive a rank that was killed. It is
    tied to the thread that starts the child, so only a child started from a
    thread that outlives it may ask for it.
    """

    def __init__(self, module: str, args: list[str], *, own_group: bool, env: dict[str, str] | None = None,
                 die_with_parent: bool = False):
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - held for the child's life, closed by kill()
        self._own_group = own_group and os.name == "posix"
        self._events: queue.Queue[Any] = queue.Queue()
        self._killed = False
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT, _HOME, module, str(os.getpid() if die_with_parent else 0), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            start_new_session=self._own_group,
            env=env,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue  # not ours: the channel carries only JSON objects
            if isinstance(event, dict):
                self._events.put(event)
        self._events.put(_END)

    def send(self, message: dict[str, Any]) -> None:
        """Send a request; a dead child is noticed by the next ``receive``, not here."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def receive(self, timeout: float) -> dict[str, Any]:
        """The next event; ``TimeoutError`` when none comes in time, ``ChildGone`` at end of channel."""
        try:
            event = self._events.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError from None
        if event is _END:
            self._events.put(_END)  # every later receive sees the end too
            raise ChildGone
        return event

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
            except ChildProcessError:  # already reaped: Popen knows the code
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
        """Kill the child and, when it leads a group, every process left in that group."""
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


def boot(argv: list[str]) -> None:
    """A child's start: ``argv`` is the module to run, the parent's pid to die with (0: none), its arguments."""
    module, parent = argv[0], int(argv[1])
    if parent:
        _die_with(parent)
    importlib.import_module(module).main(argv[2:])


def _die_with(parent: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(1)


class Channel:
    """The child's side: JSON lines out on a private stdout, requests in on stdin."""

    def __init__(self) -> None:
        sys.stdout.flush()
        out = os.dup(1)
        os.dup2(2, 1)  # project code that prints now prints to stderr
        self._out: TextIO = os.fdopen(out, "w", buffering=1, encoding="utf-8")
        devnull = os.open(os.devnull, os.O_RDONLY)
        inp = os.dup(0)
        os.dup2(devnull, 0)  # and project code that reads stdin cannot eat our requests
        os.close(devnull)
        self._in: TextIO = os.fdopen(inp, "r", encoding="utf-8")
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - stays open as stdin for the process

    def send(self, message: dict[str, Any]) -> None:
        self._out.write(json.dumps(message) + "\n")

    def requests(self):
        for line in self._in:
            if line.strip():
                yield json.loads(line)
