"""Real gloo ranks that send strided views the way SGLang's PP stages do, for test_send_rule.py.

Two PP stages of ``attn_tp_size`` ranks each (2 or 4 processes): stage 0's attention-TP rank r sends to
stage 1's rank r with ``torch.distributed.send`` or ``isend``, a tensor whose numel divides by the size as
its row r of ``reshape(attn_tp_size, -1)`` and any other whole; stage 1 receives into the matching row of a
fresh buffer, all-gathers the rows over its own attention-TP group and reshapes them back. This is written
from the behaviour the contract describes, independently of ``ppaux_lint.runtime.sending.transport``, so that the
test can hold that module's rule against what torch really refuses. Nothing here is collected by pytest.
"""

from __future__ import annotations

import datetime
import os
from typing import Any

import torch
import torch.distributed as dist

OPS = ("send", "isend")
STARTUP = "cannot start"


def views() -> dict[str, torch.Tensor]:
    """The tensors sent: views that SGLang's reshape copies, views it keeps, odd and even numels, empties."""
    x = torch.arange(12.0).reshape(4, 3)
    table = torch.arange(24.0).reshape(4, 3, 2)
    return {
        "x.t()": x.t(),
        "x[:, :2]": x[:, :2],
        "x[:, 0]": x[:, 0],
        "x[:, :1]": x[:, :1],
        "table[..., 0]": table[..., 0],
        "x[::2]": x[::2],
        "odd 3x3 .t()": torch.arange(9.0).reshape(3, 3).t(),
        "even 4x4 .t()": torch.arange(16.0).reshape(4, 4).t(),
        "2x2 .t()": torch.arange(4.0).reshape(2, 2).t(),  # even numel, yet its rows stay strided at size 2
        "odd column [:, :1]": torch.arange(15.0).reshape(5, 3)[:, :1],
        "x[:0]": x[:0],
        "empty .t()": torch.ones(0, 3).t(),
    }


def run_rank(rank: int, world: int, port: int, env: dict[str, str], results: Any) -> None:
    """One process of the run: put ``(rank, outcomes)`` on ``results``, or ``(rank, STARTUP, why)``."""
    os.environ.update(env)
    attn_tp_size = world // 2
    try:
        store = dist.TCPStore("127.0.0.1", port, world, is_master=False, timeout=datetime.timedelta(seconds=10))
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=10))
    except Exception as exc:  # noqa: BLE001 - the test skips, naming why
        results.put((rank, STARTUP, f"{type(exc).__name__}: {exc}"))
        return
    try:
        stage, tp_rank = divmod(rank, attn_tp_size)
        # every rank takes part in making every group, as torch requires
        groups = [dist.new_group(list(range(s * attn_tp_size, (s + 1) * attn_tp_size))) for s in (0, 1)]
        act = _send if stage == 0 else _receive
        outcomes = {(name, op): act(view, op, rank, attn_tp_size, tp_rank, groups[1])
                    for name, view in views().items() for op in OPS}
        results.put((rank, outcomes))
    finally:
        dist.destroy_process_group()


def _row(tensor: torch.Tensor, attn_tp_size: int, tp_rank: int) -> torch.Tensor:
    return tensor.reshape(attn_tp_size, -1)[tp_rank] if tensor.numel() % attn_tp_size == 0 else tensor


def _send(view: torch.Tensor, op: str, rank: int, attn_tp_size: int, tp_rank: int, group: Any) -> str | None:
    """Send this rank's piece; None when torch took it, else its refusal, after which the piece goes again
    made contiguous so that the receiver, already waiting for it, stays in step."""
    if view.numel() == 0:
        return None
    piece = _row(view, attn_tp_size, tp_rank)
    peer = rank + attn_tp_size
    try:
        if op == "send":
            dist.send(piece, dst=peer)
        else:
            dist.isend(piece, dst=peer).wait()
    except RuntimeError as exc:
        dist.send(piece.contiguous(), dst=peer)
        return str(exc).splitlines()[0]
    return None


def _receive(view: torch.Tensor, op: str, rank: int, attn_tp_size: int, tp_rank: int, group: Any) -> bool:
    """Receive this rank's piece, gather the stage's pieces, and say whether the whole tensor arrived."""
    received = torch.empty(view.shape, dtype=view.dtype)
    if view.numel():
        gathered = view.numel() % attn_tp_size == 0
        piece = _row(received, attn_tp_size, tp_rank)
        dist.recv(piece, src=rank - attn_tp_size)
        if gathered:
            rows = [torch.empty_like(piece) for _ in range(attn_tp_size)]
            dist.all_gather(rows, piece, group=group)
            received = torch.cat(rows).reshape(view.shape)
    return received.is_contiguous() and torch.equal(received, view)
