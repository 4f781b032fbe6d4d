"""The observer reads an SGLang environment switch through sglang.srt.utils."""

from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver
from sglang.srt.sampling.sampling_observer_pp import PipelineParallelSamplingObserver
from sglang.srt.utils import get_bool_env_var

from fastpath_probe.outputs import FastOutput


class FastObserver(SamplingObserver, PipelineParallelSamplingObserver):
    def __init__(self) -> None:
        self.enabled = not get_bool_env_var("FASTPATH_PROBE_DISABLE")

    def is_active(self, sampling_info) -> bool:
        return self.enabled

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> FastOutput:
        return FastOutput(state.max(dim=-1).values)

    def from_pp_tensors(self, tensors) -> FastOutput:
        return FastOutput(tensors["max_logprob"])
