"""A probe configured by the deployment's probe config (None until the plugin hook installs it)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from acme.probes.hosts import ColumnHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class ConfiguredOutput(DeviceAuxiliaryOutput):
    scores: torch.Tensor

    def copy_to_host(self, copy_tensor) -> ColumnHost:
        return ColumnHost("probe_score", copy_tensor(self.scores))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"scores": self.scores}


class ConfiguredObserver:
    def __init__(self, config=None):
        self.config = config

    def is_active(self, sampling_info) -> bool:
        return self.config.enable_scores

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float() / self.config.score_temperature, dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> ConfiguredOutput:
        return ConfiguredOutput(state.max(dim=-1).values)

    def from_pp_tensors(self, tensors) -> ConfiguredOutput:
        return ConfiguredOutput(tensors["scores"])
