"""Sampling observers: helpers that never return, several outputs from one hook, methods set on instances."""

from __future__ import annotations

from typing import NoReturn

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from forms.outputs import (
    CallableOutput,
    ChosenOutput,
    DictPropertyOutput,
    GreedyOutput,
    LazyOutput,
    LengthOutput,
    MaskOutput,
    MixedOutput,
    QuietOutput,
    RankOutput,
    RegisteredBase,
    RegisteredChild,
    SampledOutput,
)


def fail(message) -> NoReturn:
    raise RuntimeError(message)


def note(message):
    print(message)


class _Hooks(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits


class ChosenObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return ChosenOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return ChosenOutput(tensors["ids"])


class RankObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return RankOutput(token_ids.tolist())

    def from_pp_tensors(self, tensors):
        if tensors["ranks"].dim() == 1:
            return RankOutput(tensors["ranks"].tolist())
        fail("ranks must be one-dimensional")


class LengthObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return LengthOutput(token_ids, [1] * token_ids.numel())

    def from_pp_tensors(self, tensors):
        return LengthOutput(tensors["ids"], tensors["lengths"].tolist())


class NoteObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return MixedOutput(token_ids)

    def from_pp_tensors(self, tensors):
        if tensors["ids"].dtype == torch.int64:
            return MixedOutput(tensors["ids"])
        note("token ids of an unexpected dtype")


class QuietObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return QuietOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return QuietOutput(tensors["ids"])


class LazyObserver(_Hooks):
    def __init__(self):
        self.from_pp_tensors = self._rebuild

    def _rebuild(self, tensors):
        return LazyOutput(tensors["ids"])

    def after_sample(self, state, token_ids):
        return LazyOutput(token_ids)


class CallableObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return CallableOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return CallableOutput.rebuild(tensors) or None


class DictPropertyObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return DictPropertyOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return DictPropertyOutput(tensors["ids"])


class TwoWayObserver(_Hooks):
    def after_sample(self, state, token_ids):
        if token_ids.dtype == torch.int64:
            return GreedyOutput(token_ids)
        return SampledOutput(token_ids, state.float())

    def from_pp_tensors(self, tensors):
        if "probs" in tensors:
            return SampledOutput(tensors["ids"], tensors["probs"])
        return GreedyOutput(tensors["ids"])


class MaskObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return MaskOutput(token_ids, token_ids > 0)

    def from_pp_tensors(self, tensors):
        return MaskOutput(tensors["ids"], tensors["mask"])


class RegisteredObserver(_Hooks):
    def after_sample(self, state, token_ids):
        if token_ids.numel() == 1:
            return RegisteredBase(token_ids)
        return RegisteredChild(token_ids)

    def from_pp_tensors(self, tensors):
        return RegisteredChild(tensors["ids"])


class MissingFromObserver(_Hooks):
    def after_sample(self, state, token_ids):
        return GreedyOutput(token_ids)
