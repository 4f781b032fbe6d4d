"""Device outputs. Transport comes from the vendored ppfields, or from functions attached below."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from tapkit._vendor.ppfields import Scalar, sends, tensors_of
from tapkit.hosts import TapHost


@sends("probs", "ids")
@dataclass
class NucleusOutput(DeviceAuxiliaryOutput):
    probs: torch.Tensor
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TapHost("nucleus", probs=copy_tensor(self.probs), ids=copy_tensor(self.ids))


@dataclass
class CandidatesOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TapHost("candidates", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))


CandidatesOutput.to_pp_tensors = tensors_of("ids", "logprobs")


@dataclass
class MinPOutput(DeviceAuxiliaryOutput):
    threshold: Optional[torch.Tensor]

    def copy_to_host(self, copy_tensor):
        return TapHost("min_p") if self.threshold is None else TapHost("min_p", threshold=copy_tensor(self.threshold))


@dataclass
class TopPOutput(DeviceAuxiliaryOutput):
    threshold: Optional[torch.Tensor]

    def copy_to_host(self, copy_tensor):
        return TapHost("top_p") if self.threshold is None else TapHost("top_p", threshold=copy_tensor(self.threshold))


def _threshold_tensors(self):
    if self.threshold is None:
        return {}
    return {"threshold": self.threshold}


for _cls in (MinPOutput, TopPOutput):
    _cls.to_pp_tensors = _threshold_tensors


@dataclass
class ExtrasOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    extras: dict = field(default_factory=dict)

    def extra_tensors(self):
        if not self.extras:
            return {}
        return {"ids": self.ids, **{f"extra.{name}": value for name, value in self.extras.items()}}

    def copy_to_host(self, copy_tensor):
        return TapHost("extras", **{k: copy_tensor(v) for k, v in self.to_pp_tensors().items()})

    def to_pp_tensors(self):
        return self.extra_tensors() or {"ids": self.ids}


@dataclass
class LensOutput(DeviceAuxiliaryOutput):
    KEY = "lens"

    lens: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TapHost(self.KEY, lens=copy_tensor(self.lens))

    def to_pp_tensors(self):
        return {self.KEY: self.lens}


@dataclass
class WarmOutput(DeviceAuxiliaryOutput):
    scores: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TapHost("warm", scores=copy_tensor(self.scores))

    def to_pp_tensors(self):
        return {"scores": self.scores}


@dataclass
class CountStat(Scalar[int]):
    """How many candidates are within 1 nat of the best, over the whole batch."""


@dataclass
class EntropyStat(Scalar[torch.Tensor]):
    """Per-row entropy."""
