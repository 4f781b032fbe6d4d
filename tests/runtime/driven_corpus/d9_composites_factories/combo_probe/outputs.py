"""Two plain outputs and their host copies; each host copy adds its own keys to the request's info."""

from __future__ import annotations

from dataclasses import dataclass

import torch


def _note(req, key, value):
    info = req.customized_info or {}
    info[key] = value
    req.customized_info = info


@dataclass
class TopKHost:
    ids: torch.Tensor
    scores: torch.Tensor

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            _note(req, "topk", self.ids[row].tolist())
            _note(req, "topk_scores", self.scores[row].tolist())


@dataclass
class TopKOutput:
    ids: torch.Tensor  # int64 [batch, k]
    scores: torch.Tensor  # float32 [batch, k]

    def copy_to_host(self, copy_tensor):
        return TopKHost(copy_tensor(self.ids), copy_tensor(self.scores))

    def to_pp_tensors(self):
        return {"ids": self.ids, "scores": self.scores}


@dataclass
class EntropyHost:
    entropy: torch.Tensor

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            _note(req, "entropy", float(self.entropy[row]))


@dataclass
class EntropyOutput:
    entropy: torch.Tensor  # float32 [batch]

    def copy_to_host(self, copy_tensor):
        return EntropyHost(copy_tensor(self.entropy))

    def to_pp_tensors(self):
        return {"entropy": self.entropy}


def entropy_of(logits: torch.Tensor) -> torch.Tensor:
    """A new float32 [batch] tensor: nothing of the logits is kept, so SGLang's later edits of them do not matter."""
    probs = torch.softmax(logits.float(), dim=-1)
    return -(probs * torch.log(probs.clamp_min(1e-12))).sum(dim=-1)
