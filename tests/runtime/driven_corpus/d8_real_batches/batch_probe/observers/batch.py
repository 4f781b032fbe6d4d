from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from batch_probe.observers._base import LogprobHooks
from batch_probe.outputs import BatchShareOutput


class BatchShareObserver(LogprobHooks, SamplingObserver):
    """Each request's entropy and its share of the batch's; written for batches of one request or more."""

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> BatchShareOutput:
        rows = [-(row.exp() * row).nan_to_num().sum() for row in state]
        entropy = torch.stack(rows)
        mean = float(entropy.sum()) / len(rows)
        return BatchShareOutput(entropy, entropy / (mean * len(rows)))

    def from_pp_tensors(self, tensors) -> BatchShareOutput:
        return BatchShareOutput(tensors["entropy"], tensors["share"])
