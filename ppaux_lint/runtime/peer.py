"""The ``dist`` transport's two ranks: the worker sends, a peer process receives.

The worker is rank 0, the last PP stage: it has already run ``add``. It
starts a peer (rank 1, the first stage), which joins over a TCPStore bound to
a fresh port on 127.0.0.1, receives the dict, builds its own observer, runs
``pop`` and the pass criteria, and reports a verdict. The peer stays in the
worker's process group, so when the driver kills a hung worker the peer dies
with it. The peer loads the same helpers as the worker (by their ``source``),
so ``pop`` is judged by the implementation that judged ``add``.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from dataclasses import asdict
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.examples import instantiate
from ppaux_lint.runtime.helpers import Helpers, load_helpers
from ppaux_lint.runtime.procs import Channel, Child, ChildGone
from ppaux_lint.runtime.results import ERROR, FAIL, PASS
from ppaux_lint.runtime.roundtrip import (
    Outcome,
    Shipment,
    Steps,
    describe,
    format_detail,
    receive_half,
)
from ppaux_lint.runtime.targets import ClassRef
from ppaux_lint.runtime.transport import (
    backend_for,
    join,
    loopback_env,
    receive_stage,
    send_stage,
    sender_device,
)

_SETTLE = 5.0  # how long to wait for the peer's own account after a send fails


def dist_round_trip(
    stage: dict[str, Any],
    shipment: Shipment,
    observer: ClassRef,
    device: torch.device,
    deadline: float,
    steps: Steps,
    paths: list[str],
    helpers: Helpers,
) -> None:
    """Run rank 0 of the round trip; raise an ``Outcome`` unless the peer reports a pass."""
    backend = backend_for(device)
    for key, value in loopback_env().items():
        os.environ.setdefault(key, value)
    with steps.step("transport: starting the receiving rank", ERROR):
        store = dist.TCPStore(
            "127.0.0.1", 0, world_size=2, is_master=True, wait_for_workers=False, timeout=_delta(deadline)
        )
        peer = Child("ppaux_lint.runtime.peer", [], own_group=False, env=dict(os.environ))
    try:
        peer.send({"paths": paths, "observer": asdict(observer), "device": str(device), "backend": backend,
                   "port": store.port, "deadline_in": deadline - time.monotonic(), "helpers": helpers.source})
        waiter = _PeerWatch(peer, steps, deadline)
        waiter.until("ready")
        with steps.step("transport: joining the process group", ERROR):
            if backend == "nccl":
                torch.cuda.set_device(sender_device(device, backend))
            join(store, 0, backend, deadline - time.monotonic())
        try:
            try:
                with steps.step("transport: sending", ERROR):
                    send_stage(stage, shipment, backend)
            except Outcome as failure:
                waiter.account_for(failure)
                raise
            verdict = waiter.until("verdict")
        finally:
            dist.destroy_process_group()
    finally:
        peer.close(grace=1.0)
    if verdict["status"] != PASS:
        raise Outcome(verdict["status"], verdict["message"], verdict.get("detail", ""))


class _PeerWatch:
    """Reads the peer's events, tracking its current step so that a hang or death can be pinned on it."""

    def __init__(self, peer: Child, steps: Steps, deadline: float) -> None:
        self._peer = peer
        self._steps = steps
        self._deadline = deadline
        self._step = "starting"
        self._status = ERROR

    def until(self, kind: str) -> dict[str, Any]:
        try:
            return self._next(kind, self._deadline)
        except TimeoutError:
            self._peer.kill()
            raise Outcome(self._status, f"the receiving rank timed out during {self._step}") from None

    def account_for(self, failure: Outcome) -> None:
        """After a send failed for want of a peer, raise the peer's own account of why, if it gives one soon."""
        if failure.status == FAIL:
            return  # the sender's tensors were at fault; the peer knows nothing better
        try:
            verdict = self._next("verdict", min(self._deadline, time.monotonic() + _SETTLE))
        except TimeoutError:
            return
        if verdict["status"] != PASS:
            raise Outcome(verdict["status"], verdict["message"], verdict.get("detail", "")) from None

    def _next(self, kind: str, limit: float) -> dict[str, Any]:
        while True:
            try:
                event = self._peer.receive(limit - time.monotonic())
            except ChildGone:
                how = self._peer.exit_description()
                raise Outcome(self._status, f"the receiving rank {how} during {self._step}",
                              self._peer.stderr_tail()) from None
            if event.get("event") == "step":
                self._step, self._status = event["step"], event["status"]
                self._steps.announce(f"receiving rank: {self._step}", self._status)
            elif event.get("event") == kind:
                return event


def _delta(deadline: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=max(deadline - time.monotonic(), 1.0))


def main(argv: list[str]) -> None:
    """Rank 1: receive, rebuild with this process's own observer, judge, report."""
    channel = Channel()
    request = next(channel.requests(), None)
    if request is None:
        return
    deadline = time.monotonic() + float(request["deadline_in"])
    for path in reversed(request["paths"]):
        sys.path.insert(0, path)
    channel.send({"event": "ready"})
    steps = Steps(lambda step, status: channel.send({"event": "step", "step": step, "status": status}))
    device = torch.device(request["device"])
    backend = request["backend"]
    verdict: dict[str, Any] = {"status": PASS, "message": ""}
    try:
        with steps.step("transport: joining the process group", ERROR):
            if device.type == "cuda":
                torch.cuda.set_device(device)
            store = dist.TCPStore("127.0.0.1", int(request["port"]), world_size=2, is_master=False,
                                  timeout=_delta(deadline))
            join(store, 1, backend, deadline - time.monotonic())
        try:
            with steps.step("transport: receiving", ERROR):
                received, shipment = receive_stage(device, backend)
        finally:
            dist.destroy_process_group()
        with steps.step("loading the transport helpers", ERROR):
            helpers = load_helpers(request["helpers"])
        observer = instantiate(ClassRef.from_json(request["observer"]), device, steps)
        receive_half(received, observer, shipment, device, steps, helpers)
    except Outcome as outcome:
        verdict = {"status": outcome.status, "message": outcome.message, "detail": outcome.detail}
    except BaseException as exc:  # noqa: BLE001 - the verdict must reach the worker whatever happened
        verdict = {"status": ERROR, "message": f"receiving rank: {describe(exc)}", "detail": format_detail(exc)}
    channel.send({"event": "verdict", **verdict})
