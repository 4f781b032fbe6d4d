"""Rank of the sampled token. Imports DeviceAuxiliaryOutput from its pre-0.5.23 location."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from acme.probes.hosts import ColumnHost
from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput, SamplingObserver
from sglang.srt.sampling.sampling_observer_pp import PipelineParallelAuxiliaryOutput, PipelineParallelSamplingObserver


@dataclass
class RankOutput(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    rank: torch.Tensor  # int64 [batch]

    def copy_to_host(self, copy_tensor) -> ColumnHost:
        return ColumnHost("sampled_rank", copy_tensor(self.rank))

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"rank": self.rank}


class RankObserver(SamplingObserver, PipelineParallelSamplingObserver):
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return logits.float()

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> RankOutput:
        chosen = state.gather(-1, token_ids.unsqueeze(-1))
        return RankOutput((state > chosen).sum(dim=-1))

    def from_pp_tensors(self, tensors) -> RankOutput:
        # ranks fit in int32 and the host side only reads them
        return RankOutput(tensors["rank"].to(torch.int32))
