"""Moving a stage's tensor dict from the sending stage to the receiving one, as SGLang's scheduler does.

SGLang sends the dict with ``send_tensor_dict(..., all_gather_group=attn_tp_group)``, between stages whose
attention-TP groups have ``attn_tp_size`` ranks (1 included: the scheduler always passes the group). The
metadata goes first (each tensor's dtype and shape; the receiver allocates on its own device), then each
tensor: an empty one is not sent, and the receiver keeps ``torch.empty`` of its shape; one whose numel
divides by the size crosses as ``tensor.reshape(attn_tp_size, -1)[rank]`` from every attention-TP rank, and
the receiving group all-gathers the rows and reshapes them back; any other crosses whole, every receiving
rank getting all of it from its counterpart. ``torch.distributed.send`` refuses a non-contiguous tensor, and
nothing on the way makes one contiguous. So the reshape decides: it copies a view whose elements do not fit
evenly strided rows (at size 1, ``x.t()`` and ``x[:, :2]``), which then arrives, and keeps one whose elements
do (``x[:, 0]``, ``table[..., 0]``), which is refused; at attention-TP size 2 a tensor of odd numel is sent
whole, so a view that the reshape would have copied is refused then. ``pack`` asks torch's own reshape, never
stride arithmetic of its own, and refuses before anything is sent. tests/runtime/test_send_rule.py holds the
rule against real gloo groups.

What arrives is fresh contiguous buffers on the receiving device, so an observer that relies on aliasing the
sender's memory, on strides, or on tensor subclasses fails here as it would between real stages.

``local`` moves the pieces inside one process. ``dist`` runs two ranks of ``torch.distributed`` (gloo, or
NCCL when two CUDA devices exist), the sending rank sending every attention-TP rank's pieces over the wire
and the receiving rank gathering them: metadata first, then the pieces, as SGLang does.
"""

from __future__ import annotations

import contextlib
import datetime
import socket
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist

from ppaux_lint.runtime.sending.roundtrip import Outcome, Shipment
from ppaux_lint.runtime.terms.results import FAIL
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class WireTensor:
    """A tensor's entry in the metadata message: the receiver allocates it on its own device, as SGLang's does."""

    dtype: torch.dtype
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Parcel:
    """A stage dict as the sending stage's attention-TP ranks put it on the wire (see ``pack``)."""

    metadata: list[tuple[str, Any]]  # in the dict's order: each key with a ``WireTensor``, or its plain value
    pieces: dict[str, tuple[torch.Tensor, ...]]  # each tensor's pieces, in the order they are sent
    attn_tp_size: int


def pack(stage: dict[str, Any], attn_tp_size: int = 1) -> Parcel:
    """``stage`` cut as SGLang's ``send_tensor_dict`` cuts it at ``attn_tp_size``; a ``FAIL`` for the first
    tensor that ``torch.distributed.send`` would refuse, raised before anything is sent so that the two ranks
    stay in step."""
    metadata: list[tuple[str, Any]] = []
    pieces: dict[str, tuple[torch.Tensor, ...]] = {}
    for key, value in stage.items():
        if not torch.is_tensor(value):
            metadata.append((key, value))
            continue
        metadata.append((key, WireTensor(value.dtype, tuple(value.shape))))
        pieces[key] = split(value.detach(), attn_tp_size)
        _refuse_non_contiguous(key, value, pieces[key], attn_tp_size)
    return Parcel(metadata, pieces, attn_tp_size)


def split(tensor: torch.Tensor, attn_tp_size: int) -> tuple[torch.Tensor, ...]:
    """What the sending stage puts on the wire for ``tensor``: nothing when it is empty; when its numel divides
    by ``attn_tp_size``, rank r's ``tensor.reshape(attn_tp_size, -1)[r]`` for every rank; else the whole
    tensor, which every rank sends to its counterpart, so one copy stands for them all."""
    if tensor.numel() == 0:
        return ()
    if tensor.numel() % attn_tp_size:
        return (tensor,)
    rows = tensor.reshape(attn_tp_size, -1)
    return tuple(rows[rank] for rank in range(attn_tp_size))


def _refuse_non_contiguous(key: str, tensor: torch.Tensor, pieces: tuple[torch.Tensor, ...],
                           attn_tp_size: int) -> None:
    """Fail on a piece that ``torch.distributed.send`` refuses, naming how SGLang came to send it."""
    piece = next((p for p in pieces if not p.is_contiguous()), None)
    if piece is None:
        return
    what = f"the tensor under {key!r} (shape {list(tensor.shape)}, strides {tensor.stride()})"
    if tensor.numel() % attn_tp_size:
        how = (f"is sent whole by SGLang's send_tensor_dict at attention-TP size {attn_tp_size}, because its "
               f"numel {tensor.numel()} does not divide by {attn_tp_size}, and it is not contiguous")
    else:
        how = (f"is sent as tensor.reshape({attn_tp_size}, -1)[rank] by SGLang's send_tensor_dict at "
               f"attention-TP size {attn_tp_size}, which keeps a non-contiguous view (shape "
               f"{list(piece.shape)}, strides {piece.stride()})")
    raise Outcome(FAIL, f"{what} {how}; torch.distributed.send refuses it (gloo: 'input tensor has to be "
                        "contiguous'); return .contiguous() tensors from to_pp_tensors")


def local_transfer(stage: dict[str, Any], device: torch.device, attn_tp_size: int = 1) -> dict[str, Any]:
    """Deliver ``stage`` on ``device`` as new buffers, within this process: each piece ``pack`` cuts lands in a
    buffer of its own, and the pieces are gathered as the receiving stage gathers them."""
    parcel = pack(stage, attn_tp_size)
    received: dict[str, Any] = {}
    for key, meta in parcel.metadata:
        if isinstance(meta, WireTensor):
            received[key] = _assemble([_landed(piece, device) for piece in parcel.pieces[key]], meta, device)
        else:
            received[key] = meta
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return received


def _landed(piece: torch.Tensor, device: torch.device) -> torch.Tensor:
    return torch.empty(piece.shape, dtype=piece.dtype, device=device).copy_(piece)


def _piece_shapes(meta: WireTensor, attn_tp_size: int) -> list[torch.Size]:
    """The shapes of the pieces a tensor like ``meta`` crosses in, which the receiver knows from the metadata
    alone: ``split`` of a tensor on the meta device, which has a shape and no data."""
    return [piece.shape for piece in split(torch.empty(meta.shape, dtype=meta.dtype, device="meta"), attn_tp_size)]


def _assemble(pieces: list[torch.Tensor], meta: WireTensor, device: torch.device) -> torch.Tensor:
    """The received tensor: ``torch.empty`` of its shape when nothing was sent, else its pieces gathered along
    dim 0 (as the receiving attention-TP group all-gathers its rows) and reshaped to the shape sent."""
    if not pieces:
        return torch.empty(meta.shape, dtype=meta.dtype, device=device)
    gathered = torch.cat(pieces) if len(pieces) > 1 else pieces[0]
    return gathered.reshape(meta.shape)


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


def send_stage(parcel: Parcel, shipment: Shipment, backend: str, peer: int = 1) -> None:
    """Rank 0: the metadata (with the attention-TP size the pieces were cut for), then every piece of every
    attention-TP rank, then what the receiver judges against, to rank ``peer``."""
    dist.send_object_list([parcel.metadata, parcel.attn_tp_size], dst=peer)
    for pieces in parcel.pieces.values():
        for piece in pieces:
            dist.send(_wire(piece, backend), dst=peer)
    dist.send_object_list([shipment.to_cpu()], dst=peer)


def receive_stage(device: torch.device, backend: str, peer: int = 0) -> tuple[dict[str, Any], Shipment]:
    """Rank 1: the counterpart of ``send_stage``, from rank ``peer``; tensors land as new buffers on ``device``,
    each gathered from its pieces."""
    header: list[Any] = [None, None]
    dist.recv_object_list(header, src=peer)
    metadata, attn_tp_size = header
    received: dict[str, Any] = {}
    for key, meta in metadata:
        if isinstance(meta, WireTensor):
            pieces = [_receive_piece(shape, meta.dtype, device, backend, peer)
                      for shape in _piece_shapes(meta, attn_tp_size)]
            received[key] = _assemble(pieces, meta, device)
        else:
            received[key] = meta
    box: list[Any] = [None]
    dist.recv_object_list(box, src=peer)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return received, box[0]


def _receive_piece(shape: torch.Size, dtype: torch.dtype, device: torch.device, backend: str,
                   peer: int) -> torch.Tensor:
    """One piece off the wire, into a new buffer on ``device`` (through the host when gloo carries CUDA)."""
    buffer = torch.empty(shape, dtype=dtype, device=device)
    wire = buffer if backend == "nccl" or device.type == "cpu" else torch.empty(shape, dtype=dtype)
    dist.recv(wire, src=peer)
    return buffer if wire is buffer else buffer.copy_(wire)


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
