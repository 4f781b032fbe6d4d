"""Every process a class's code started ends with the class, those that left its process group included.

Killing a class's process group misses what its code started in a session of its own
(``subprocess.Popen(..., start_new_session=True)``, a daemon that double-forks and calls ``setsid()``),
and those would run on after verify. On Linux the verify worker is a child subreaper
(``PR_SET_CHILD_SUBREAPER``): a process orphaned anywhere below it becomes its child instead of init's, so
after each class it can find every one of them among its own children, kill and reap them, and go on until
none is left (each one killed orphans its own children onto the worker). Elsewhere there is no subreaper,
and only the class's process group ends with it. Torch-free.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Have the processes orphaned below this one handed to it (Linux; elsewhere nothing happens)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def end_children() -> None:
    """Kill and reap every child of this process, and every child they leave behind, until none is left.

    Only for a process whose children are all disposable, as the worker's are once a class is over.
    """
    while True:
        try:
            os.waitpid(-1, os.WNOHANG)  # reaps one that already ended, if any
        except ChildProcessError:
            return  # none at all, live or dead: the common case costs no listing
        children = _children()
        if not children:
            return
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children() -> list[int]:
    """This process's children, live or not yet reaped, from ``/proc`` (none where there is no ``/proc``)."""
    me = os.getpid()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()  # after "pid (comm)", which may hold anything
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(name))
    return found
