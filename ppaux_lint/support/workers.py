"""The worker processes of one analysis: started on first use and kept until the analysis ends.

The store parses in workers so that a parser crash becomes one file's PPA000 (store.py), and scans in
them when a tree is large. Workers started per call made every on-demand load of one module (the file of a
plain base class, a re-exporting ``__init__``) start processes: at 50,000 files, 231 of them took 7 of 18
seconds. Workers kept for the run turn each into a message. They start on the first scan, while this
process is still small, so they never carry the summaries gathered later. After ``close`` (the analysis is
over, though fix planning may still load a module) each use starts workers of its own again, so nothing
outlives the call that needed it.

A little work starts no more workers than it has tasks: the one file an editor saved starts one worker, and
the modules the index then loads on demand are messages to it (a fork each made eleven forks most of a cold
run of a 1,000-file project). ``in_child`` runs one task in a child of its own, on Linux a bare fork: the
store's retry of each file of a task whose worker died. ``map`` kills a worker that holds a task longer than
its ``timeout`` (a parser that never returns), and fails only that task.

How a child starts, what it may import, and how it dies with this process: ``children.py``. Here, a child
that dies (a parser's segfault, an abort, an exception) fails the task it held, and only that task; the
next task that needs a worker gets a new one. Ctrl-C, or any error here, kills every worker before it is
passed on: a worker holds no state worth waiting for.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from typing import TypeVar

from ppaux_lint.support import children
from ppaux_lint.support.children import Child, ChildGone, TimedOut, Unreadable
from ppaux_lint.support.records import dataclass

Argument = TypeVar("Argument")
Result = TypeVar("Result")


@dataclass(frozen=True)
class Failed:
    """A task whose worker ended before it answered; ``how`` as ``Child.ended`` words it."""

    how: str


class Workers:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._children: list[Child] = []
        self._closed = False
        self.ran_on: list[int | None] = []  # of the last map: the pid of the worker that computed each task
        # Workers never closed (a program that drops its store) end when they are collected, or at exit.
        weakref.finalize(self, _stop, self._children, False)

    @property
    def running(self) -> bool:
        """Whether workers are up: more work goes to them rather than to a process of its own."""
        return bool(self._children)

    def map(self, function: Callable[[Argument], Result], tasks: Sequence[Argument],
            timeout: float | None = None, prefer: Sequence[int | None] | None = None) -> list[Result | Failed]:
        """``function(task)`` for each task, computed by up to ``jobs`` workers, in the order of ``tasks``;
        ``Failed`` for a task whose worker died, or (killed) took more than ``timeout`` seconds over it. Where no
        child can be started, computed here. ``prefer``: for each task, the pid of the worker it should go to (one
        that holds what the task needs, as ``ran_on`` said of an earlier map), or None; a worker takes its own
        tasks first, then, rather than wait, those of another. ``ran_on`` then says which worker computed each."""
        self.ran_on = [None] * len(tasks)
        if not children.supported():
            return [function(task) for task in tasks]
        try:
            return self._map(function, tasks, timeout, prefer)
        except BaseException:
            self.stop(kill=True)
            raise
        finally:
            if self._closed:
                self.stop()

    def _map(self, function: Callable[[Argument], Result], tasks: Sequence[Argument],
             timeout: float | None, prefer: Sequence[int | None] | None) -> list[Result | Failed]:
        results: list[Result | Failed | None] = [None] * len(tasks)
        pending = list(range(len(tasks)))  # in the order of tasks
        busy: dict[Child, int] = {}
        deadlines: dict[Child, float] = {}
        while pending or busy:
            while len(self._children) < min(self.jobs, len(busy) + len(pending)):
                self._children.append(Child.start())
            for child in [c for c in self._children if c not in busy][:len(pending)]:
                index = pending.pop(_next(pending, child.pid, prefer))
                self.ran_on[index] = child.pid
                try:
                    child.send(function, tasks[index])
                except ChildGone:
                    results[index] = Failed(self._drop(child))
                    continue
                busy[child] = index
                if timeout is not None:
                    deadlines[child] = time.monotonic() + timeout
            wait = min(deadlines[c] for c in busy) - time.monotonic() if busy and timeout is not None else None
            for child in children.readable(busy, wait) if busy else ():
                index = busy.pop(child)
                try:
                    results[index] = child.receive()
                except Unreadable as unreadable:
                    results[index] = Failed(str(unreadable))  # the worker itself is well, and stays
                except ChildGone:
                    results[index] = Failed(self._drop(child))
            now = time.monotonic()
            for child in [c for c in busy if timeout is not None and deadlines[c] <= now]:
                results[busy.pop(child)] = Failed("timed out")  # a hung task: its worker goes, the others stay
                self._drop(child)
        for index, result in enumerate(results):
            if isinstance(result, Failed):
                self.ran_on[index] = None  # its worker is gone, and what it held with it
        return results  # type: ignore[return-value]  # every slot is filled: each pass answers or fails a task

    def _drop(self, child: Child) -> str:
        """Forget a worker that ended; how it ended."""
        self._children.remove(child)
        child.kill()  # it may only have broken its pipe
        return child.ended()

    def stop(self, kill: bool = False) -> None:
        """End the workers (their use is over, or was interrupted), so the next use starts afresh."""
        _stop(self._children, kill)

    def close(self) -> None:
        self.stop()
        self._closed = True


def _next(pending: list[int], pid: int, prefer: Sequence[int | None] | None) -> int:
    """Where in ``pending`` the task the worker ``pid`` takes next is: its own first (``prefer``), else the last
    one, which the worker it belongs to would reach last."""
    if prefer is None:
        return 0
    return next((at for at, index in enumerate(pending) if prefer[index] == pid), len(pending) - 1)


def _stop(children: list[Child], kill: bool) -> None:
    """Tell each child that no task follows, or kill it, then wait for all of them; forget them."""
    for child in children:
        child.kill() if kill else child.close()
    for child in children:
        child.wait()
    children.clear()


class ChildFailed(Exception):
    """The child of ``in_child`` died, hung or sent nothing readable; the message says how, worded to follow
    "its process" ("was killed by signal 11", "timed out", "exited with code 1")."""


def in_child(function: Callable[[Argument], Result], argument: Argument, timeout: float) -> Result:
    """``function(argument)`` computed in a process started for it, so that whatever kills the computation
    (a parser's segfault, an abort) kills only the child. Ctrl-C, or an error here, kills the child before
    it is passed on. Where no child can be started, computed here."""
    if not children.supported():
        return function(argument)
    child = Child.start(task=(function, argument))
    try:
        answer = child.receive(deadline=time.monotonic() + timeout)
    except TimedOut:
        child.kill()
        child.wait()
        raise ChildFailed("timed out") from None
    except Unreadable as unreadable:
        child.wait()
        raise ChildFailed(str(unreadable)) from None
    except ChildGone:
        raise ChildFailed(child.ended()) from None
    except BaseException:
        child.kill()
        child.wait()
        raise
    child.wait()
    return answer
