"""Sampling observers, each with its own way of guarding ``from_pp_tensors``."""

from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from guardkit.outputs import IdsOutput, PairOutput, ScoredOutput
from guardkit.rebuild import rebuild_scored


class _Hooks:
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return logits


class GetObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return IdsOutput(token_ids)

    def from_pp_tensors(self, tensors):
        ids = tensors.get("ids")
        if ids is None:
            return None
        return IdsOutput(ids)


class ScoreGuardObserver(_Hooks, SamplingObserver):
    def __init__(self, with_scores: bool = False):
        self.with_scores = with_scores

    def after_sample(self, state, token_ids):
        scores = state.max(dim=-1).values if self.with_scores else None
        return ScoredOutput(token_ids, scores)

    def from_pp_tensors(self, tensors):
        if "scores" not in tensors:
            return None
        return ScoredOutput(tensors["ids"], tensors["scores"])


class IdsMatchObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return IdsOutput(token_ids)

    def from_pp_tensors(self, tensors):
        match tensors:
            case {"ids": ids}:
                return IdsOutput(ids)


class AfterTheTestObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return ScoredOutput(token_ids)

    def from_pp_tensors(self, tensors):
        if "ids" in tensors:
            return ScoredOutput(tensors["ids"], tensors.get("scores"))
        return None


class DelegatingObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return PairOutput(token_ids, token_ids + 1)

    def from_pp_tensors(self, tensors):
        return self._rebuild(tensors)

    def _rebuild(self, tensors):
        try:
            first = tensors["first"]
            second = tensors["second"]
        except KeyError:
            return None
        return PairOutput(first, second)


class TupleReadObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return PairOutput(token_ids, token_ids + 1)

    def from_pp_tensors(self, tensors):
        try:
            first, second = tensors["first"], tensors["second"]
        except KeyError:
            return None
        return PairOutput(first, second)


class LengthGuardObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return PairOutput(token_ids, token_ids * 2)

    def from_pp_tensors(self, tensors):
        if len(tensors) < 2:
            return None
        return PairOutput(tensors["first"], tensors["second"])


class SubsetObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return PairOutput(token_ids, token_ids * 3)

    def from_pp_tensors(self, tensors):
        if not {"first", "second"} <= tensors.keys():
            return None
        return PairOutput(tensors["first"], tensors["second"])


class TwoLevelObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return IdsOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return self._outer(tensors)

    def _outer(self, tensors):
        return self._inner(tensors)

    def _inner(self, tensors):
        if "ids" not in tensors:
            return None
        return IdsOutput(tensors["ids"])


class WrongKeyObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return IdsOutput(token_ids)

    def from_pp_tensors(self, tensors):
        if "id" not in tensors:
            return None
        return IdsOutput(tensors["ids"])


class HelperFunctionObserver(_Hooks, SamplingObserver):
    def __init__(self, with_scores: bool = False):
        self.with_scores = with_scores

    def after_sample(self, state, token_ids):
        return ScoredOutput(token_ids, state.amax(dim=-1) if self.with_scores else None)

    def from_pp_tensors(self, tensors):
        return rebuild_scored(tensors)
