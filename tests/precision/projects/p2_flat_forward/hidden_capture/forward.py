"""Forward observers: SGLang never installs one with pp_size > 1, so what only they return never crosses a stage."""

from __future__ import annotations

from typing import Optional

import torch
from sglang.srt.model_executor.forward_observer import ForwardObserver

from . import builders
from .outputs import (
    AttrSharedOutput,
    CachedOutput,
    HiddenOutput,
    LocalOutput,
    ProbeOutput,
    ResidualOutput,
    SharedOkOutput,
    SharedOutput,
)


class CaptureObserver(ForwardObserver):
    """Returns the last hidden state directly, and the max logit on even steps."""

    def __init__(self):
        self.step = 0

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        self.step += 1
        if logits_output.hidden_states is None:
            return None
        if self.step % 2 == 0:
            return SharedOutput(max_logit=logits_output.next_token_logits.max(dim=-1).values)
        return HiddenOutput(hidden=logits_output.hidden_states.clone())


class LayerNormCapture:
    """Structural forward observer; builds its output in another module."""

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return builders.make_layer_norms(logits_output.hidden_states)


class ProbeCapture(ForwardObserver):
    def __init__(self, probe: torch.nn.Linear):
        self.probe = probe

    def _build(self, hidden: torch.Tensor):
        return ProbeOutput(self.probe(hidden).squeeze(-1))

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return self._build(logits_output.hidden_states)


class StickyCapture(ForwardObserver):
    """Keeps the last output around for debugging, returns it, and also reports the argmax and logsumexp."""

    def __init__(self, mode: str = "norm"):
        self.mode = mode
        self.last: Optional[CachedOutput] = None
        self.last_argmax: Optional[AttrSharedOutput] = None

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        logits = logits_output.next_token_logits
        if self.mode == "argmax":
            self.last_argmax = AttrSharedOutput(argmax=logits.argmax(dim=-1))
            return self.last_argmax
        if self.mode == "lse":
            return SharedOkOutput(logsumexp=torch.logsumexp(logits, dim=-1))
        self.last = CachedOutput(logits_norm=logits.norm(dim=-1))
        return self.last


class ResidualCapture:
    def __init__(self):
        self._cached: Optional[LocalOutput] = None

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        hidden = logits_output.hidden_states
        if hidden is None:
            out = self._cached or LocalOutput(top_logit=logits_output.next_token_logits.max(dim=-1).values)
            return out
        return ResidualOutput(hidden) if can_run_graph else ResidualOutput(hidden.clone())
