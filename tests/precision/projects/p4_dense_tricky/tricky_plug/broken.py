"""The plugin's older observers, kept for compatibility; these are the ones that break under PP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

from .dense import HostRows, _Hooks


@dataclass
class MaybeMaskOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    mask: Optional[torch.Tensor] = None

    def copy_to_host(self, copy_tensor):
        return HostRows(ids=copy_tensor(self.ids))

    def to_pp_tensors(self):
        if self.mask is not None:
            return {"ids": self.ids, "mask": self.mask}
        return dict()


class MaskObserver(_Hooks, SamplingObserver):
    def __init__(self, with_mask: bool = False):
        self.with_mask = with_mask

    def after_sample(self, state, token_ids):
        return MaybeMaskOutput(token_ids, token_ids > 0 if self.with_mask else None)

    def from_pp_tensors(self, tensors):
        ids = tensors["ids"]
        if ids.numel() == 0:
            return  # nothing was sampled on this step
        return MaybeMaskOutput(ids=ids, mask=tensors["mask"])


class DisabledOutput(DeviceAuxiliaryOutput):
    """Transport was switched off by setting the method to None."""

    to_pp_tensors = None

    def __init__(self, ids: torch.Tensor):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return HostRows(ids=copy_tensor(self.ids))


class DisabledObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return DisabledOutput(token_ids)

    def from_pp_tensors(self, tensors):
        return DisabledOutput(tensors["ids"])


@dataclass
class ChosenOutput(DeviceAuxiliaryOutput):
    logprob: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return HostRows(logprob=copy_tensor(self.logprob))

    def to_pp_tensors(self):
        return {"logprob": self.logprob}


class _ChosenSample:
    def after_sample(self, state, token_ids):
        return ChosenOutput(state.gather(-1, token_ids[:, None]).squeeze(-1))


class ChosenObserver(_Hooks, _ChosenSample):
    """All from mixins, but none of them rebuilds the output."""
