"""Moving a stage's tensor dict from the sending stage to the receiving one.

Both transports deliver what SGLang's ``send_tensor_dict``/``recv_tensor_dict``
deliver: each tensor as a fresh contiguous buffer allocated on the receiving
device (``torch.empty`` then filled), so an observer that relies on aliasing
the sender's memory, on strides, or on tensor subclasses fails here as it
would between real stages. Non-contiguous tensors are refused up front, since
``torch.distributed.send`` refuses them and SGLang does not make them
contiguous.

``local`` copies inside one process. ``dist`` runs two ranks of
``torch.distributed`` (gloo, or NCCL when two CUDA devices exist): metadata
first, then the tensors, as SGLang does.
"""

from __future__ import annotations

import contextlib
import datetime
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.results import FAIL
from ppaux_lint.runtime.roundtrip import Outcome, Shipment


def check_sendable(stage: dict[str, Any]) -> None:
    for key, value in stage.items():
        if torch.is_tensor(value) and not value.is_contiguous():
            raise Outcome(
                FAIL,
                f"the tensor under {key!r} is not contiguous: torch.distributed.send refuses it "
                "(gloo: 'input tensor has to be contiguous'), and SGLang does not make it contiguous; "
                "return .contiguous() tensors from to_pp_tensors",
            )


def local_transfer(stage: dict[str, Any], device: torch.device) -> dict[str, Any]:
    """Deliver ``stage`` on ``device`` as new buffers, within this process."""
    check_sendable(stage)
    received: dict[str, Any] = {}
    for key, value in stage.items():
        if torch.is_tensor(value):
            buffer = torch.empty(value.shape, dtype=value.dtype, device=device)
            if buffer.numel():
                buffer.copy_(value.detach())
            received[key] = buffer
        else:
            received[key] = value
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return received


@dataclass(frozen=True)
class WireTensor:
    """A tensor's entry in the metadata message: the receiver allocates it on its own device, as SGLang's does."""

    dtype: torch.dtype
    shape: tuple[int, ...]


def backend_for(device: torch.device) -> str:
    """NCCL needs a CUDA device per rank; otherwise gloo, staging CUDA tensors through the host."""
    if device.type == "cuda" and torch.cuda.device_count() >= 2:
        return "nccl"
    return "gloo"


def sender_device(device: torch.device, backend: str) -> torch.device:
    """The sending rank's device: the target itself, or with NCCL another GPU."""
    if backend != "nccl":
        return device
    index = device.index if device.index is not None else torch.cuda.current_device()
    return torch.device("cuda", (index + 1) % torch.cuda.device_count())


def loopback_env() -> dict[str, str]:
    """Pin gloo's and NCCL's sockets to the loopback interface, so no traffic leaves the machine."""
    names = [name for _, name in socket.if_nameindex()] if hasattr(socket, "if_nameindex") else []
    loopback = next((n for n in names if n in ("lo", "lo0")), None)
    if loopback is None:
        return {}
    return {"GLOO_SOCKET_IFNAME": loopback, "NCCL_SOCKET_IFNAME": loopback}


def join(store: dist.Store, rank: int, backend: str, timeout: float) -> None:
    dist.init_process_group(
        backend, store=store, rank=rank, world_size=2, timeout=datetime.timedelta(seconds=max(timeout, 1.0))
    )


def send_stage(stage: dict[str, Any], shipment: Shipment, backend: str, peer: int = 1) -> None:
    """Rank 0: metadata, then each non-empty tensor, then what the receiver judges against, to rank ``peer``."""
    check_sendable(stage)
    metadata = [
        (key, WireTensor(value.dtype, tuple(value.shape)) if torch.is_tensor(value) else value)
        for key, value in stage.items()
    ]
    dist.send_object_list([metadata], dst=peer)
    for value in stage.values():
        if torch.is_tensor(value) and value.numel():
            dist.send(_wire(value.detach(), backend), dst=peer)
    dist.send_object_list([shipment.to_cpu()], dst=peer)


def receive_stage(device: torch.device, backend: str, peer: int = 0) -> tuple[dict[str, Any], Shipment]:
    """Rank 1: the counterpart of ``send_stage``, from rank ``peer``; tensors land as new buffers on ``device``."""
    box: list[Any] = [None]
    dist.recv_object_list(box, src=peer)
    received: dict[str, Any] = {}
    for key, meta in box[0]:
        if not isinstance(meta, WireTensor):
            received[key] = meta
            continue
        buffer = torch.empty(meta.shape, dtype=meta.dtype, device=device)
        if buffer.numel():
            wire = buffer if backend == "nccl" else torch.empty(meta.shape, dtype=meta.dtype)
            dist.recv(wire, src=peer)
            if wire is not buffer:
                buffer.copy_(wire)
        received[key] = buffer
    dist.recv_object_list(box, src=peer)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return received, box[0]


class Link:
    """Two ranks exchanging in lockstep (a gloo send waits for its receive): once an operation on the link
    raised, the two may be out of step, so the link is ``broken`` and nobody may wait on it again."""

    broken = False

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """A transport operation, which breaks the link if it raises."""
        try:
            yield
        except BaseException:
            self.broken = True
            raise


def _wire(tensor: torch.Tensor, backend: str) -> torch.Tensor:
    return tensor if backend == "nccl" or tensor.device.type == "cpu" else tensor.cpu()
