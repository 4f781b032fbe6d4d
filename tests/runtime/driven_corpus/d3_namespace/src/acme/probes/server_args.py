"""A probe built from SGLang's ServerArgs by the plugin hook."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from acme.probes.hosts import ColumnHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class ServerArgsOutput(DeviceAuxiliaryOutput):
    clipped: torch.Tensor

    def copy_to_host(self, copy_tensor) -> ColumnHost:
        return ColumnHost("clipped_logprob", copy_tensor(self.clipped))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"clipped": self.clipped}


class ServerArgsObserver:
    def __init__(self, server_args):
        self.floor = float(server_args.probe_logprob_floor)

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> ServerArgsOutput:
        chosen = state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        return ServerArgsOutput(chosen.clamp(min=self.floor))

    def from_pp_tensors(self, tensors) -> ServerArgsOutput:
        return ServerArgsOutput(tensors["clipped"])
