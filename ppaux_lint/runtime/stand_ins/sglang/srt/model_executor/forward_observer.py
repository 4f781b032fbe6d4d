"""Stand-in for ``sglang.srt.model_executor.forward_observer`` (newer than SGLang 0.5.23): an observer of the
whole forward pass. SGLang refuses one under pipeline parallelism, so its output never meets the PP
helpers; a plugin module that defines one must still import."""

from __future__ import annotations

from typing import Any, Protocol

from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class ForwardObserver(Protocol):
    """Sees each forward pass's result; what it returns rides on the batch result as its auxiliary output."""

    def after_forward(self, batch: Any, forward_batch: Any, logits_output: Any, *,
                      can_run_graph: bool) -> DeviceAuxiliaryOutput | None: ...
