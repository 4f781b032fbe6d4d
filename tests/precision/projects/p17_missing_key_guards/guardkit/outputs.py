"""The outputs: one that always sends its ids, one whose scores are optional, one that always sends a pair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class IdsOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return IdsOutput(copy_tensor(self.ids))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"ids": self.ids}


@dataclass
class ScoredOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    scores: Optional[torch.Tensor] = None

    def copy_to_host(self, copy_tensor):
        scores = copy_tensor(self.scores) if self.scores is not None else None
        return ScoredOutput(copy_tensor(self.ids), scores)

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        sent = {"ids": self.ids}
        if self.scores is not None:
            sent["scores"] = self.scores
        return sent


@dataclass
class PairOutput(DeviceAuxiliaryOutput):
    first: torch.Tensor
    second: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return PairOutput(copy_tensor(self.first), copy_tensor(self.second))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"first": self.first, "second": self.second}
