"""Per-row scalar outputs and observers, generated with type() from one shared base."""

from __future__ import annotations

import torch
from corp.typed_obs.hooks import LogprobHooks
from corp.typed_obs.hosts import StatHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver


class _ScalarBase(DeviceAuxiliaryOutput):
    """What every per-row scalar output shares; only used as the base of the generated classes."""

    def __init__(self, value: torch.Tensor):
        self.value = value

    def copy_to_host(self, copy_tensor):
        return StatHost(type(self).__name__, copy_tensor(self.value))


def _margin_tensors(self):
    return {"margin": self.value}


def _entropy_tensors(self):
    return {"entropy": self.value}


MarginOutput = type("MarginOutput", (_ScalarBase,), {"to_pp_tensors": _margin_tensors})
EntropyOutput = type("EntropyOutput", (_ScalarBase,), {"__doc__": "Entropy of each row."})


def _margin_after_sample(self, state, token_ids):
    top2 = state.topk(2, dim=-1).values
    return MarginOutput(top2[:, 0] - top2[:, 1])


def _rebuild_margin(self, tensors):
    return MarginOutput(tensors["margin"])


def _entropy_after_sample(self, state, token_ids):
    return EntropyOutput(-(state.exp() * state).sum(dim=-1))


MarginObserver = type(
    "MarginObserver",
    (LogprobHooks, SamplingObserver),
    {"after_sample": _margin_after_sample, "from_pp_tensors": _rebuild_margin},
)
EntropyObserver = type("EntropyObserver", (LogprobHooks, SamplingObserver), {"after_sample": _entropy_after_sample})
