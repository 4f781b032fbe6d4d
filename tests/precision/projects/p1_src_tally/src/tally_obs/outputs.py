"""Device-side outputs and their host copies."""

from __future__ import annotations

from dataclasses import dataclass, field

import attr
import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class TensorHost:
    """What every output here turns into on the host: named CPU tensors attached to each request."""

    tensors: dict = field(default_factory=dict)
    attribute: str = "tally"

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is None:
                continue
            setattr(batch.reqs[row], self.attribute, {k: v[row] for k, v in self.tensors.items()})


@dataclass
class EntropyOutput(DeviceAuxiliaryOutput):
    entropy: torch.Tensor

    @classmethod
    def from_logprobs(cls, logprobs: torch.Tensor) -> "EntropyOutput":
        return cls(entropy=-(logprobs.exp() * logprobs).sum(dim=-1))

    def copy_to_host(self, copy_tensor):
        return TensorHost({"entropy": copy_tensor(self.entropy)}, "entropy")

    def to_pp_tensors(self):
        return {"entropy": self.entropy}


@dataclass
class RowStatsOutput(DeviceAuxiliaryOutput):
    """Mean and variance of each row of log-probabilities."""

    mean: torch.Tensor
    var: torch.Tensor

    @classmethod
    def from_rows(cls, rows: torch.Tensor) -> "RowStatsOutput":
        finite = rows.masked_fill(~torch.isfinite(rows), 0.0)
        return cls(mean=finite.mean(dim=-1), var=finite.var(dim=-1))

    def copy_to_host(self, copy_tensor):
        return TensorHost({"mean": copy_tensor(self.mean), "var": copy_tensor(self.var)}, "row_stats")


@attr.s(auto_attribs=True, frozen=True)
class MarginOutput:
    """Gap between the two best log-probabilities. ``gap`` counts the rows with a tie."""

    margin: torch.Tensor
    gap: int = 0

    def copy_to_host(self, copy_tensor):
        return TensorHost({"margin": copy_tensor(self.margin)}, "margin")

    def to_pp_tensors(self):
        return {"margin": self.margin, "gap": self.gap}


@attr.define
class TopKOutput:
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TensorHost({"ids": copy_tensor(self.ids), "logprobs": copy_tensor(self.logprobs)}, "top_k")

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs}


class HistogramOutput(DeviceAuxiliaryOutput):
    def __init__(self, counts: torch.Tensor):
        self.counts = counts

    def copy_to_host(self, copy_tensor):
        return TensorHost({"counts": copy_tensor(self.counts)}, "histogram")


@dataclass
class LengthOutput(DeviceAuxiliaryOutput):
    lengths: torch.Tensor
    mask: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TensorHost({"lengths": copy_tensor(self.lengths), "mask": copy_tensor(self.mask)}, "lengths")

    def to_pp_tensors(self):
        return {"lengths": self.lengths, "mask": self.mask}
