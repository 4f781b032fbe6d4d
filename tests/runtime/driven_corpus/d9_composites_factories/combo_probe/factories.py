"""Observers made by factories, exposed at module level under the names a deployment installs."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from combo_probe.outputs import TopKOutput


def make_topk_observer(k: int):
    """A top-k observer for a given k."""

    class TopKObserverK:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits.float().topk(k, dim=-1)

        def after_sample(self, state, token_ids) -> TopKOutput:
            return TopKOutput(state.indices, state.values)

        def from_pp_tensors(self, tensors) -> TopKOutput:
            return TopKOutput(tensors["ids"], tensors["scores"])

    return TopKObserverK


TopK5Observer = make_topk_observer(5)


@dataclass
class MarginHost:
    margin: torch.Tensor
    best: torch.Tensor

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            req.customized_info = {"margin": float(self.margin[row]), "best": int(self.best[row])}


def make_margin_observer(floor: float):
    """An observer and the output it returns, both defined here; the output is reachable only through it."""

    @dataclass
    class MarginOutput:
        margin: torch.Tensor  # float32 [batch]
        best: torch.Tensor  # int64 [batch]

        def copy_to_host(self, copy_tensor):
            return MarginHost(copy_tensor(self.margin), copy_tensor(self.best))

        def to_pp_tensors(self):
            return {"margin": self.margin, "best": self.best}

    class MarginObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits.float().topk(2, dim=-1)

        def after_sample(self, state, token_ids) -> MarginOutput:
            margin = (state.values[:, 0] - state.values[:, 1]).clamp_min(floor)
            return MarginOutput(margin, token_ids.clone())

        def from_pp_tensors(self, tensors) -> MarginOutput:
            return MarginOutput(tensors["margin"], tensors["best_id"])  # sent as "best"

    return MarginObserver


MarginObserver = make_margin_observer(0.0)
