"""Small constructors used by the forward captures."""

from __future__ import annotations

import torch

from .outputs import LayerNormOutput, SharedOutput


def make_layer_norms(hidden_states: torch.Tensor) -> "LayerNormOutput":
    return LayerNormOutput(norms=hidden_states.norm(dim=-1))


def make_shared(logits: torch.Tensor):
    return SharedOutput(max_logit=logits.max(dim=-1).values)
