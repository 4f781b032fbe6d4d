"""A step report is made of parts; only the report crosses a stage, flattened into one dict."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from kvstats.hosts import CompositeHost, RowHost


@dataclass
class TopPart(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("top", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))


@dataclass
class EntropyPart(DeviceAuxiliaryOutput):
    value: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("entropy", value=copy_tensor(self.value))


@dataclass
class StepReport(DeviceAuxiliaryOutput):
    top: TopPart
    entropy: EntropyPart

    def copy_to_host(self, copy_tensor):
        return CompositeHost(self.top.copy_to_host(copy_tensor), self.entropy.copy_to_host(copy_tensor))

    def to_pp_tensors(self):
        return {"top.ids": self.top.ids, "top.logprobs": self.top.logprobs, "entropy.value": self.entropy.value}


@dataclass
class GapPart(DeviceAuxiliaryOutput):
    gaps: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("gaps", gaps=copy_tensor(self.gaps))


@dataclass
class RowReport(DeviceAuxiliaryOutput):
    chosen: torch.Tensor
    detail: GapPart

    def copy_to_host(self, copy_tensor):
        return CompositeHost(RowHost("row", chosen=copy_tensor(self.chosen)), self.detail.copy_to_host(copy_tensor))

    def to_pp_tensors(self):
        return {"chosen": self.chosen, "detail": self.detail}
