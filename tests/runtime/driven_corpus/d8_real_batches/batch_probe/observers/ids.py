from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from batch_probe.observers._base import LogprobHooks
from batch_probe.outputs import CompactIdsOutput, Int32IdsOutput, ShortIdsOutput


def _chosen(state: torch.Tensor, token_ids: torch.Tensor) -> torch.Tensor:
    return state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1)


class CompactIdsObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> CompactIdsOutput:
        return CompactIdsOutput(token_ids.to(torch.int32), _chosen(state, token_ids))

    def from_pp_tensors(self, tensors) -> CompactIdsOutput:
        return CompactIdsOutput(tensors["token_ids"].to(torch.int32), tensors["logprob"])


class ShortIdsObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> ShortIdsOutput:
        return ShortIdsOutput(token_ids.to(torch.int32))

    def from_pp_tensors(self, tensors) -> ShortIdsOutput:
        return ShortIdsOutput(tensors["token_ids"].to(torch.int16))


class Int32IdsObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> Int32IdsOutput:
        return Int32IdsOutput(token_ids.to(torch.int32))

    def from_pp_tensors(self, tensors) -> Int32IdsOutput:
        return Int32IdsOutput(tensors["token_ids"])
