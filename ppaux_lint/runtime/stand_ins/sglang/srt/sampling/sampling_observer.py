"""Stand-in for ``sglang.srt.sampling.sampling_observer``: the hooks an observer installs around sampling.

``DeviceAuxiliaryOutput`` is importable from here too, because older SGLang releases defined it here and
plugins written for them still import it from this module.
"""

from __future__ import annotations

from typing import Any, Protocol

from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

__all__ = ["DeviceAuxiliaryOutput", "SamplingObserver"]


class SamplingObserver(Protocol):
    """Asked whether it is active for a batch, sees the logits before grammar masking, and returns its output
    once the tokens are sampled."""

    def is_active(self, sampling_info: Any) -> bool: ...

    def before_grammar(self, logits: Any, sampling_info: Any) -> Any: ...

    def after_sample(self, state: Any, token_ids: Any) -> DeviceAuxiliaryOutput | None: ...
