"""Observer and output classes fixed to one size: CUDA graphs want static shapes, so k and widths are
class-level constants made by factory functions rather than constructor arguments."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from corp.typed_obs.hooks import LogprobHooks
from corp.typed_obs.hosts import StatHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver


@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return StatHost("topk", {"ids": copy_tensor(self.ids), "logprobs": copy_tensor(self.logprobs)})

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs}


def make_topk_observer(k: int):
    class TopKObserver(LogprobHooks, SamplingObserver):
        K = k

        def after_sample(self, state, token_ids):
            logprobs, ids = state.topk(k, dim=-1)
            return TopKOutput(ids=ids, logprobs=logprobs)

        def from_pp_tensors(self, tensors):
            return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])

    return TopKObserver


TopK5Observer = make_topk_observer(5)
TopK1Observer = make_topk_observer(1)


def make_window_output(width: int):
    @dataclass
    class WindowOutput(DeviceAuxiliaryOutput):
        WIDTH = width

        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return StatHost(f"window{width}", copy_tensor(self.values))

    return WindowOutput


Window4Output = make_window_output(4)


class WindowObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return Window4Output(values=state.topk(Window4Output.WIDTH, dim=-1).values)

    def from_pp_tensors(self, tensors):
        return Window4Output(values=tensors["values"])


def make_chosen_observer(scale: float):
    class ChosenObserver(LogprobHooks, SamplingObserver):
        def after_sample(self, state, token_ids):
            return TopKOutput(ids=token_ids.long()[:, None],
                              logprobs=scale * state.gather(-1, token_ids.long()[:, None]))

    return ChosenObserver


ScaledChosenObserver = make_chosen_observer(0.5)
