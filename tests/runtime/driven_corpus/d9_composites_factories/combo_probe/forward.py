"""An output that only a forward observer returns: SGLang refuses forward observers when pp_size > 1."""

from __future__ import annotations

from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.model_executor.forward_observer import ForwardObserver


class HiddenNormOutput(DeviceAuxiliaryOutput):
    """No to_pp_tensors: it never needs one, since it never crosses a stage."""

    def __init__(self, norms: torch.Tensor):
        self.norms = norms

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.norms)


class HiddenNormObserver(ForwardObserver):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph) -> Optional[HiddenNormOutput]:
        return HiddenNormOutput(logits_output.hidden_states.norm(dim=-1))
