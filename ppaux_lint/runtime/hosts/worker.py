"""The verify worker: imports torch once, then judges each class in a process of its own.

Importing torch costs seconds, a fork milliseconds. So the worker imports torch, ppaux-lint's round trip
and the transport helpers the driver names (``bundled``, ``stand-ins`` or ``sglang``), after the project's
paths are in place, runs a round trip of its own (``warmup.py``), and never runs the project's code itself:
per request it forks a judge (``judge.py``) that imports the class and runs its round trip, relays the
judge's events to the driver, and once the judge has reported (or died, or the driver says stop) kills it
and reaps everything it started, processes that left its group included (``guard/reaper.py``). Each class
therefore starts from the same clean process, and nothing one class leaves behind (a pending alarm, a
thread, a signal handler, a patched module, a child process) can end another's row or outlive the run.

A fork is sound only from a process with a single thread and no CUDA context, so the worker keeps to one
thread (numpy's BLAS would start more at import and torch's pool at its first kernel, so both are held to
one, for the worker and so for the judges) and never touches CUDA; should an import start a thread all
the same, each judge is a fresh interpreter instead (``procs.fork_safe``), slower by an import of torch but
as isolated.

When the driver goes (it closes the channel, or dies even by SIGKILL and this process is handed to another
parent), the worker kills the class it runs and everything below it, and exits. This module itself imports
no torch, so that a worker without torch can still say so.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ppaux_lint.runtime.guard import reaper
from ppaux_lint.runtime.guard.procs import Channel, Child, ChildGone
from ppaux_lint.runtime.terms.helpers import load_helpers

JUDGE = "ppaux_lint.runtime.hosts.judge"
STAGES = "stages"
"""The worker's last argument when each class's process starts a receiving rank for the first stage (every run
on one machine; not a launch's, whose other stage is another rank)."""
POLL = 0.1
"""How often the worker, waiting on a judge or on the driver, checks that the driver is still there."""
_ENDS = ("result", "fatal")
"""A judge's events after which it has nothing more to say."""


def main(argv: list[str]) -> None:
    """Serve requests from the driver until it closes stdin or dies; ``argv`` is the project's paths (JSON),
    the helpers' source, and ``STAGES`` when each judge starts a receiving rank (``judge.py``)."""
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy loads, or its BLAS threads make forking unsound
    channel = Channel()
    driver = os.getppid()
    reaper.become_subreaper()
    sys.path[:0] = json.loads(argv[0])
    try:  # torch is imported here, up front, so that a request's time is its own
        from ppaux_lint.runtime.hosts.warmup import warm

        warm(load_helpers(argv[1]))  # and its firsts are done here, once for every judge forked from here
    except BaseException as exc:  # noqa: BLE001 - reported to the driver instead
        channel.send({"event": "fatal", "message": f"{type(exc).__name__}: {exc}"})
        return
    channel.send({"event": "ready"})
    while True:
        request = _next_request(channel, driver)
        if request is None or not _judge(request, argv, channel, driver):
            return


def _next_request(channel: Channel, driver: int) -> dict[str, Any] | None:
    """The driver's next request; ``None`` once it has gone. A ``stop`` for a class already over is dropped."""
    while True:
        try:
            request = channel.receive(POLL)
        except TimeoutError:
            if os.getppid() != driver:
                return None
            continue
        except EOFError:
            return None
        if request.get("op") != "stop":
            return request


def _judge(request: dict[str, Any], argv: list[str], channel: Channel, driver: int) -> bool:
    """Run one request in a judge of its own and relay its events until it ends: with its result, with its
    death (an ``ended`` event saying how, and its last words), or stopped by the driver (``ended`` too).
    Whatever the judge started is killed and reaped before the next request is read. False when the
    driver has gone."""
    judge = Child(JUDGE, argv, own_group=True, die_with_parent=True, fork=True, leave_behind=(channel,))
    try:
        judge.send(request)
        while True:
            try:
                event = judge.receive(POLL)
            except TimeoutError:
                pass
            except ChildGone:
                channel.send({"event": "ended", "how": judge.exit_description(1.0), "detail": judge.stderr_tail()})
                return True
            else:
                channel.send(event)
                if event.get("event") in _ENDS:
                    return True
            try:
                order = channel.receive(0)
            except TimeoutError:
                if os.getppid() != driver:
                    return False
                continue
            except EOFError:
                return False
            if order.get("op") == "stop":
                channel.send({"event": "ended", "how": "was stopped"})
                return True
    finally:
        judge.kill()
        reaper.end_children()
