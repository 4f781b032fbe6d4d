"""The window tap; its transport is switched on by name (see _enable)."""

from __future__ import annotations

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

from tapkit.hosts import TapHost


class WindowOutput(DeviceAuxiliaryOutput):
    def __init__(self, window: torch.Tensor):
        self.window = window

    def copy_to_host(self, copy_tensor):
        return TapHost("window", window=copy_tensor(self.window))


class WindowObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        return WindowOutput(window=state.topk(3, dim=-1).values)

    def from_pp_tensors(self, tensors):
        return WindowOutput(window=tensors["window"])


def _window_tensors(self):
    return {"window": self.window}


_TRANSPORTS = {"window": _window_tensors}


def _enable(name):
    target = globals()[f"{name.title()}Output"]
    target.to_pp_tensors = _TRANSPORTS[name]


_enable("window")
