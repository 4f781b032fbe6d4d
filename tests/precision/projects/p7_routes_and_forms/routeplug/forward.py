from __future__ import annotations

from typing import Callable, Optional

from sglang.srt.model_executor.forward_observer import ForwardObserver

from routeplug.builders import BuilderBase
from routeplug.helpers import deep
from routeplug.outputs import CaptureBase


class AnnotatedCapture(ForwardObserver):
    """Runs a capture callback (capture_hidden, capture_attention) chosen at start-up."""

    def __init__(self, capture: Callable[..., CaptureBase]):
        self.capture = capture

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph) -> Optional[CaptureBase]:
        if logits_output.hidden_states is None:
            return None
        return self.capture(logits_output)


class DeepForward(ForwardObserver):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return deep.summarize(logits_output.next_token_logits)


class ScoreForward(BuilderBase, ForwardObserver):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return self._build(logits_output.next_token_logits)
