from __future__ import annotations

import time

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from edge_probe.observers._base import LogprobHooks
from edge_probe.outputs import EntropyOutput, TimestampOutput, TopKOutput


class TimestampObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> TimestampOutput:
        chosen = state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        return TimestampOutput(chosen, created_at=time.monotonic())

    def from_pp_tensors(self, tensors) -> TimestampOutput:
        return TimestampOutput(tensors["chosen_logprob"], created_at=time.monotonic())


class RebuildSqueezeObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> EntropyOutput:
        return EntropyOutput(-(state.exp() * state).sum(dim=-1))

    def from_pp_tensors(self, tensors) -> EntropyOutput:
        # defensive: older versions of this plugin sent [batch, 1]
        return EntropyOutput(tensors["entropy"].squeeze())


class KeptKObserver(LogprobHooks, SamplingObserver):
    def __init__(self, k: int = 4) -> None:
        self.k = k

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> TopKOutput:
        return TopKOutput(state.topk(self.k, dim=-1).values, k=self.k)

    def from_pp_tensors(self, tensors) -> TopKOutput:
        return TopKOutput(tensors["values"], k=self.k)
