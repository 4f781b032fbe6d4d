"""Forward observers (installed with ModelRunner.forward_observer, never with pipeline parallelism)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.model_executor.forward_observer import ForwardObserver

from kvstats.hosts import RowHost


@dataclass
class HiddenOutput(DeviceAuxiliaryOutput):
    hidden_norm: torch.Tensor
    layer: int

    def copy_to_host(self, copy_tensor):
        return RowHost(f"hidden{self.layer}", hidden_norm=copy_tensor(self.hidden_norm))


@dataclass
class ResidualOutput(DeviceAuxiliaryOutput):
    norm: torch.Tensor
    kind: str

    def copy_to_host(self, copy_tensor):
        return RowHost(self.kind, norm=copy_tensor(self.norm))


_residual = functools.partial(ResidualOutput, kind="residual")


class HiddenCapture(ForwardObserver):
    def __init__(self, layer: int = -1):
        self._emit = functools.partial(HiddenOutput, layer=layer)

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return self._emit(hidden_norm=logits_output.hidden_states.norm(dim=-1))


class ResidualCapture(ForwardObserver):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        hidden = logits_output.hidden_states
        return _residual(norm=(hidden - hidden.mean(dim=-1, keepdim=True)).norm(dim=-1))
