"""Sampling observers. Some rebuild through a helper, one has its from_pp_tensors attached below it."""

from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from attachkit.outputs import (
    BiasOutput,
    BundleOutput,
    ChosenOutput,
    CountOutput,
    FullNormOutput,
    GapOutput,
    LiveOutput,
    MaskedOutput,
    PackedOutput,
    ProbsOutput,
    SpanOutput,
    TopKOutput,
    TopNormOutput,
    WindowOutput,
)


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        self.greedy = bool(sampling_info.is_all_greedy)
        return torch.log_softmax(logits.float(), dim=-1)


class ProbsObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return ProbsOutput(probs=state.gather(-1, token_ids.long()[:, None]).exp().squeeze(-1))

    def from_pp_tensors(self, tensors):
        return ProbsOutput(probs=tensors["probs"])


class CountObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return CountOutput(count=(state > -2.0).sum(dim=-1))

    def from_pp_tensors(self, tensors):
        return CountOutput(count=tensors["count"])


class TopNormObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return TopNormOutput(norm=state.topk(4, dim=-1).values.norm(dim=-1))

    def from_pp_tensors(self, tensors):
        return TopNormOutput(norm=tensors["norm"])


class FullNormObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return FullNormOutput(norm=state.exp().norm(dim=-1))

    def from_pp_tensors(self, tensors):
        return FullNormOutput(norm=tensors["norm"])


class GapObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        if self.greedy:
            return GapOutput(gap=None)
        top2 = state.topk(2, dim=-1).values
        return GapOutput(gap=top2[:, 0] - top2[:, 1])

    def from_pp_tensors(self, tensors):
        return GapOutput(gap=tensors["gap"])


class ChosenObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return ChosenOutput(chosen=token_ids.clone())

    def from_pp_tensors(self, tensors):
        return ChosenOutput(chosen=tensors["chosen"])


class LiveObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        if self.greedy:
            return LiveOutput()
        logprobs, ids = state.topk(2, dim=-1)
        return LiveOutput(ids=ids, logprobs=logprobs)

    def from_pp_tensors(self, tensors):
        return LiveOutput(ids=tensors.get("ids"), logprobs=tensors.get("logprobs"))


class MaskedObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        constrained = torch.isinf(state).any(dim=-1)
        return MaskedOutput(ids=token_ids.clone(), mask=constrained if bool(constrained.any()) else None)

    def from_pp_tensors(self, tensors):
        return MaskedOutput(ids=tensors["ids"], mask=tensors.get("mask"))


class SpanObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        start = state.argmax(dim=-1)
        if self.greedy:
            return SpanOutput(start=start, end=None)
        return SpanOutput(start=start, end=(state.exp().cumsum(dim=-1) < 0.9).sum(dim=-1))

    def from_pp_tensors(self, tensors):
        return SpanOutput(start=tensors["start"], end=tensors.get("end"))


class PackedObserver(_Hooks, SamplingObserver):
    def __init__(self):
        self.rows = []
        self.step = 0

    def after_sample(self, state, token_ids):
        self.step += 1
        self.rows.append(state.gather(-1, token_ids.long()[:, None]).squeeze(-1))
        output = PackedOutput(list(self.rows), self.step)
        if self.step % PackedOutput.FLUSH_EVERY == 0:
            self.rows.clear()
        return output

    def from_pp_tensors(self, tensors):
        return PackedOutput([tensors["packed"]], step=0)


class BundleObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(3, dim=-1)
        return BundleOutput(ids=ids, logprobs=logprobs)

    def _rebuild(self, tensors):
        return BundleOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])

    def from_pp_tensors(self, tensors):
        return self._rebuild(tensors)


class TopKRebuildObserver(SamplingObserver):
    """Top-8 candidates; it will not rebuild before it has seen a batch's sampling parameters (self.k)."""

    def __init__(self):
        self.k = None

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        self.k = max(1, min(8, int(sampling_info.top_ks.max())))
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(8, dim=-1)
        return TopKOutput(ids=ids, logprobs=logprobs)

    def _rebuild(self, tensors):
        if self.k is None:
            return None
        return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])

    def from_pp_tensors(self, tensors):
        return self._rebuild(tensors)


class TopKObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(4, dim=-1)
        return TopKOutput(ids=ids, logprobs=logprobs)


def _rebuild_topk(self, tensors):
    return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])


TopKObserver.from_pp_tensors = _rebuild_topk


class BiasObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return BiasOutput(bias=state.mean(dim=-1))

    def from_pp_tensors(self, tensors):
        return BiasOutput(bias=tensors["bias"])


class WindowObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return WindowOutput(window=state.topk(2, dim=-1).values)

    def from_pp_tensors(self, tensors):
        return WindowOutput(window=tensors["window"])
