"""Device outputs. Several share one transport function, attached below the classes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from attachkit.hosts import RowHost


@dataclass
class ProbsOutput(DeviceAuxiliaryOutput):
    probs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("probs", probs=copy_tensor(self.probs))


@dataclass
class CountOutput(DeviceAuxiliaryOutput):
    count: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("count", count=copy_tensor(self.count))


@dataclass
class TopNormOutput(DeviceAuxiliaryOutput):
    norm: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("top_norm", norm=copy_tensor(self.norm))


@dataclass
class FullNormOutput(DeviceAuxiliaryOutput):
    norm: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("full_norm", norm=copy_tensor(self.norm))


@dataclass
class GapOutput(DeviceAuxiliaryOutput):
    gap: Optional[torch.Tensor]

    def copy_to_host(self, copy_tensor):
        return RowHost("gap") if self.gap is None else RowHost("gap", gap=copy_tensor(self.gap))


@dataclass
class ChosenOutput(DeviceAuxiliaryOutput):
    chosen: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("chosen", chosen=copy_tensor(self.chosen))


@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("topk", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs}


class LiveOutput(DeviceAuxiliaryOutput):
    """Top-2 ids and logprobs; both are None on greedy batches, where they say nothing."""

    def __init__(self, ids: Optional[torch.Tensor] = None, logprobs: Optional[torch.Tensor] = None):
        self.ids = ids
        self.logprobs = logprobs

    def _live(self):
        return {name: value for name, value in (("ids", self.ids), ("logprobs", self.logprobs)) if value is not None}

    def copy_to_host(self, copy_tensor):
        return RowHost("live", **{k: copy_tensor(v) for k, v in self._live().items()})

    def to_pp_tensors(self):
        return self._live() or {}


class MaskedOutput(DeviceAuxiliaryOutput):
    """Sampled ids, and the rows a grammar constrained when there were any."""

    def __init__(self, ids: torch.Tensor, mask: Optional[torch.Tensor] = None):
        self.ids = ids
        self.mask = mask

    def copy_to_host(self, copy_tensor):
        host = {"ids": copy_tensor(self.ids)}
        if self.mask is not None:
            host["mask"] = copy_tensor(self.mask)
        return RowHost("masked", **host)

    def to_pp_tensors(self):
        return {"ids": self.ids} if self.mask is None else {"ids": self.ids, "mask": self.mask}


class SpanOutput(DeviceAuxiliaryOutput):
    """Where the current top-p nucleus starts and ends; no end on greedy batches."""

    def __init__(self, start: torch.Tensor, end: Optional[torch.Tensor]):
        self.start = start
        self.end = end

    def copy_to_host(self, copy_tensor):
        if self.end is None:
            return RowHost("span", start=copy_tensor(self.start))
        return RowHost("span", start=copy_tensor(self.start), end=copy_tensor(self.end))

    def to_pp_tensors(self):
        return {"start": self.start, "end": self.end} if self.end is not None else {}


class PackedOutput(DeviceAuxiliaryOutput):
    """Chosen logprobs of the last steps, packed and shipped every FLUSH_EVERY steps."""

    FLUSH_EVERY = 4

    def __init__(self, rows: list, step: int):
        self.rows = rows
        self.step = step

    def _pack(self):
        if self.step % self.FLUSH_EVERY:
            return None
        return {"packed": torch.cat(self.rows)}

    def copy_to_host(self, copy_tensor):
        return RowHost("packed", packed=copy_tensor(torch.cat(self.rows)))

    def to_pp_tensors(self):
        return self._pack()


class BundleOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids: torch.Tensor, logprobs: torch.Tensor):
        self.ids = ids
        self.logprobs = logprobs

    def _pack(self):
        return {"ids": self.ids, "logprobs": self.logprobs.float()}

    def copy_to_host(self, copy_tensor):
        return RowHost("bundle", **{k: copy_tensor(v) for k, v in self._pack().items()})

    def to_pp_tensors(self):
        return self._pack()


def _transport_methods(*names):
    """The methods a class body can take in with ``vars().update(...)``."""

    def to_pp_tensors(self):
        return {name: getattr(self, name) for name in names}

    return {"to_pp_tensors": to_pp_tensors}


class BiasOutput(DeviceAuxiliaryOutput):
    vars().update(_transport_methods("bias"))

    def __init__(self, bias: torch.Tensor):
        self.bias = bias

    def copy_to_host(self, copy_tensor):
        return RowHost("bias", bias=copy_tensor(self.bias))


class WindowOutput(DeviceAuxiliaryOutput):
    def __init__(self, window: torch.Tensor):
        self.window = window

    def copy_to_host(self, copy_tensor):
        return RowHost("window", window=copy_tensor(self.window))


# Transport, attached once the classes exist --------------------------------------------------------------


def _probs_tensors(self):
    return {"probs": self.probs}


ProbsOutput.to_pp_tensors = _probs_tensors
CountOutput.to_pp_tensors = lambda self: {"count": self.count}


def _norm_tensors(self):
    return {"norm": self.norm}


for _cls in (TopNormOutput, FullNormOutput):
    _cls.to_pp_tensors = _norm_tensors


def _gap_tensors(self):
    if self.gap is None:
        return None
    return {"gap": self.gap}


GapOutput.to_pp_tensors = _gap_tensors
ChosenOutput.to_pp_tensors = lambda self: {"chosen_id": self.chosen}


def install_transport(cls, direction, fn):
    """Attach ``fn`` as ``cls.to_pp_tensors`` (direction "to") or ``cls.from_pp_tensors`` ("from")."""
    setattr(cls, f"{direction}_pp_tensors", fn)


def _window_tensors(self):
    return {"window": self.window}


install_transport(WindowOutput, "to", _window_tensors)
