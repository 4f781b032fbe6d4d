from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from stage_state.hosts import LabelledHost, RowsHost


@dataclass
class VocabBitsOutput(DeviceAuxiliaryOutput):
    """The sampled token's log-probability, and the vocabulary size it is measured against."""

    chosen_logprob: torch.Tensor  # [batch]
    vocab_size: int

    def copy_to_host(self, copy_tensor) -> RowsHost:
        bits = copy_tensor(self.chosen_logprob) / math.log(self.vocab_size)
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob), "relative": bits})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}


@dataclass
class NormalizedEntropyOutput(DeviceAuxiliaryOutput):
    """Each request's entropy in nats; the host reports it divided by log(vocab), which the observer knows."""

    entropy: torch.Tensor  # [batch]
    log_vocab: float

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"normalized_entropy": copy_tensor(self.entropy) / self.log_vocab})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"entropy": self.entropy}


@dataclass
class MarginOutput(DeviceAuxiliaryOutput):
    margin: torch.Tensor  # [batch]: top-1 minus top-2 logprob, in the logits' own dtype

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"margin": copy_tensor(self.margin)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"margin": self.margin.float()}


@dataclass
class LazyLabelOutput(DeviceAuxiliaryOutput):
    confidence: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> LabelledHost:
        return LabelledHost(copy_tensor(self.confidence), "lazy")

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"confidence": self.confidence}


@dataclass
class EagerLabelOutput(DeviceAuxiliaryOutput):
    confidence: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> LabelledHost:
        return LabelledHost(copy_tensor(self.confidence), "eager")

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"confidence": self.confidence}


@dataclass
class TopGapOutput(DeviceAuxiliaryOutput):
    top_values: torch.Tensor  # [batch, TOP_K]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"top_values": copy_tensor(self.top_values)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"top_values": self.top_values}


@dataclass
class WeightedOutput(DeviceAuxiliaryOutput):
    top_values: torch.Tensor  # [batch, k]; the host reports their position-weighted mean

    def copy_to_host(self, copy_tensor) -> RowsHost:
        values = copy_tensor(self.top_values)
        weights = position_weights(values.shape[-1], str(values.device))
        return RowsHost({"weighted": (values * weights).sum(dim=-1)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"top_values": self.top_values}


@functools.lru_cache(maxsize=8)
def position_weights(k: int, device: str) -> torch.Tensor:
    """1/1, 1/2, ... 1/k, normalised: a pure function of its arguments, cached."""
    weights = 1.0 / torch.arange(1, k + 1, dtype=torch.float32, device=device)
    return weights / weights.sum()
