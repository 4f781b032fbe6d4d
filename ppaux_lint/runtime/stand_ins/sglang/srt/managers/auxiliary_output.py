"""Stand-in for ``sglang.srt.managers.auxiliary_output``: what an observer's output is, on the device and on
the host, the tokens a host copy is handed when they become visible, and SGLang's composites.

Every public name SGLang 0.5.23 defines here, with its behaviour (``tests/runtime/test_stand_ins_match_sglang.py``
compares them with the wheel's): a plugin that combines outputs with ``append_auxiliary_output`` gets the
``CompositeDeviceAuxiliaryOutput`` SGLang would give it, which has no ``to_pp_tensors``, so the helpers refuse
it as SGLang's do. Typed loosely (no torch): a plugin's class that inherits ``DeviceAuxiliaryOutput`` must
import without the GPU stack SGLang needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ppaux_lint.support.records import dataclass


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


@dataclass(frozen=True)
class CompositeHostAuxiliaryOutput:
    """The host copies of a composite's outputs, consumed in order."""

    outputs: tuple[HostAuxiliaryOutput, ...]

    def consume(self, batch: Any, commits: Sequence[CommittedTokens | None]) -> None:
        for output in self.outputs:
            output.consume(batch, commits)


@dataclass(frozen=True)
class CompositeDeviceAuxiliaryOutput:
    """Several outputs of one step, as ``append_auxiliary_output`` combines them. No ``to_pp_tensors``, as in
    SGLang 0.5.23: a composite cannot cross a pipeline stage."""

    outputs: tuple[DeviceAuxiliaryOutput, ...]

    def copy_to_host(self, copy_tensor: Callable[[Any], Any]) -> CompositeHostAuxiliaryOutput:
        return CompositeHostAuxiliaryOutput(tuple(output.copy_to_host(copy_tensor) for output in self.outputs))


def append_auxiliary_output(current: DeviceAuxiliaryOutput | None,
                            output: DeviceAuxiliaryOutput | None) -> DeviceAuxiliaryOutput | None:
    """``current`` and ``output`` as one: either alone when the other is None, else a composite of both
    (a composite's outputs spliced in, not nested)."""
    if output is None:
        return current
    if current is None:
        return output
    current_outputs = current.outputs if isinstance(current, CompositeDeviceAuxiliaryOutput) else (current,)
    new_outputs = output.outputs if isinstance(output, CompositeDeviceAuxiliaryOutput) else (output,)
    return CompositeDeviceAuxiliaryOutput(current_outputs + new_outputs)
