"""``round_trip(..., transport="dist")``: the caller's stage dict over a real gloo link, and back.

verify's ``dist`` transport runs ``pop`` in the receiving rank, with an observer that rank builds itself.
A test's observer is a live object in the test's own process, and the test wants the rebuilt output there
too; so here the caller's process is rank 0 and a relay process is rank 1. The dict crosses to the relay
with verify's ``send_stage`` (metadata first, then each tensor) and comes back the same way, landing as
fresh buffers on the target device, as on a real first stage; ``pop`` then runs in the caller's process.
gloo only: NCCL wants each rank's tensors on that rank's own GPU, and a test's tensors are wherever the test
put them. The process group lives only for the transfer, so the caller must not be in one already.
"""

from __future__ import annotations

import datetime
import os
import time
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.guard.procs import Channel, Child, ChildGone
from ppaux_lint.runtime.sending.roundtrip import Shipment
from ppaux_lint.runtime.sending.transport import join, loopback_env, pack, receive_stage, send_stage

BACKEND = "gloo"


def relay_transfer(stage: dict[str, Any], shipment: Shipment, device: torch.device, timeout: float) -> dict[str, Any]:
    """Send ``stage`` to a relay rank and receive it back on ``device``, within ``timeout`` seconds."""
    if dist.is_initialized():
        raise RuntimeError("the dist transport starts its own torch.distributed group, and this process is "
                           "already in one; use transport='local'")
    parcel = pack(stage)  # a refused stage fails here, before any rank starts
    for key, value in loopback_env().items():
        os.environ.setdefault(key, value)
    deadline = time.monotonic() + timeout
    store = dist.TCPStore("127.0.0.1", 0, world_size=2, is_master=True, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=timeout))
    relay = Child("ppaux_lint.runtime.caller.relay", [], own_group=False, env=dict(os.environ))
    try:
        relay.send({"port": store.port, "timeout": timeout})
        try:
            relay.receive(deadline - time.monotonic())  # "ready": torch is imported there
        except TimeoutError:
            raise TimeoutError(f"the relay rank did not start within {timeout:g} s") from None
        except ChildGone:
            raise RuntimeError(f"the relay rank {relay.exit_description()}: {relay.stderr_tail()}") from None
        join(store, 0, BACKEND, deadline - time.monotonic())
        try:
            send_stage(parcel, shipment, BACKEND)
            received, _ = receive_stage(device, BACKEND, peer=1)
        finally:
            dist.destroy_process_group()
    finally:
        relay.close(grace=1.0)
    return received


def main(argv: list[str]) -> None:
    """Rank 1: receive the dict on the CPU and send it straight back."""
    channel = Channel()
    request = next(channel.requests(), None)
    if request is None:
        return
    channel.send({"event": "ready"})
    timeout = float(request["timeout"])
    store = dist.TCPStore("127.0.0.1", int(request["port"]), world_size=2, is_master=False,
                          timeout=datetime.timedelta(seconds=timeout))
    join(store, 1, BACKEND, timeout)
    try:
        received, shipment = receive_stage(torch.device("cpu"), BACKEND)
        send_stage(pack(received), shipment, BACKEND, peer=0)
    finally:
        dist.destroy_process_group()
