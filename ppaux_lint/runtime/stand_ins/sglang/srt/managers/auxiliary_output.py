"""Stand-in for ``sglang.srt.managers.auxiliary_output``: what an observer's output is, on the device and on
the host, and the tokens a host copy is handed when they become visible.

Only annotations and subclassing need these, so they are typed loosely (no torch): a plugin's class that
inherits ``DeviceAuxiliaryOutput`` must import without the GPU stack SGLang needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class CommittedTokens:
    """The tokens one request newly committed in a step, as a host copy's ``consume`` receives them."""

    output_index: int
    token_ids: tuple[int, ...]


class HostAuxiliaryOutput(Protocol):
    """The host-side copy of an auxiliary output, consumed once the step's tokens are committed."""

    def consume(self, batch: Any, commits: Sequence[CommittedTokens | None]) -> None: ...


class DeviceAuxiliaryOutput(Protocol):
    """What a sampling observer's ``after_sample`` returns; the scheduler copies it to the host later."""

    def copy_to_host(self, copy_tensor: Callable[[Any], Any]) -> HostAuxiliaryOutput: ...
