from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from batch_probe.hosts import RowsHost


@dataclass
class CompactIdsOutput(DeviceAuxiliaryOutput):
    """The sampled ids with their log-probabilities; ids cross as int16 to halve the bytes."""

    token_ids: torch.Tensor  # [batch]
    logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"token_ids": copy_tensor(self.token_ids), "logprob": copy_tensor(self.logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"token_ids": self.token_ids.to(torch.int16), "logprob": self.logprob}


@dataclass
class ShortIdsOutput(DeviceAuxiliaryOutput):
    """The sampled ids, sent as they are; the receiving stage stores them as int16."""

    token_ids: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"token_ids": copy_tensor(self.token_ids)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"token_ids": self.token_ids}


@dataclass
class Int32IdsOutput(DeviceAuxiliaryOutput):
    """The sampled ids as int32, which holds any vocabulary SGLang serves."""

    token_ids: torch.Tensor  # [batch], int32

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"token_ids": copy_tensor(self.token_ids)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"token_ids": self.token_ids}


@dataclass
class OneHotChosenOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}


@dataclass
class GatherChosenOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}


@dataclass
class ControlWindowOutput(DeviceAuxiliaryOutput):
    """The logits of the first 16 (control) tokens, and their peak; the peak is derived, so it is not sent."""

    window: torch.Tensor  # [batch, 16]
    peak: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"window": copy_tensor(self.window), "peak": copy_tensor(self.peak)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"window": self.window.contiguous()}


@dataclass
class ClonedWindowOutput(DeviceAuxiliaryOutput):
    """As ``ControlWindowOutput``, from a copy of the logits taken in ``before_grammar``."""

    window: torch.Tensor  # [batch, 16]
    peak: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"window": copy_tensor(self.window), "peak": copy_tensor(self.peak)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"window": self.window}


@dataclass
class LateLogprobOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}


@dataclass
class BatchShareOutput(DeviceAuxiliaryOutput):
    """Per request, its entropy and its share of the batch's total entropy."""

    entropy: torch.Tensor  # [batch]
    share: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"entropy": copy_tensor(self.entropy), "share": copy_tensor(self.share)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"entropy": self.entropy, "share": self.share}


@dataclass
class ScaledLogprobOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}
