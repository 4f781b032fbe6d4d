"""Sampling observers. Those that rebuild their output from the same field names use @rebuilds."""

from __future__ import annotations

from typing import final

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from obsforge.decorators import rebuilds
from obsforge.outputs import (
    ChoiceOutput,
    ChosenLogprobOutput,
    EntropyOutput,
    HeartbeatOutput,
    LogitLensOutput,
    MarginOutput,
    NormOutput,
    RankedOutput,
    SamplerStatsOutput,
    TopKOutput,
)


class _LogSoftmaxHooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


@rebuilds(TopKOutput)
class TopKObserver(_LogSoftmaxHooks, SamplingObserver):
    def __init__(self, k: int = 4):
        self.k = k

    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(self.k, dim=-1)
        return TopKOutput(ids=ids, logprobs=logprobs)


@final
class EntropyObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return EntropyOutput(entropy=-(state.exp() * state).sum(dim=-1))


class ChosenLogprobObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        chosen = state.gather(-1, token_ids.long()[:, None])
        rank = (state > chosen).sum(dim=-1)
        return ChosenLogprobOutput(logprob=chosen.squeeze(-1), rank=rank)

    def from_pp_tensors(self, tensors):
        return ChosenLogprobOutput(logprob=tensors["logprob"], rank=tensors["rank"])


@rebuilds(NormOutput)
class NormObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().clone()

    def after_sample(self, state, token_ids):
        return NormOutput(l2=state.norm(dim=-1), linf=state.abs().amax(dim=-1))


class HeartbeatObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return HeartbeatOutput(alive=torch.ones_like(token_ids, dtype=torch.bool))

    def from_pp_tensors(self, tensors):
        return HeartbeatOutput(alive=torch.ones(1, dtype=torch.bool))


class SamplerStatsObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return sampling_info.temperatures.mean(), sampling_info.top_ps.mean()

    def after_sample(self, state, token_ids):
        temperature_mean, top_p_mean = state
        return SamplerStatsOutput(temperature_mean=temperature_mean, top_p_mean=top_p_mean)

    def from_pp_tensors(self, tensors):
        temperature_mean, top_p_mean = tensors["scalars"]
        return SamplerStatsOutput(temperature_mean=temperature_mean, top_p_mean=top_p_mean)


class RankedObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return RankedOutput(best=state.amax(dim=-1), score=float(state.amax()))

    def from_pp_tensors(self, tensors):
        return RankedOutput(best=tensors["best"], score=0.0)


class MarginObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        return MarginOutput(margin=top2[:, 0] - top2[:, 1])

    def from_pp_tensors(self, tensors):
        return MarginOutput(margin=tensors["margin"])


@rebuilds(ChoiceOutput)
class ChoiceObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return ChoiceOutput(token_ids=token_ids.clone())


class LogitLensObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return LogitLensOutput(lens=state.amax(dim=-1))

    def from_pp_tensors(self, tensors):
        return LogitLensOutput(lens=tensors["lens"])
