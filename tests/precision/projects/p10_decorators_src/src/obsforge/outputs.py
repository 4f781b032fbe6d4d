"""Device outputs. Most get their transport from obsforge.decorators."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import final

import attrs
import torch
from obs_registry import register_output
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from obsforge.decorators import local_only, pp_fields, pp_scalars, transportable, with_transport
from obsforge.hosts import RowHost


@pp_fields("ids", "logprobs")
@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("topk", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))


@pp_fields("entropy")
@dataclass
class EntropyOutput(DeviceAuxiliaryOutput):
    entropy: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("entropy", entropy=copy_tensor(self.entropy))


@transportable
class ChosenLogprobOutput(DeviceAuxiliaryOutput):
    def __init__(self, logprob: torch.Tensor, rank: torch.Tensor):
        self.logprob = logprob
        self.rank = rank

    def copy_to_host(self, copy_tensor):
        return RowHost("chosen", logprob=copy_tensor(self.logprob), rank=copy_tensor(self.rank))


@with_transport
@dataclass
class NormOutput(DeviceAuxiliaryOutput):
    """L2 and max norms of the logits row."""

    TRANSPORT = ("l2", "linf")

    l2: torch.Tensor
    linf: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("norm", l2=copy_tensor(self.l2), linf=copy_tensor(self.linf))


@local_only
@dataclass
class HeartbeatOutput(DeviceAuxiliaryOutput):
    alive: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("heartbeat", alive=copy_tensor(self.alive))


@pp_scalars("temperature_mean", "top_p_mean")
@dataclass
class SamplerStatsOutput(DeviceAuxiliaryOutput):
    temperature_mean: torch.Tensor
    top_p_mean: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("sampler", temperature_mean=copy_tensor(self.temperature_mean.reshape(1)),
                       top_p_mean=copy_tensor(self.top_p_mean.reshape(1)))


@final
@functools.total_ordering
@dataclass(frozen=True)
class RankedOutput(DeviceAuxiliaryOutput):
    best: torch.Tensor
    score: float

    def __lt__(self, other):
        return self.score < other.score

    def copy_to_host(self, copy_tensor):
        return RowHost("ranked", best=copy_tensor(self.best))


@attrs.define
class MarginOutput(DeviceAuxiliaryOutput):
    margin: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("margin", margin=copy_tensor(self.margin))


@attrs.frozen
class ChoiceOutput(DeviceAuxiliaryOutput):
    token_ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("choice", token_ids=copy_tensor(self.token_ids))

    def to_pp_tensors(self):
        return {"token_ids": self.token_ids}


@register_output("logit_lens")
@dataclass
class LogitLensOutput(DeviceAuxiliaryOutput):
    lens: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("logit_lens", lens=copy_tensor(self.lens))
