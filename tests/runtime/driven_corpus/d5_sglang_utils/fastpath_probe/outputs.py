"""Outputs only: this module imports nothing from SGLang beyond its protocol modules."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer_pp import PipelineParallelAuxiliaryOutput

from fastpath_probe.host import ValuesHost


@dataclass
class FastOutput(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    max_logprob: torch.Tensor

    def copy_to_host(self, copy_tensor) -> ValuesHost:
        return ValuesHost("max_logprob", copy_tensor(self.max_logprob))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"max_logprob": self.max_logprob}
