from __future__ import annotations

from dataclasses import dataclass

import torch
from obs_core import AbstractScoreOutput, FieldTensorsMixin, TensorBundle
from obs_core.bases import NamedHost


@dataclass
class EntropyOutput(FieldTensorsMixin, TensorBundle[float]):
    entropy: torch.Tensor
    host_name = "entropy"


@dataclass
class SpanOutput(TensorBundle[list]):
    starts: torch.Tensor
    ends: torch.Tensor
    host_name = "spans"


@dataclass
class ConfidenceOutput(AbstractScoreOutput):
    prob: torch.Tensor

    def score_name(self) -> str:
        return "confidence"

    @property
    def score(self) -> torch.Tensor:
        return self.prob


@dataclass
class PerplexityOutput(FieldTensorsMixin, AbstractScoreOutput):
    nll: torch.Tensor

    def score_name(self) -> str:
        return "perplexity"

    @property
    def score(self) -> torch.Tensor:
        return self.nll.exp()


@dataclass
class StepOutput(TensorBundle[int]):
    ids: torch.Tensor
    host_name = "step"

    def to_pp_tensors(self):
        return {"ids": self.ids, "batch": len(self.ids)}


class KeyOutput(TensorBundle[dict]):
    host_name = "keys"

    def __init__(self, ids: torch.Tensor, logprobs: torch.Tensor):
        self.ids = ids
        self.logprobs = logprobs

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs}


def host_of(output: TensorBundle) -> NamedHost:
    return output.copy_to_host(lambda t: t.to("cpu", non_blocking=True))
