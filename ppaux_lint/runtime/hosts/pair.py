"""One class's round trip between two ranks of a launch, as seen from either rank's worker.

Under a launcher (``torchrun/launch.py``) the last rank's worker is the last PP stage: it builds the example, runs
``add`` and sends; rank 0's worker is the first stage: it receives and runs ``pop`` with its own observer,
then verify's pass criteria, against what the sender shipped. Each side imports the project from its own
node's working copy, so a plugin missing on one node, or another version of it, fails here as it would
between real stages.

The two workers join a process group of their own, with the launch's backend, through the launch's store
under a prefix unique to the class. A fresh group per class means a worker that replaced a hung one never
meets a group left mid-message. The protocol is exact, because a gloo send waits for its receive: the
sender sends, per example, a header and the stage, and waits for the receiver's verdict; it stops at the
first verdict that is not a pass, and always ends with an end header, which is what ends the receiver's
loop. Only a broken link (a transport error) ends it otherwise, on both sides.
"""

from __future__ import annotations

import datetime
import time
from dataclasses import asdict
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.driving.examples import Example, instantiate
from ppaux_lint.runtime.sending.roundtrip import Outcome, Shipment, Steps, receive_half
from ppaux_lint.runtime.sending.transport import Link, pack, receive_stage, send_stage
from ppaux_lint.runtime.terms.helpers import Helpers
from ppaux_lint.runtime.terms.results import ERROR
from ppaux_lint.runtime.terms.targets import ClassRef
from ppaux_lint.support.records import dataclass

SEND, RECEIVE, ALONE = "send", "receive", "alone"
"""A rank's part in a class: the sender, the receiver, or the only rank involved (an observer probed alone,
an output with no observer to rebuild it)."""
_PAIR_RANK = {SEND: 0, RECEIVE: 1}  # within the pair's group; transport.send_stage sends from 0 to 1


@dataclass(frozen=True)
class PairSpec:
    """Where and how the two workers meet: the launch's store, the class's prefix in it, the backend."""

    role: str
    host: str = ""
    port: int = 0
    prefix: str = ""
    backend: str = "gloo"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PairSpec:
        return cls(**data)


class PairLink(Link):
    """The pair's group, joined on entry and left on exit; ``deliver`` for the sender, ``receive`` for the
    receiver. The sender cuts each stage for ``attn_tp_size`` (``transport.pack``); the receiver learns the
    size from the metadata."""

    def __init__(self, spec: PairSpec, device: torch.device, deadline: float, steps: Steps,
                 attn_tp_size: int = 1) -> None:
        self._spec = spec
        self._device = device
        self._deadline = deadline
        self._steps = steps
        self._attn_tp_size = attn_tp_size

    def __enter__(self) -> PairLink:
        spec = self._spec
        with self._steps.step("transport: joining the other stage's rank", ERROR), self.guard():
            if spec.backend == "nccl":
                torch.cuda.set_device(self._device)
            client = dist.TCPStore(spec.host, spec.port, is_master=False, timeout=self._left())
            dist.init_process_group(spec.backend, store=dist.PrefixStore(spec.prefix, client),
                                    rank=_PAIR_RANK[spec.role], world_size=2, timeout=self._left())
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._spec.role == SEND and not self.broken:
                with self._steps.step("transport: ending the exchange", ERROR), self.guard():
                    self._send(None)
        finally:
            dist.destroy_process_group()

    def sender_device(self, device: torch.device) -> torch.device:
        """The sender builds its example on its own device, which is the request's."""
        return device

    def deliver(self, stage: dict[str, Any], shipment: Shipment, device: torch.device,
                example: Example) -> list[str]:
        """Send one example's stage and wait for the receiver's verdict; raise it unless it is a pass (which
        comes as its notes, a list)."""
        parcel = pack(stage, self._attn_tp_size)  # before the header: a refused stage leaves the exchange in step
        with self._steps.step("transport: sending", ERROR), self.guard():
            self._send({"variant": example.variant})
            send_stage(parcel, shipment, self._spec.backend)
        with self._steps.step("transport: waiting for the receiving rank's verdict", ERROR), self.guard():
            verdict = self._receive()
        if isinstance(verdict, dict):
            raise Outcome.from_verdict(verdict)
        return list(verdict or ())

    def receive(self, observer: ClassRef, helpers: Helpers) -> None:
        """Judge every example the sender sends with one observer, as a real first stage would; raise the
        first failure once the sender has ended."""
        device, steps = self._device, self._steps
        rebuilder: Any = None
        failure: Outcome | None = None
        while True:
            with steps.step("transport: receiving", ERROR), self.guard():
                header = self._receive()
                if header is None:
                    break
                received, shipment = receive_stage(device, self._spec.backend)
            notes: list[str] = []
            verdict: list[str] | dict[str, str] = notes  # a pass's notes, or a failure's verdict
            if failure is None:
                try:
                    if rebuilder is None:
                        rebuilder = instantiate(observer, device, steps)
                    receive_half(received, rebuilder, shipment, device, steps, helpers, notes)
                except Outcome as outcome:  # the sender names the example in its own row
                    failure = outcome.within(header["variant"])
                    verdict = outcome.to_verdict()
            with steps.step("transport: sending the verdict", ERROR), self.guard():
                self._send(verdict)
        if failure is not None:
            raise failure

    def _send(self, message: Any) -> None:
        dist.send_object_list([message], dst=1 - _PAIR_RANK[self._spec.role])

    def _receive(self) -> Any:
        box: list[Any] = [None]
        dist.recv_object_list(box, src=1 - _PAIR_RANK[self._spec.role])
        return box[0]

    def _left(self) -> datetime.timedelta:
        return datetime.timedelta(seconds=max(self._deadline - time.monotonic(), 1.0))
