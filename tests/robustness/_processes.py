"""The processes test_check_processes.py starts, and what they leave behind.

Each process under test leads a session of its own (``start_new_session``), so everything it starts (its
workers, forked or spawned, and their children) is found by session id, wherever it was reparented when its
parent died, and ``launched`` kills all of it at the end, whatever the test concluded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from lintkit import as_from_a_terminal

# Long enough for anything that is going to happen; only stops a test that would otherwise wait forever.
PATIENCE = 60.0

# A process with a second thread, as a test runner or an imported torch make one: then ppaux-lint must not
# fork (CPython 3.12 warns, and a lock another thread held stays held).
WITH_A_THREAD = "import threading; threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
# Records the thread count at every os.fork() of this process, as CPython 3.12's warning counts them, and
# writes the counts at exit to the file named by its first argument (taken off the command line).
COUNTING_FORKS = """\
import atexit, json, os, sys
_forks, _record = [], sys.argv.pop(1)
def _threads():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
os.register_at_fork(before=lambda: _forks.append(_threads()))
atexit.register(lambda: open(_record, "w").write(json.dumps(_forks)))
"""
RUN_THE_CLI = "from ppaux_lint.cli.main import main; main()\n"


def python(code: str, *args: str) -> list[str]:
    """``python -c code args``, run from a directory of the test's choosing (``launched``'s cwd)."""
    return [sys.executable, "-c", code, *args]


@dataclass(frozen=True)
class Member:
    pid: int
    ppid: int
    command: str


def session(sid: int) -> dict[int, Member]:
    """The live processes (zombies are dead) of session ``sid``."""
    members: dict[int, Member] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after the command name, which may hold anything
        state, ppid, session_id = fields[0], int(fields[1]), int(fields[3])
        if session_id == sid and state not in ("Z", "X"):
            members[int(entry)] = Member(int(entry), ppid, command)
    return members


def workers(leader: int) -> list[int]:
    """The session's worker processes: everything but its leader."""
    return sorted(pid for pid in session(leader) if pid != leader)


def eventually(condition: Callable[[], bool], seconds: float = PATIENCE) -> bool:
    """Whether ``condition`` holds within ``seconds`` (polled): the bound stops a test, it times nothing."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def leftovers(leader: int) -> dict[int, Member]:
    """What is still alive of ``leader``'s session once it had time to end (nothing, if all is well)."""
    eventually(lambda: not session(leader))
    return session(leader)


@dataclass
class Launched:
    process: subprocess.Popen
    stderr: Path

    def errors(self) -> str:
        return self.stderr.read_text(errors="replace")


@contextlib.contextmanager
def launched(argv: Sequence[str], cwd: Path, stderr: Path, stdout: IO | int = subprocess.DEVNULL
             ) -> Iterator[Launched]:
    """``argv`` leading a new session, with no terminal. Its stderr goes to a file: a pipe would block the
    test on any process that kept it open. On leaving, every process of the session is killed."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    with stderr.open("wb") as errors:
        process = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=errors,
                                   env=env, start_new_session=True, preexec_fn=as_from_a_terminal)
    try:
        yield Launched(process, stderr)
    finally:
        for pid in session(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()


def wait_for_workers(run: Launched) -> list[int]:
    """The run's first workers, as soon as it has some (none if it ended first). One may be a helper caught
    between its fork and its exec, which is as good a moment to kill the run."""
    found: list[int] = []

    def started() -> bool:
        found[:] = workers(run.process.pid)
        return bool(found) or run.process.poll() is not None

    eventually(started)
    return found


# -- what test_bad_input.py's forked children run ----------------------------------------------------------

def crash(how: str) -> None:
    """Die ``how``: a worker's every way to end without an answer."""
    import faulthandler

    faulthandler.disable()  # pytest enables it; the dump in the dying worker would only be noise
    if how == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif how == "abort":
        os.abort()
    elif how == "exit":
        os._exit(139)
    elif how == "exception":
        raise RuntimeError("boom")
    elif how == "hang":
        signal.pause()
