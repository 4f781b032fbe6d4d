from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from edge_probe.outputs import PairwiseOutput


class SparseStartObserver(SamplingObserver):
    """Compares each request with the batch mean: a single-request batch has nothing to compare with."""

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        if logits.shape[0] < 2:
            return None  # SGLang then skips after_sample
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> PairwiseOutput:
        mean = state.exp().mean(dim=0, keepdim=True)
        kl = (state.exp() * (state - mean.log())).sum(dim=-1)
        return PairwiseOutput(kl)

    def from_pp_tensors(self, tensors) -> PairwiseOutput:
        return PairwiseOutput(tensors["kl_to_mean"])
