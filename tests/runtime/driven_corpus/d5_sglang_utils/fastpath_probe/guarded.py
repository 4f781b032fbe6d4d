"""Guards its optional SGLang import, so it imports without the rest of SGLang."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

from fastpath_probe.host import ValuesHost

try:
    from sglang.srt.utils import is_cuda
except ImportError:  # older SGLang, or none of it beyond the protocol modules

    def is_cuda() -> bool:
        return torch.cuda.is_available()


@dataclass
class GuardedOutput(DeviceAuxiliaryOutput):
    min_logprob: torch.Tensor

    def copy_to_host(self, copy_tensor) -> ValuesHost:
        return ValuesHost("min_logprob", copy_tensor(self.min_logprob))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"min_logprob": self.min_logprob}


class GuardedObserver(SamplingObserver):
    def __init__(self) -> None:
        self.on_cuda = is_cuda()

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> GuardedOutput:
        return GuardedOutput(state.min(dim=-1).values)

    def from_pp_tensors(self, tensors) -> GuardedOutput:
        return GuardedOutput(tensors["min_logprob"])
