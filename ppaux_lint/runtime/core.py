"""The pipeline-parallel transport contract, reimplemented so verify needs no SGLang install.

The helpers must be indistinguishable from SGLang's (0.5.23) to a caller: the
same checks in the same order, the same ``RuntimeError`` texts, and the same
dict left behind when they raise, because ``verify`` promises that a class it
passes will pass under SGLang, and a class it fails fails with SGLang's words.
``tests/runtime/test_conformance.py`` holds that promise against the wheel, and
``tests/runtime/test_upstream_helper_tests.py`` runs SGLang's own unit tests of
the helpers against this module: every module-level name they use is here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import (
    Any,
    Protocol,
    runtime_checkable,
)

import torch

from ppaux_lint.contract import pp_errors

PP_OUTPUT_KEY_PREFIX = pp_errors.PP_KEY_PREFIX
"""Marks the auxiliary output's entries among the tensors one PP stage sends the next."""
_OUTPUT_PREFIX = PP_OUTPUT_KEY_PREFIX
"""SGLang's own (private) name for the prefix. Its unit tests read it, so this module must have it too to
be a drop-in for ``sglang.srt.sampling.sampling_observer_pp``; verify's ``--helpers`` reads it from either."""


class _HostOutput(Protocol):
    def consume(self, batch: Any, commits: Any) -> None: ...


class _DeviceOutput(Protocol):
    """Local stand-in for SGLang's ``DeviceAuxiliaryOutput``, for annotations only."""

    def copy_to_host(self, copy_tensor: Callable[[torch.Tensor], torch.Tensor]) -> _HostOutput: ...


@runtime_checkable
class PipelineParallelAuxiliaryOutput(Protocol):
    """An auxiliary output that can flatten itself into named tensors for the next stage."""

    def to_pp_tensors(self) -> Mapping[str, torch.Tensor]: ...


@runtime_checkable
class PipelineParallelSamplingObserver(Protocol):
    """An observer that can rebuild, on the receiving stage, the output its peer flattened."""

    def from_pp_tensors(self, tensors: Mapping[str, torch.Tensor]) -> _DeviceOutput: ...


def add_auxiliary_output_to_pp_tensors(
    tensors: MutableMapping[str, Any],
    output: _DeviceOutput | None,
) -> None:
    """Store ``output``'s tensors in ``tensors`` under prefixed keys.

    Entries are stored one at a time, so an invalid entry leaves the earlier
    ones in ``tensors``: SGLang behaves so, and verify must show the same
    partial state a real stage would be left with.
    """
    if output is None:
        return
    if not isinstance(output, PipelineParallelAuxiliaryOutput):
        raise RuntimeError(pp_errors.OUTPUT_NOT_PP)
    named = output.to_pp_tensors()
    if not named:
        raise RuntimeError(pp_errors.EMPTY_OUTPUT)
    for name, value in named.items():
        if not isinstance(name, str) or not name:
            raise RuntimeError(pp_errors.BAD_NAME)
        if not torch.is_tensor(value):
            raise RuntimeError(pp_errors.NOT_A_TENSOR.format(name=name))
        key = PP_OUTPUT_KEY_PREFIX + name
        if key in tensors:
            raise RuntimeError(pp_errors.DUPLICATE.format(name=name))
        tensors[key] = value


def pop_auxiliary_output_from_pp_tensors(
    tensors: MutableMapping[str, Any],
    observer: Any,
) -> _DeviceOutput | None:
    """Rebuild the auxiliary output carried in ``tensors`` and remove its entries.

    The entries are removed only after the observer has rebuilt the output,
    so any failure leaves ``tensors`` exactly as it arrived. The names removed
    are those of the very dict handed to the observer, as in SGLang, so an
    observer that edits that dict changes what is removed.
    """
    received: dict[str, Any] = {}
    for key, value in tensors.items():
        if key.startswith(PP_OUTPUT_KEY_PREFIX):
            received[key[len(PP_OUTPUT_KEY_PREFIX) :]] = value
    if not received:
        return None
    if observer is None:
        raise RuntimeError(pp_errors.NO_OBSERVER)
    if not isinstance(observer, PipelineParallelSamplingObserver):
        raise RuntimeError(pp_errors.OBSERVER_NOT_PP)
    for value in received.values():
        if not torch.is_tensor(value):
            raise RuntimeError(pp_errors.RECEIVED_NON_TENSOR)
    rebuilt = observer.from_pp_tensors(received)
    if rebuilt is None:
        raise RuntimeError(pp_errors.NOT_RECONSTRUCTED)
    for name in received:
        del tensors[PP_OUTPUT_KEY_PREFIX + name]
    return rebuilt
