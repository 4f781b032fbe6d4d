"""The receiving rank: the first PP stage, in a process of its own, for every run on one machine (see ``peer.py``).

It serves the class's process that forked it (see ``peer.py``). It loads the same helpers (by their
``source``), so that ``pop`` is judged by the implementation that judged ``add`` (and, for ``stand-ins``, so
that it can import the observer class where SGLang is not installed), and owns the TCPStore both ranks meet
in. Per class it joins that class's group, builds the class's observer once (as a real first stage keeps
one), and judges every example the sending rank sends; every verdict says whether the rank is still in
step, that is whether it took the whole of the example off the wire, so that the sender knows when to
replace it.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.driving.examples import instantiate
from ppaux_lint.runtime.guard.procs import Channel
from ppaux_lint.runtime.sending.roundtrip import Outcome, Steps, describe, format_detail, receive_half
from ppaux_lint.runtime.sending.transport import join, loopback_env, receive_stage
from ppaux_lint.runtime.terms.helpers import Helpers, load_helpers
from ppaux_lint.runtime.terms.results import ERROR, PASS
from ppaux_lint.runtime.terms.targets import ClassRef


def main(argv: list[str]) -> None:
    """Serve classes until the worker closes the channel; ``argv`` is the project's paths (JSON) and the
    helpers' source."""
    channel = Channel()
    for path in reversed(json.loads(argv[0])):
        sys.path.insert(0, path)
    try:
        helpers = load_helpers(argv[1])
        for key, value in loopback_env().items():
            os.environ.setdefault(key, value)
        store = dist.TCPStore("127.0.0.1", 0, world_size=2, is_master=True, wait_for_workers=False)
    except BaseException as exc:  # noqa: BLE001 - reported to the worker instead
        channel.send({"event": "fatal", "message": f"{type(exc).__name__}: {exc}"})
        return
    channel.send({"event": "ready", "port": store.port})
    steps = Steps(lambda step, status: channel.send({"event": "step", "step": step, "status": status}))
    stage: _Class | None = None
    for request in channel.requests():
        if request["op"] == "class":
            stage = _Class(request, store, steps, helpers)
            stage.join()
        elif request["op"] == "example" and stage is not None:
            channel.send({"event": "verdict", **stage.judge()})
        elif request["op"] == "end" and stage is not None:
            stage.leave()
            stage = None


class _Class:
    """One class on the receiving rank: its group, its observer, and what broke first."""

    def __init__(self, request: dict[str, Any], store: dist.TCPStore, steps: Steps, helpers: Helpers) -> None:
        self._deadline = time.monotonic() + float(request["deadline_in"])
        self._observer_ref = ClassRef.from_json(request["observer"])
        self._device = torch.device(request["device"])
        self._backend = request["backend"]
        self._store = dist.PrefixStore(request["prefix"], store)
        self._steps = steps
        self._helpers = helpers
        self._observer: Any = None
        self._joined = False
        self._problem: dict[str, Any] | None = None  # a failed join: every example gets its verdict

    def join(self) -> None:
        try:
            with self._steps.step("transport: joining the process group", ERROR):
                if self._device.type == "cuda":
                    torch.cuda.set_device(self._device)
                left = max(self._deadline - time.monotonic(), 1.0)
                self._store.set_timeout(datetime.timedelta(seconds=left))
                join(self._store, 1, self._backend, left)
                self._joined = True
        except Outcome as outcome:
            self._problem = outcome.to_verdict()

    def judge(self) -> dict[str, Any]:
        """Receive one example and judge it; ``in_step`` is false unless all of it came off the wire. (Which
        example it was, the worker adds to the verdict.)"""
        if self._problem is not None:
            return {**self._problem, "in_step": False}
        try:
            with self._steps.step("transport: receiving", ERROR):
                received, shipment = receive_stage(self._device, self._backend)
        except Outcome as outcome:
            return {**outcome.to_verdict(), "in_step": False}
        notes: list[str] = []
        try:
            if self._observer is None:
                self._observer = instantiate(self._observer_ref, self._device, self._steps)
            receive_half(received, self._observer, shipment, self._device, self._steps, self._helpers, notes)
        except Outcome as outcome:
            return {**outcome.to_verdict(), "in_step": True}
        except BaseException as exc:  # noqa: BLE001 - the verdict must reach the worker whatever happened
            failure = Outcome(ERROR, f"receiving rank: {describe(exc)}", format_detail(exc))
            return {**failure.to_verdict(), "in_step": True}
        return {"status": PASS, "message": "", "notes": notes, "in_step": True}

    def leave(self) -> None:
        if self._joined:
            dist.destroy_process_group()

