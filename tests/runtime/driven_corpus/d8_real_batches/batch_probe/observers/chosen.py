from __future__ import annotations

import torch
import torch.nn.functional as F
from sglang.srt.sampling.sampling_observer import SamplingObserver

from batch_probe.observers._base import LogprobHooks
from batch_probe.outputs import GatherChosenOutput, OneHotChosenOutput


class OneHotObserver(LogprobHooks, SamplingObserver):
    """Picks the sampled token's log-probability with a one-hot mask."""

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> OneHotChosenOutput:
        mask = F.one_hot(token_ids, num_classes=state.shape[-1]).to(state.dtype)
        return OneHotChosenOutput((state * mask).sum(dim=-1))

    def from_pp_tensors(self, tensors) -> OneHotChosenOutput:
        return OneHotChosenOutput(tensors["chosen_logprob"])


class GatherObserver(LogprobHooks, SamplingObserver):
    """Picks the sampled token's log-probability with gather, whatever the ids' integer type."""

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> GatherChosenOutput:
        return GatherChosenOutput(state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1))

    def from_pp_tensors(self, tensors) -> GatherChosenOutput:
        return GatherChosenOutput(tensors["chosen_logprob"])
