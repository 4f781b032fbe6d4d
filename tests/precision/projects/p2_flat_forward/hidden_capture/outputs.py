from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class Host:
    name: str
    value: torch.Tensor

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                setattr(batch.reqs[row], self.name, self.value[row])


# --- only forward observers return these ---------------------------------------------------------------


@dataclass
class HiddenOutput(DeviceAuxiliaryOutput):
    hidden: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("hidden_states", copy_tensor(self.hidden))


@dataclass
class LayerNormOutput(DeviceAuxiliaryOutput):
    norms: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("layer_norms", copy_tensor(self.norms))


class ProbeOutput(DeviceAuxiliaryOutput):
    def __init__(self, scores: torch.Tensor):
        self.scores = scores

    def copy_to_host(self, copy_tensor):
        return Host("probe", copy_tensor(self.scores))


@dataclass
class CachedOutput(DeviceAuxiliaryOutput):
    logits_norm: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("logits_norm", copy_tensor(self.logits_norm))


@dataclass
class LocalOutput(DeviceAuxiliaryOutput):
    top_logit: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("top_logit", copy_tensor(self.top_logit))


@dataclass
class ResidualOutput(DeviceAuxiliaryOutput):
    residual: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("residual", copy_tensor(self.residual))


# --- returned by both a forward observer and a sampling observer ----------------------------------------


@dataclass
class SharedOutput(DeviceAuxiliaryOutput):
    """Max logit per row; the forward capture and the sampler report it the same way."""

    max_logit: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("max_logit", copy_tensor(self.max_logit))


@dataclass
class AttrSharedOutput(DeviceAuxiliaryOutput):
    argmax: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("argmax", copy_tensor(self.argmax))


@dataclass
class SharedOkOutput(DeviceAuxiliaryOutput):
    logsumexp: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("logsumexp", copy_tensor(self.logsumexp))

    def to_pp_tensors(self):
        return {"logsumexp": self.logsumexp}


# --- only sampling observers return these ---------------------------------------------------------------


@dataclass
class ConfidenceOutput(DeviceAuxiliaryOutput):
    prob: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host("confidence", copy_tensor(self.prob))


@dataclass
class ChosenIdsOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    mask: Optional[torch.Tensor] = None

    def copy_to_host(self, copy_tensor):
        return Host("chosen", copy_tensor(self.ids))

    def to_pp_tensors(self):
        if self.mask is None:
            return {}
        return {"ids": self.ids, "mask": self.mask}
