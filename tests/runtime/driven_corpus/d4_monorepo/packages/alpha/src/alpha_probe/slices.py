"""Outputs whose tensors are views of the observer's logprobs (the host kernel wants [k, batch] layouts)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver


class ColumnsHost:
    """Host copy of a [k, batch] tensor: request i gets column i."""

    def __init__(self, name: str, by_column: torch.Tensor) -> None:
        self.name = name
        self.by_column = by_column

    def consume(self, batch, commits) -> None:
        for i, (req, commit) in enumerate(zip(batch.reqs, commits)):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault(self.name, []).append(self.by_column[:, i].tolist())


@dataclass
class ControlTokenOutput(DeviceAuxiliaryOutput):
    logprobs: torch.Tensor  # [batch, 3]: bos, eos, pad

    def copy_to_host(self, copy_tensor) -> ColumnsHost:
        return ColumnsHost("control_logprobs", copy_tensor(self.logprobs).t())

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"logprobs": self.logprobs}


@dataclass
class TopFourOutput(DeviceAuxiliaryOutput):
    by_column: torch.Tensor  # [4, batch]

    def copy_to_host(self, copy_tensor) -> ColumnsHost:
        return ColumnsHost("top4_logprobs", copy_tensor(self.by_column))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"by_column": self.by_column}


@dataclass
class TopThreeOutput(DeviceAuxiliaryOutput):
    by_column: torch.Tensor  # [3, batch]

    def copy_to_host(self, copy_tensor) -> ColumnsHost:
        return ColumnsHost("top3_logprobs", copy_tensor(self.by_column))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"by_column": self.by_column}


class _Logprobs:
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)


class ControlTokenObserver(_Logprobs, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> ControlTokenOutput:
        return ControlTokenOutput(state[:, :3])

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> ControlTokenOutput:
        return ControlTokenOutput(tensors["logprobs"])


class TopFourObserver(_Logprobs, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> TopFourOutput:
        return TopFourOutput(state.topk(4, dim=-1).values.t())

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> TopFourOutput:
        return TopFourOutput(tensors["by_column"])


class TopThreeObserver(_Logprobs, SamplingObserver):
    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> TopThreeOutput:
        return TopThreeOutput(state.topk(3, dim=-1).values.t())

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> TopThreeOutput:
        return TopThreeOutput(tensors["by_column"])
