from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver
from sglang.srt.sampling.sampling_observer_pp import PipelineParallelSamplingObserver


@dataclass
class EntropyHost:
    entropy: torch.Tensor

    def consume(self, batch, commits) -> None:
        for req, commit, value in zip(batch.reqs, commits, self.entropy.tolist()):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault("entropy", []).append(value)


@dataclass
class EntropyOutput(DeviceAuxiliaryOutput):
    entropy: torch.Tensor

    def copy_to_host(self, copy_tensor) -> EntropyHost:
        return EntropyHost(copy_tensor(self.entropy))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"entropy": self.entropy}


class EntropyObserver(SamplingObserver, PipelineParallelSamplingObserver):
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> EntropyOutput:
        return EntropyOutput(-(state.exp() * state).sum(dim=-1))

    def from_pp_tensors(self, tensors) -> EntropyOutput:
        return EntropyOutput(tensors["entropy"])


class TemperedEntropyObserver(EntropyObserver):
    """Entropy of the distribution actually sampled from (temperatures are [batch, 1])."""

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float() / sampling_info.temperatures, dim=-1)
