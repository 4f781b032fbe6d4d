from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class AlternativesHost:
    ids: torch.Tensor
    probs: list[list[float]] | None

    def consume(self, batch, commits) -> None:
        for req, commit, ids, probs in zip(batch.reqs, commits, self.ids.tolist(), self.probs or []):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault("alternatives", []).append(list(zip(ids, probs)))


@dataclass
class AlternativesOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor  # [batch, 3]
    probs: list[list[float]] | None = None  # kept as floats: the response JSON wants floats anyway

    def copy_to_host(self, copy_tensor) -> AlternativesHost:
        return AlternativesHost(copy_tensor(self.ids), self.probs)

    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"ids": self.ids}


class AlternativesObserver:
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> AlternativesOutput:
        top = state.topk(3, dim=-1)
        return AlternativesOutput(ids=top.indices, probs=top.values.tolist())

    def from_pp_tensors(self, tensors) -> AlternativesOutput:
        return AlternativesOutput(ids=tensors["ids"])
