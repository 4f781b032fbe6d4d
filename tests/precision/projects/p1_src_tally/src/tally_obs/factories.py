"""Factory functions the observers share."""

from __future__ import annotations

import torch

from tally_obs.outputs import HistogramOutput, TopKOutput


def make_topk(logprobs: torch.Tensor, k: int = 5) -> TopKOutput:
    values, ids = logprobs.topk(k, dim=-1)
    return TopKOutput(ids=ids, logprobs=values)


def build_histogram(token_ids: torch.Tensor, vocab_size: int):
    counts = torch.bincount(token_ids.flatten(), minlength=vocab_size)
    return HistogramOutput(counts)
