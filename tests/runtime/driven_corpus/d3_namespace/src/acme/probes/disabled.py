"""A probe that is off unless the deployment turns it on."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from acme.probes.hosts import ColumnHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver


@dataclass
class DisabledProbeOutput(DeviceAuxiliaryOutput):
    probs: torch.Tensor
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor) -> ColumnHost:
        return ColumnHost("probe_prob", copy_tensor(self.probs))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"probs": self.probs, "ids": self.ids}


class DisabledProbeObserver(SamplingObserver):
    def __init__(self, enabled: bool = False) -> None:
        self.enabled = enabled

    def is_active(self, sampling_info) -> bool:
        return self.enabled

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        if not self.enabled:
            return None
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor | None, token_ids: torch.Tensor) -> DisabledProbeOutput | None:
        if state is None:
            return None
        return DisabledProbeOutput(state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1), token_ids)

    def from_pp_tensors(self, tensors) -> DisabledProbeOutput:
        return DisabledProbeOutput(tensors["probs"], tensors["ids"])
