"""The two PP stages on one machine, from the sending side: the class's receiving rank.

SGLang runs every PP stage in a scheduler process of its own, each with an observer built there, so state a
plugin keeps in its process (a module dict, a class attribute, an ``lru_cache``, a singleton) that the last
stage's hooks fill is not there when the first stage rebuilds. Every verify run on one machine therefore
puts the first stage in a process of its own, ``--transport local`` as ``dist``; they differ only in the
backend (``local``: gloo, both stages on the target device; ``dist``: NCCL across two GPUs where there are).

The class's process (``judge.py``) is rank 0, the last PP stage: it has already run ``add``. Rank 1, the
first stage, is a process of its own (``receiver.py``) that receives the dict, builds its own observer, runs
``pop`` and the pass criteria, and reports a verdict. Starting that process and importing torch there was
most of what a class cost when every class started one from scratch, so the class's process forks it from
itself as it starts, with torch imported already and before any of the project's code has run there: each
class gets a receiving rank that no other class touched, for the price of a fork.

The class gets a process group of its own, under a prefix in the receiving rank's TCPStore (bound to a
fresh port on 127.0.0.1): it is made before the class's first example crosses and destroyed after its last,
so the project's code meets an initialised group only during its own round trip, as before. Control
travels over the receiving rank's channel (which class, each example, the verdicts, and every step the rank
starts), so the sending rank waits on it with the class's own deadline and can blame the step it hung or
died in; the tensors travel over the group, metadata first, as SGLang sends them.

Anything that may leave the two ranks out of step (a timeout, a death, a transport error, a send that
failed half way) retires the receiving rank: it is killed. It stays in the class's process group, so when
the worker ends the class the receiving rank ends with it.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.guard.procs import Child, ChildGone
from ppaux_lint.runtime.sending.roundtrip import Outcome, Shipment, Steps
from ppaux_lint.runtime.sending.transport import (
    Link,
    Parcel,
    join,
    loopback_env,
    send_stage,
    sender_device,
)
from ppaux_lint.runtime.terms.results import ERROR, FAIL, PASS
from ppaux_lint.runtime.terms.targets import ClassRef

_SETTLE = 5.0  # how long to wait for the receiving rank's own account after a send fails

Spawn = Callable[[], Child]
"""Starts a receiving-rank process (``receiver.main``); the class's process knows how, and starts it early."""


class ReceivingRank:
    """Rank 1 for the ``dist`` class that a class's process runs: started with that process, and started again
    should it break while a later example still needs it."""

    def __init__(self, spawn: Spawn, started: Child | None = None) -> None:
        self._spawn = spawn
        self._child = started
        self._store: dist.TCPStore | None = None
        self._classes = 0

    def open(self, observer: ClassRef, device: torch.device, backend: str, deadline: float,
             steps: Steps) -> ClassLink:
        """The link for one class's examples: its own group over ``backend``, joined by both ranks before it
        is returned."""
        store = self._ready(deadline, steps)
        self._classes += 1
        prefix = f"class/{self._classes}"
        watch = _Watch(self, steps, deadline)
        watch.child.send({"op": "class", "observer": asdict(observer), "device": str(device), "backend": backend,
                          "prefix": prefix, "deadline_in": deadline - time.monotonic()})
        link = ClassLink(self, watch, backend)
        with steps.step("transport: joining the process group", ERROR), link.guard():
            if backend == "nccl":
                torch.cuda.set_device(sender_device(device, backend))
            store.set_timeout(_left(deadline))
            join(dist.PrefixStore(prefix, store), 0, backend, deadline - time.monotonic())
            link.joined = True
        return link

    def _ready(self, deadline: float, steps: Steps) -> dist.TCPStore:
        """The rank's store, connected; the rank is started (again) if it is not running."""
        if self._store is not None:
            return self._store
        with steps.step("transport: starting the receiving rank", ERROR):
            if self._child is None:
                self._child = self._spawn()
            ready = _Watch(self, steps, deadline).until("ready")
            for key, value in loopback_env().items():
                os.environ.setdefault(key, value)
            self._store = dist.TCPStore("127.0.0.1", int(ready["port"]), world_size=2, is_master=False,
                                        timeout=_left(deadline))
        return self._store

    @property
    def child(self) -> Child | None:
        """The running process, if any: a retired rank has none until the next example starts one."""
        return self._child

    def retire(self) -> None:
        """Kill the rank; a later example starts a fresh one."""
        if self._child is not None:
            self._child.kill()
        self._child, self._store = None, None


class ClassLink(Link):
    """One class's examples crossing to the receiving rank; ``close`` ends the class on both ranks."""

    def __init__(self, rank: ReceivingRank, watch: _Watch, backend: str) -> None:
        self._rank = rank
        self._watch = watch
        self._backend = backend
        self.joined = False

    def deliver(self, parcel: Parcel, shipment: Shipment, steps: Steps) -> list[str]:
        """Send one example, packed already (so that a refused stage never reaches the receiving rank, which
        stays in step), and raise the receiving rank's verdict unless it is a pass; return a pass's notes."""
        self._watch.child.send({"op": "example"})
        try:
            with steps.step("transport: sending", ERROR), self.guard():
                send_stage(parcel, shipment, self._backend)
        except Outcome as failure:
            self._watch.account_for(failure)
            raise
        verdict = self._watch.until("verdict")
        if not verdict.get("in_step", False):
            self.broken = True
        if verdict["status"] != PASS:
            raise Outcome.from_verdict(verdict)
        return list(verdict.get("notes", ()))

    @property
    def out_of_step(self) -> bool:
        """Whether the link broke or its rank was retired: no later example may cross it (``close`` it and
        ``open`` another, which starts a fresh rank)."""
        return self.broken or self._rank.child is not self._watch.child  # the watch retired it

    def close(self, last: bool = False) -> None:
        """Leave the class's group; a link that broke retires the receiving rank instead of ending the class.

        ``last``: nothing else runs in this process but its report (a judge's class is over, and the worker
        ends the process with the row), so the group is left standing: taking it down waits on a shutdown
        handshake with the receiving rank that costs about 20 ms a class and serves nobody."""
        broken = self.out_of_step
        if not broken:
            self._watch.child.send({"op": "end"})
        if self.joined and not last:
            dist.destroy_process_group()
        if broken:
            self._rank.retire()


class _Watch:
    """Reads the receiving rank's events, tracking its current step so that a hang or death can be pinned on
    it; either retires the rank."""

    def __init__(self, rank: ReceivingRank, steps: Steps, deadline: float) -> None:
        assert rank.child is not None
        self._rank = rank
        self.child = rank.child
        self._steps = steps
        self._deadline = deadline
        self._step = "starting"
        self._status = ERROR

    def until(self, kind: str) -> dict[str, Any]:
        try:
            return self._next(kind, self._deadline)
        except TimeoutError:
            self._rank.retire()
            raise Outcome(self._status, f"the receiving rank timed out during {self._step}") from None

    def account_for(self, failure: Outcome) -> None:
        """After a send failed for want of a receiver, raise the rank's own account of why, if it gives one soon."""
        if failure.status == FAIL:
            return  # the sender's tensors were at fault; the receiving rank knows nothing better
        try:
            verdict = self._next("verdict", min(self._deadline, time.monotonic() + _SETTLE))
        except TimeoutError:
            return
        if verdict["status"] != PASS:
            raise Outcome.from_verdict(verdict) from None

    def _next(self, kind: str, limit: float) -> dict[str, Any]:
        while True:
            try:
                event = self.child.receive(limit - time.monotonic())
            except ChildGone:
                how, tail = self.child.exit_description(), self.child.stderr_tail()
                self._rank.retire()
                raise Outcome(self._status, f"the receiving rank {how} during {self._step}", tail) from None
            if event.get("event") == "step":
                self._step, self._status = event["step"], event["status"]
                self._steps.announce(f"receiving rank: {self._step}", self._status)
            elif event.get("event") == "fatal":
                self._rank.retire()
                raise Outcome(ERROR, f"the receiving rank did not start: {event['message']}")
            elif event.get("event") == kind:
                return event


def _left(deadline: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=max(deadline - time.monotonic(), 1.0))
