"""Device outputs. Each one inherits SGLang's Protocols explicitly and sends its fields as they are."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer_pp import PipelineParallelAuxiliaryOutput

from topk_insights.host import PerRequestHost


@dataclass
class TopKOutput(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    values: torch.Tensor  # [batch, k] logprobs
    indices: torch.Tensor  # [batch, k] token ids

    def copy_to_host(self, copy_tensor: Callable[[torch.Tensor], torch.Tensor]) -> PerRequestHost:
        return PerRequestHost({"topk_logprobs": copy_tensor(self.values), "topk_ids": copy_tensor(self.indices)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"values": self.values, "indices": self.indices}


@dataclass
class BestTokenOutput(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    best_id: torch.Tensor  # [batch]
    best_logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor: Callable[[torch.Tensor], torch.Tensor]) -> PerRequestHost:
        return PerRequestHost({"best_id": copy_tensor(self.best_id), "best_logprob": copy_tensor(self.best_logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"best_id": self.best_id, "best_logprob": self.best_logprob}


@dataclass
class SpecialTokenOutput(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    logprobs: torch.Tensor  # [batch, 2]: logprobs of token ids 0 (bos) and 1 (eos)

    def copy_to_host(self, copy_tensor: Callable[[torch.Tensor], torch.Tensor]) -> PerRequestHost:
        return PerRequestHost({"special_logprobs": copy_tensor(self.logprobs)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"logprobs": self.logprobs}


@dataclass
class HeadOutput(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    head_ids: torch.Tensor  # [batch, 1]
    chosen_logprob: torch.Tensor  # [batch, 1]

    def copy_to_host(self, copy_tensor: Callable[[torch.Tensor], torch.Tensor]) -> PerRequestHost:
        return PerRequestHost({"head_ids": copy_tensor(self.head_ids), "chosen_logprob": copy_tensor(self.chosen_logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"head_ids": self.head_ids, "chosen_logprob": self.chosen_logprob}
