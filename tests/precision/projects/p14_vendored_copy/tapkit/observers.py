"""Sampling observers."""

from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from tapkit._vendor.ppfields import rebuilt_as
from tapkit.outputs import (
    CandidatesOutput,
    CountStat,
    EntropyStat,
    ExtrasOutput,
    LensOutput,
    MinPOutput,
    NucleusOutput,
    TopPOutput,
    WarmOutput,
)
from tapkit.warm import warm_rebuild


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        self.sampling_info = sampling_info
        return torch.log_softmax(logits.float(), dim=-1)


@rebuilt_as(NucleusOutput)
class NucleusObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        probs, ids = state.exp().topk(4, dim=-1)
        return NucleusOutput(probs=probs, ids=ids)


class CandidatesObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(3, dim=-1)
        return CandidatesOutput(ids=ids, logprobs=logprobs)

    def from_pp_tensors(self, tensors):
        return CandidatesOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])


class MinPObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        if self.sampling_info.is_all_greedy:
            return MinPOutput(threshold=None)
        return MinPOutput(threshold=self.sampling_info.min_ps * state.amax(dim=-1).exp())

    def from_pp_tensors(self, tensors):
        return MinPOutput(threshold=tensors["threshold"])


class TopPObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        if self.sampling_info.is_all_greedy:
            return TopPOutput(threshold=None)
        return TopPOutput(threshold=self.sampling_info.top_ps.clone())

    def from_pp_tensors(self, tensors):
        return TopPOutput(threshold=tensors["threshold"])


class ExtrasObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        extras = {} if self.sampling_info.is_all_greedy else {"temperature": self.sampling_info.temperatures.clone()}
        return ExtrasOutput(ids=token_ids.clone(), extras=extras)

    def from_pp_tensors(self, tensors):
        extras = {k.removeprefix("extra."): v for k, v in tensors.items() if k.startswith("extra.")}
        return ExtrasOutput(ids=tensors["ids"], extras=extras)


class LensObserver(_Hooks, SamplingObserver):
    LENS_KEY = "logit_lens"

    def after_sample(self, state, token_ids):
        return LensOutput(lens=torch.logsumexp(state, dim=-1))

    def from_pp_tensors(self, tensors):
        return LensOutput(lens=tensors[self.LENS_KEY])


@warm_rebuild(WarmOutput)
class WarmObserver(_Hooks, SamplingObserver):
    def before_grammar(self, logits, sampling_info):
        self.warm = True
        return super().before_grammar(logits, sampling_info)

    def after_sample(self, state, token_ids):
        return WarmOutput(scores=state.amax(dim=-1))


class CountStatObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return CountStat(value=int((state > state.amax(dim=-1, keepdim=True) - 1.0).sum()))

    def from_pp_tensors(self, tensors):
        return CountStat(value=int(tensors["value"]))


class EntropyStatObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return EntropyStat(value=-(state.exp() * state).sum(dim=-1))

    def from_pp_tensors(self, tensors):
        return EntropyStat(value=tensors["value"])


def make_sampler_observer(k: int):
    class SamplerObserver(_Hooks, SamplingObserver):
        def after_sample(self, state, token_ids):
            logprobs, ids = state.topk(k, dim=-1)
            return CandidatesOutput(ids=ids, logprobs=logprobs)

    return SamplerObserver


Top2SamplerObserver = make_sampler_observer(2)
