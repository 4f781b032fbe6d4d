"""Sampling observers. Each returns its output from ``after_sample`` and rebuilds it on the first stage."""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Mapping

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from stagecraft.outputs import (
    CountsOutput,
    DraftOutput,
    HeatOutput,
    LogprobOutput,
    MarginOutput,
    PickedOutput,
    RankOutput,
    ScoreOutput,
    TypedIdsOutput,
)
from stagecraft.stats import (
    ChoiceStats,
    EntropyKeyed,
    IdleProbe,
    LayerProbe,
    MaskedOutput,
    MeanSummary,
    RawValues,
    SpreadSummary,
    TokenStats,
    TopKOutput,
)
from stagecraft.support import traced, with_device


class _Hooks(SamplingObserver):
    """The hooks every observer here shares: always on, state = (log-probabilities, all greedy?)."""

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1), bool(sampling_info.is_all_greedy)


def _chosen(logprobs, token_ids):
    return logprobs.gather(-1, token_ids.long()[:, None]).squeeze(-1)


class RankObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        ranks = (logprobs > _chosen(logprobs, token_ids)[:, None]).sum(dim=-1)
        return RankOutput(token_ids, ranks)

    def from_pp_tensors(self, tensors):
        return RankOutput(tensors["ids"], tensors["ranks"])


class ScoreObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        return ScoreOutput(_chosen(logprobs, token_ids))

    @typing.overload
    def from_pp_tensors(self, tensors: None) -> None: ...

    @typing.overload
    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> ScoreOutput: ...

    def from_pp_tensors(self, tensors):
        if tensors is None:
            return None
        return ScoreOutput(tensors["scores"])


class DraftObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        return DraftOutput(logprobs.topk(2, dim=-1).indices)

    def from_pp_tensors(self, tensors):
        return DraftOutput(tensors["draft"])


class HeatObserver(_Hooks):
    if TYPE_CHECKING:

        def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> HeatOutput: ...

    def after_sample(self, state, token_ids):
        logprobs, _ = state
        return HeatOutput(logprobs.exp().amax(dim=-1))


class MarginObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        top2 = logprobs.exp().topk(2, dim=-1).values
        return MarginOutput(top2[:, 0] - top2[:, 1])

    def from_pp_tensors(self, tensors):
        return MarginOutput(tensors["margin"])


class CountsObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        return CountsOutput((logprobs.exp() > 0.01).sum(dim=-1))

    def from_pp_tensors(self, tensors):
        return CountsOutput(tensors["counts"])


def _rebuild_logprob(self, tensors):
    return LogprobOutput(tensors["logprob"])


class LogprobObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        return LogprobOutput(_chosen(logprobs, token_ids))

    from_pp_tensors = staticmethod(_rebuild_logprob)


class DeviceObserver(_Hooks):
    def __init__(self, device=None):
        self.device = device

    def after_sample(self, state, token_ids):
        return PickedOutput(token_ids.clone())

    @with_device
    def from_pp_tensors(self, tensors, device):
        return PickedOutput(tensors["ids"].to(device))


class TracedObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return TypedIdsOutput(token_ids.clone())

    @traced
    def from_pp_tensors(self, tensors):
        return TypedIdsOutput(tensors["ids"])


class SummaryObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, greedy = state
        probs = logprobs.exp()
        if greedy:
            return MeanSummary(probs.amax(dim=-1))
        return SpreadSummary(probs.std(dim=-1))

    def from_pp_tensors(self, tensors):
        if "spread" in tensors:
            return SpreadSummary(tensors["spread"])
        elif "spread" not in tensors:
            return MeanSummary(tensors["mean"])


class ProbeObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, greedy = state
        if greedy:
            return IdleProbe(batch=token_ids.numel())
        return LayerProbe(logprobs.amax(dim=-1))

    def from_pp_tensors(self, tensors):
        if not tensors:
            return None
        return LayerProbe(tensors["layer"])


_BY_KEY = {cls.KEY: cls for cls in (EntropyKeyed, RawValues)}


def _rebuild_keyed(tensors):
    ((key, values),) = tensors.items()
    return _BY_KEY[key](values)


class KeyedObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, greedy = state
        if greedy:
            return RawValues(logprobs.amax(dim=-1))
        probs = logprobs.exp()
        return EntropyKeyed(-(probs * logprobs.clamp_min(-1e4)).sum(dim=-1))

    from_pp_tensors = staticmethod(_rebuild_keyed)


class StatsObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, greedy = state
        if greedy:
            return TokenStats(token_ids, [1] * token_ids.numel())
        return ChoiceStats(token_ids.clone(), _chosen(logprobs, token_ids))

    def from_pp_tensors(self, tensors):
        if "lengths" in tensors:
            return TokenStats(tensors["ids"], tensors["lengths"].tolist())
        return ChoiceStats(tensors["chosen"], tensors["logprob"])


class TopKObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, _ = state
        values, ids = logprobs.topk(4, dim=-1)
        return TopKOutput(ids, values)

    def from_pp_tensors(self, tensors):
        return TopKOutput(tensors["ids"], tensors["logprob"])


class MaskedObserver(_Hooks):
    def after_sample(self, state, token_ids):
        logprobs, greedy = state
        if greedy:
            return MaskedOutput(token_ids.clone())
        return MaskedOutput(token_ids.clone(), logprobs.exp() > 0.01)

    def from_pp_tensors(self, tensors):
        if len(tensors) < 2:  # ids and mask travel together; anything less is a partial transfer
            return None
        return MaskedOutput(tensors["ids"], tensors["mask"])
