from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from edge_probe.observers._base import LogprobHooks
from edge_probe.outputs import ChosenOutput, FirstOutput, FlaggedOutput


class FlaggedObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> FlaggedOutput:
        chosen = state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        invalid = token_ids[(token_ids < 0) | (token_ids >= state.shape[-1])]
        return FlaggedOutput(chosen, invalid)

    def from_pp_tensors(self, tensors) -> FlaggedOutput:
        return FlaggedOutput(tensors["chosen_logprob"], tensors["invalid_ids"])


class ConsumeSqueezeObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> ChosenOutput:
        return ChosenOutput(state.gather(1, token_ids.view(-1, 1)).squeeze())

    def from_pp_tensors(self, tensors) -> ChosenOutput:
        return ChosenOutput(tensors["chosen_logprob"])


class ContiguousFirstObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> FirstOutput:
        top = state.topk(2, dim=-1)
        return FirstOutput(top.indices[:, 0].contiguous())

    def from_pp_tensors(self, tensors) -> FirstOutput:
        return FirstOutput(tensors["first_id"])
