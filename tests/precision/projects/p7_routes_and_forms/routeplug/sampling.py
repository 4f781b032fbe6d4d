from __future__ import annotations

import abc
from abc import abstractmethod

import torch

from routeplug.builders import BuilderBase
from routeplug.helpers.deep import summarize_sampled
from routeplug.outputs import (
    EarlyOutput,
    InitListOutput,
    LoopOutput,
    SampledStatsOutput,
    ScoreOutput,
    StepwiseOkOutput,
    StepwiseOutput,
)


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


class ScoreSampler(_Hooks, BuilderBase):
    def after_sample(self, state, token_ids):
        return self._build(state)

    def from_pp_tensors(self, tensors):
        return ScoreOutput(score=tensors["score"])


class SampledStatsObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return summarize_sampled(state)

    def from_pp_tensors(self, tensors):
        return SampledStatsOutput(maximum=tensors["maximum"])


class EarlyObserver(_Hooks):
    """Reports only empty steps (for a metrics dashboard); everything else returns None."""

    def __init__(self, disabled: bool = False):
        self.disabled = disabled

    def after_sample(self, state, token_ids):
        if self.disabled:
            return None
        if token_ids.numel() == 0:
            return EarlyOutput.empty_like(token_ids)
        return None


class AuditObserver(_Hooks):
    def __init__(self):
        self.seen = []

    def _record(self, token_ids) -> None:
        self.seen.append(token_ids.cpu())

    def after_sample(self, state, token_ids):
        return self._record(token_ids)


class AbstractObserver(_Hooks, abc.ABC):
    @abstractmethod
    def after_sample(self, state, token_ids): ...


class NoOpObserver(AbstractObserver):
    def after_sample(self, state, token_ids):
        return None


class StepwiseObserver(_Hooks):
    def after_sample(self, state, token_ids):
        values, ids = state.topk(2, dim=-1)
        return StepwiseOutput(ids=ids, logprobs=values, count=int(ids.shape[0]))

    def from_pp_tensors(self, tensors):
        return StepwiseOutput(ids=tensors["ids"], logprobs=tensors["logprobs"], count=int(tensors["count"]))


class StepwiseOkObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return StepwiseOkOutput(ids=token_ids, mask=token_ids >= 0)

    def from_pp_tensors(self, tensors):
        return StepwiseOkOutput(ids=tensors["ids"], mask=tensors.get("mask"))


class LoopObserver(_Hooks):
    def after_sample(self, state, token_ids):
        low = state.gather(-1, token_ids[:, None]).squeeze(-1) < -3.0
        return LoopOutput(starts=low.nonzero().flatten(), ends=(~low).nonzero().flatten())

    def from_pp_tensors(self, tensors):
        return LoopOutput(starts=tensors["starts"], ends=tensors["ends"][: tensors["lengths"].sum()])


class InitListObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return InitListOutput(ids=token_ids, lengths=[torch.ones_like(token_ids)])

    def from_pp_tensors(self, tensors):
        return InitListOutput(ids=tensors["ids"], lengths=list(tensors["lengths"]))
