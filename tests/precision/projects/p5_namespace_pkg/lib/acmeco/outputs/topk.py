from __future__ import annotations

from dataclasses import dataclass

import torch
from acmeco.outputs.base import RowOutput
from acmeco.shared.host import RowsHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class ChosenLogprob(RowOutput):
    attribute = "chosen_logprob"


class RankOutput(RowOutput):
    attribute = "rank"


@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor
    k: int

    def copy_to_host(self, copy_tensor):
        return RowsHost("top_k", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs, "k": torch.tensor(self.k)}


@dataclass
class DraftOutput(DeviceAuxiliaryOutput):
    draft_ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowsHost("draft", draft_ids=copy_tensor(self.draft_ids))

    def to_pp_tensors(self):
        return {"draft_ids": self.draft_ids.tolist()}


@dataclass
class SurpriseOutput(DeviceAuxiliaryOutput):
    surprise: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowsHost("surprise", surprise=copy_tensor(self.surprise))
