"""Surprisal normalised by log(vocab size) on the host."""

from __future__ import annotations

import math

import torch


class SurprisalHost:
    def __init__(self, surprisal: torch.Tensor, vocab_size: int) -> None:
        self.surprisal = surprisal
        self.vocab_size = vocab_size

    def consume(self, batch, commits) -> None:
        scale = math.log(self.vocab_size) if self.vocab_size > 1 else 1.0
        for req, commit, value in zip(batch.reqs, commits, self.surprisal.tolist()):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault("norm_surprisal", []).append(value / scale)


class SurprisalOutput:
    def __init__(self, surprisal: torch.Tensor, vocab_size: int = 0) -> None:
        self.surprisal = surprisal
        self.vocab_size = vocab_size  # a Python int: no need to send it, it is "just metadata"

    def copy_to_host(self, copy_tensor) -> SurprisalHost:
        return SurprisalHost(copy_tensor(self.surprisal), self.vocab_size)

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"surprisal": self.surprisal}


class SurprisalObserver:
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> SurprisalOutput:
        surprisal = -state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        return SurprisalOutput(surprisal, vocab_size=state.shape[-1])

    def from_pp_tensors(self, tensors) -> SurprisalOutput:
        return SurprisalOutput(tensors["surprisal"])
