"""No test leaves a process running: the suite adopts every orphan and fails if one outlives it.

A test that kills ``check`` or ``verify`` and a class that starts its own session both make processes that
escape their parent: on Linux they are reparented to init and nobody would notice. The test process makes
itself a child subreaper at start (``PR_SET_CHILD_SUBREAPER``), so every process the suite starts, however
deep and whatever session it moved to, is reparented to it when its parent dies. At the end of the session
any child still running (after a short grace for ones on their way out) fails the run, named with its command
line, and is killed. multiprocessing's own helpers (its fork server, its resource tracker) are let be: they
exit with this process, reading a pipe it holds.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

import pytest

_PR_SET_CHILD_SUBREAPER = 36
_GRACE = 10.0
_MULTIPROCESSING_HELPERS = ("multiprocessing.forkserver", "multiprocessing.resource_tracker")


def pytest_configure(config: pytest.Config) -> None:
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children() -> dict[int, str]:
    """This process's live children (zombies are reaped on the way), each with its command line."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    found = {}
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue  # it ended while we looked
        if int(fields[1]) == me and fields[0] != b"Z":
            found[int(entry)] = command
    return {pid: command for pid, command in found.items()
            if not any(helper in command for helper in _MULTIPROCESSING_HELPERS)}


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    deadline = time.monotonic() + _GRACE
    left = _children()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _children()
    if not left:
        return
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _children()  # reap them
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"{len(left)} process(es) outlived the tests that started them:",
             *(f"  pid {pid}: {command[:200]}" for pid, command in sorted(left.items()))]
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line("\n".join(lines), red=True)
    else:
        sys.stderr.write("\n".join(lines) + "\n")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
