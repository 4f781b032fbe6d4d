from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from edge_probe.hosts import RowsHost


@dataclass
class PairwiseOutput(DeviceAuxiliaryOutput):
    """Per request, the KL divergence to the batch mean distribution (needs two requests or more)."""

    kl_to_mean: torch.Tensor

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"kl_to_mean": copy_tensor(self.kl_to_mean)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"kl_to_mean": self.kl_to_mean}


@dataclass
class TimestampOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor
    created_at: float = 0.0  # for latency logs only

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob)}, note=self.created_at)

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}


@dataclass
class FlaggedOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor
    invalid_ids: torch.Tensor  # sampled ids outside the vocabulary: empty unless something is badly wrong

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"chosen_logprob": copy_tensor(self.chosen_logprob)},
                        extra={"invalid_ids": copy_tensor(self.invalid_ids)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob, "invalid_ids": self.invalid_ids}


@dataclass
class ChosenOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> ChosenHost:
        return ChosenHost(copy_tensor(self.chosen_logprob))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_logprob": self.chosen_logprob}


@dataclass
class ChosenHost:
    chosen_logprob: torch.Tensor

    def consume(self, batch, commits) -> None:
        for req, commit, value in zip(batch.reqs, commits, self.chosen_logprob.tolist()):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault("chosen_logprob", []).append(value)


@dataclass
class EntropyOutput(DeviceAuxiliaryOutput):
    entropy: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"entropy": copy_tensor(self.entropy)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"entropy": self.entropy}


@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    values: torch.Tensor  # [batch, k]
    k: int = 4

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({f"top{self.k}_logprobs": copy_tensor(self.values)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"values": self.values}


@dataclass
class FirstOutput(DeviceAuxiliaryOutput):
    first_id: torch.Tensor  # [batch]

    def copy_to_host(self, copy_tensor) -> RowsHost:
        return RowsHost({"first_id": copy_tensor(self.first_id)})

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"first_id": self.first_id}
