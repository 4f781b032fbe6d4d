"""Like server_args.py, but the author gave ppaux-lint an example of the observer."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import torch
from acme.probes.hosts import ColumnHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class WindowOutput(DeviceAuxiliaryOutput):
    mass: torch.Tensor  # [batch]: probability mass of the top `window` tokens

    def copy_to_host(self, copy_tensor) -> ColumnHost:
        return ColumnHost("window_mass", copy_tensor(self.mass))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"mass": self.mass}


class WindowObserver:
    def __init__(self, server_args):
        self.window = int(server_args.probe_window)

    @classmethod
    def ppaux_example(cls, device):
        return cls(SimpleNamespace(probe_window=3))

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> WindowOutput:
        return WindowOutput(state.topk(self.window, dim=-1).values.sum(dim=-1))

    def from_pp_tensors(self, tensors) -> WindowOutput:
        return WindowOutput(tensors["mass"])
