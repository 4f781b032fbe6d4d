from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class Host:
    def __init__(self, **tensors):
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].route = {k: v[row] for k, v in self.tensors.items()}


# Forward captures: a base used as the return annotation of a forward observer ---------------------------


@dataclass
class CaptureBase(DeviceAuxiliaryOutput):
    values: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(values=copy_tensor(self.values))


@dataclass
class HiddenCapture(CaptureBase):
    pass


@dataclass
class AttnCapture(CaptureBase):
    num_heads: int = 0


def capture_hidden(logits_output) -> HiddenCapture:
    return HiddenCapture(logits_output.hidden_states)


def capture_attention(logits_output) -> AttnCapture:
    return AttnCapture(logits_output.hidden_states.mean(dim=-1), num_heads=1)


# Built through chains of project functions ----------------------------------------------------------------


@dataclass
class StatsOutput(DeviceAuxiliaryOutput):
    mean: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(mean=copy_tensor(self.mean))


@dataclass
class SampledStatsOutput(DeviceAuxiliaryOutput):
    maximum: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(maximum=copy_tensor(self.maximum))


@dataclass
class ScoreOutput(DeviceAuxiliaryOutput):
    score: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(score=copy_tensor(self.score))


@dataclass
class EarlyOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor

    @classmethod
    def empty_like(cls, token_ids: torch.Tensor) -> "EarlyOutput":
        return cls(ids=token_ids.new_empty((0,)))

    def copy_to_host(self, copy_tensor):
        return Host(ids=copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"ids": self.ids}


# Mappings built step by step ------------------------------------------------------------------------------


@dataclass
class StepwiseOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor
    count: int

    def copy_to_host(self, copy_tensor):
        return Host(ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        out = {}
        out["ids"] = self.ids
        out.update({"logprobs": self.logprobs})
        out["count"] = self.count
        return out


@dataclass
class StepwiseOkOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    mask: Optional[torch.Tensor] = None

    def copy_to_host(self, copy_tensor):
        return Host(ids=copy_tensor(self.ids))

    def to_pp_tensors(self):
        out = {"ids": self.ids}
        if self.mask is not None:
            out["mask"] = self.mask
        return out


class LoopOutput(DeviceAuxiliaryOutput):
    def __init__(self, starts: torch.Tensor, ends: torch.Tensor):
        self.starts = starts
        self.ends = ends

    def copy_to_host(self, copy_tensor):
        return Host(starts=copy_tensor(self.starts), ends=copy_tensor(self.ends))

    def to_pp_tensors(self):
        tensors = {}
        for name in ("starts", "ends"):
            tensors[name] = getattr(self, name)
        return tensors


class InitListOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids: torch.Tensor, lengths: list[torch.Tensor]):
        self.ids = ids
        self.lengths = lengths

    def copy_to_host(self, copy_tensor):
        return Host(ids=copy_tensor(self.ids), lengths=torch.stack([copy_tensor(t) for t in self.lengths]))

    def to_pp_tensors(self):
        return {"ids": self.ids, "lengths": self.lengths}
