"""Only SGLang's protocol modules: judged normally even though observer.py needs the rest of SGLang."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

from fastpath_probe.host import ValuesHost


@dataclass
class PlainOutput(DeviceAuxiliaryOutput):
    chosen_prob: torch.Tensor

    def copy_to_host(self, copy_tensor) -> ValuesHost:
        return ValuesHost("chosen_prob", copy_tensor(self.chosen_prob))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"chosen_prob": self.chosen_prob}


class PlainObserver(SamplingObserver):
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> PlainOutput:
        return PlainOutput(state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1))

    def from_pp_tensors(self, tensors) -> PlainOutput:
        return PlainOutput(tensors["chosen_prob"])
