"""Sampling observers. They all compute logprobs of the temperature-scaled logits in ``before_grammar``."""

from __future__ import annotations

from collections.abc import Mapping

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver
from sglang.srt.sampling.sampling_observer_pp import PipelineParallelSamplingObserver

from topk_insights.outputs import BestTokenOutput, HeadOutput, SpecialTokenOutput, TopKOutput


class _LogprobHooks:
    """The hooks every observer here shares (a mixin: no after_sample, so not an observer itself)."""

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        # the logits may be padded past the real vocabulary; temperatures are [batch, 1]
        scaled = logits[:, : sampling_info.vocab_size].float() / sampling_info.temperatures
        return torch.log_softmax(scaled, dim=-1)


class TopKObserver(_LogprobHooks, SamplingObserver, PipelineParallelSamplingObserver):
    def __init__(self, k: int = 4) -> None:
        self.k = k

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> TopKOutput:
        top = state.topk(self.k, dim=-1)
        return TopKOutput(top.values, top.indices)

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> TopKOutput:
        return TopKOutput(tensors["values"], tensors["indices"])


class BestTokenObserver(_LogprobHooks, SamplingObserver, PipelineParallelSamplingObserver):
    """The most likely token and its logprob, whatever was sampled."""

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> BestTokenOutput:
        top = state.topk(2, dim=-1)
        return BestTokenOutput(best_id=top.indices[:, 0], best_logprob=top.values[:, 0])

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> BestTokenOutput:
        return BestTokenOutput(best_id=tensors["best_id"], best_logprob=tensors["best_logprob"])


class SpecialTokenObserver(_LogprobHooks, SamplingObserver, PipelineParallelSamplingObserver):
    """How close each step came to emitting bos/eos (token ids 0 and 1 in our tokenizer)."""

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> SpecialTokenOutput:
        return SpecialTokenOutput(state[:, :2])

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> SpecialTokenOutput:
        return SpecialTokenOutput(tensors["logprobs"])


class HeadObserver(_LogprobHooks, SamplingObserver, PipelineParallelSamplingObserver):
    """The head of the ranking, kept two-dimensional as the host side expects."""

    def __init__(self, k: int = 4) -> None:
        self.k = k

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> HeadOutput:
        top = state.topk(self.k, dim=-1)
        chosen = state.gather(1, token_ids.unsqueeze(1))
        return HeadOutput(head_ids=top.indices[:, :1], chosen_logprob=chosen)

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> HeadOutput:
        return HeadOutput(head_ids=tensors["head_ids"], chosen_logprob=tensors["chosen_logprob"])
