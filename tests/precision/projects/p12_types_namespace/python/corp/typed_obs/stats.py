"""One statistic per output, typed by what it holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

import torch
from corp.typed_obs.hooks import LogprobHooks
from corp.typed_obs.hosts import StatHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

T = TypeVar("T")


@dataclass
class Stat(DeviceAuxiliaryOutput, Generic[T]):
    value: T

    def copy_to_host(self, copy_tensor):
        value = copy_tensor(self.value) if isinstance(self.value, torch.Tensor) else self.value
        return StatHost(type(self).__name__, value)

    def to_pp_tensors(self):
        return {"value": self.value}


@dataclass
class TokenEntropy(Stat[torch.Tensor]):
    """Entropy of each row's next-token distribution."""


@dataclass
class TopProb(Stat[torch.Tensor]):
    """Probability of each row's most likely token."""


@dataclass
class BatchTemperature(Stat[float]):
    """Mean temperature of the batch, for the dashboard."""


class EntropyStatObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return TokenEntropy(value=-(state.exp() * state).sum(dim=-1))

    def from_pp_tensors(self, tensors):
        return TokenEntropy(value=tensors["value"])


class TopProbObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return TopProb(value=state.amax(dim=-1).exp())

    def from_pp_tensors(self, tensors):
        return TopProb(value=tensors["value"])


class TemperatureObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return sampling_info.temperatures

    def after_sample(self, state, token_ids):
        return BatchTemperature(value=float(state.mean()))

    def from_pp_tensors(self, tensors):
        return BatchTemperature(value=float(tensors["value"]))
