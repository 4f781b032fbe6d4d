"""Sampling observers; some share their outputs with the forward captures."""

from __future__ import annotations

from typing import Optional

import torch

from .builders import make_shared
from .outputs import AttrSharedOutput, ChosenIdsOutput, ConfidenceOutput, SharedOkOutput, SharedOutput


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float()


class ShareSampler(_Hooks):
    """Reports the max logit through the same factory the forward capture's output type uses."""

    def after_sample(self, state, token_ids):
        return make_shared(state)

    def from_pp_tensors(self, tensors):
        return SharedOutput(max_logit=tensors["max_logit"])


class AttrShareSampler(_Hooks):
    def __init__(self):
        self.latest: Optional[AttrSharedOutput] = None

    def after_sample(self, state, token_ids):
        self.latest = AttrSharedOutput(argmax=state.argmax(dim=-1))
        return self.latest

    def from_pp_tensors(self, tensors):
        return AttrSharedOutput(argmax=tensors["argmax"])


class SharedOkSampler(_Hooks):
    def after_sample(self, state, token_ids):
        return SharedOkOutput(torch.logsumexp(state, dim=-1))

    def from_pp_tensors(self, tensors):
        return SharedOkOutput(logsumexp=tensors["logsumexp"])


class ConfidenceSampler(_Hooks):
    def __init__(self, calibrated: bool = False):
        self.calibrated = calibrated
        self.previous: Optional[ConfidenceOutput] = None

    def after_sample(self, state, token_ids):
        probs = torch.softmax(state, dim=-1).gather(-1, token_ids[:, None]).squeeze(-1)
        fresh = ConfidenceOutput(probs.sqrt()) if self.calibrated else ConfidenceOutput(probs)
        result = self.previous or fresh
        self.previous = None
        return result


class ChosenIdsSampler(_Hooks):
    def __init__(self, track_mask: bool = True):
        self.track_mask = track_mask

    def after_sample(self, state, token_ids):
        mask = (token_ids >= 0) if self.track_mask else None
        return ChosenIdsOutput(ids=token_ids, mask=mask)

    def from_pp_tensors(self, tensors):
        return ChosenIdsOutput(ids=tensors["ids"], mask=tensors["mask"])
