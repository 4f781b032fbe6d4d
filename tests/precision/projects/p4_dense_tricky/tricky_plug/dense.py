"""Every class in this module is correct under pipeline parallelism, however odd it looks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver
from torch import Tensor

# Interfaces of our own ------------------------------------------------------------------------------------


@runtime_checkable
class SupportsPPTransport(Protocol):
    def to_pp_tensors(self) -> Mapping[str, Tensor]: ...


class TypedAuxOutput(DeviceAuxiliaryOutput, Protocol):
    """Our typed view of an output: still an interface."""

    def copy_to_host(self, copy_tensor) -> "HostRows": ...


class TypedObserver(SamplingObserver, Protocol):
    def after_sample(self, state, token_ids) -> Optional[TypedAuxOutput]: ...


# Host side ------------------------------------------------------------------------------------------------


class HostRows:
    def __init__(self, **tensors):
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].aux = {k: v[row] for k, v in self.tensors.items()}


# Outputs --------------------------------------------------------------------------------------------------


def _pack(self):
    return {"values": self.values, "index": self.index}


class PackedOutput(DeviceAuxiliaryOutput):
    """to_pp_tensors bound by assignment."""

    def __init__(self, values: Tensor, index: Tensor):
        self.values = values
        self.index = index

    def copy_to_host(self, copy_tensor):
        return HostRows(values=copy_tensor(self.values), index=copy_tensor(self.index))

    to_pp_tensors = _pack


@dataclass
class TopKOutput:
    ids: Tensor
    logprobs: Tensor

    def copy_to_host(self, copy_tensor):
        return HostRows(ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs}


TopK = TopKOutput  # the short public name


class DeviceArray:
    """A numba-like device array: its copy_to_host is another library's, not SGLang's."""

    def __init__(self, data):
        self.data = data

    def copy_to_host(self, ary=None, stream=0):
        return self.data


class StagingBuffer:
    def copy_to_host(self):
        return bytes(self.view())

    def view(self):
        return memoryview(b"")


# Observers ------------------------------------------------------------------------------------------------


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


class TopKObserver(_Hooks, SamplingObserver):
    """from_pp_tensors is annotated Optional but every path returns an instance or raises."""

    def after_sample(self, state, token_ids):
        values, ids = state.topk(4, dim=-1)
        return TopK(ids=ids, logprobs=values)

    def from_pp_tensors(self, tensors) -> Optional[TopKOutput]:
        try:
            ids = tensors["ids"]
        except KeyError:
            raise RuntimeError("top-k ids missing from the PP tensors") from None
        if ids.dim() == 1:
            return TopKOutput(ids=ids[:, None], logprobs=tensors["logprobs"][:, None])
        return TopKOutput(ids=ids, logprobs=tensors["logprobs"])


class LoggingObserver(_Hooks, SamplingObserver):
    """Logs and returns nothing: falls off the end."""

    def __init__(self, sink):
        self.sink = sink

    def after_sample(self, state, token_ids):
        self.sink.append(token_ids.tolist())


class GuardObserver(_Hooks):
    """Structural; returns None on every path."""

    def __init__(self, banned: int):
        self.banned = banned
        self.hits = 0

    def after_sample(self, state, token_ids):
        if (token_ids == self.banned).any():
            self.hits += 1
            return None
        elif self.hits > 1000:
            return
        else:
            return None


class DefaultObserver(SamplingObserver):
    """Inherits the Protocol's after_sample stub: no output, ever."""

    def is_active(self, sampling_info):
        return False


class _SampleTopK:
    def after_sample(self, state, token_ids):
        values, ids = state.topk(2, dim=-1)
        return TopKOutput(ids, values)


class _RebuildTopK:
    def from_pp_tensors(self, tensors) -> TopKOutput:
        return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])


class MixedObserver(_Hooks, _SampleTopK, _RebuildTopK):
    """Everything from mixins."""


class PackedObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        values, index = state.max(dim=-1)
        return PackedOutput(values, index)

    def from_pp_tensors(self, tensors):
        return PackedOutput(values=tensors["values"], index=tensors["index"])


class Outer:
    """A plugin that keeps its output and observer nested in one namespace."""

    class NestedOutput(DeviceAuxiliaryOutput):
        def __init__(self, chosen: Tensor):
            self.chosen = chosen

        def copy_to_host(self, copy_tensor):
            return HostRows(chosen=copy_tensor(self.chosen))

        def to_pp_tensors(self):
            return {"chosen": self.chosen}

    class NestedObserver(_Hooks, SamplingObserver):
        def after_sample(self, state, token_ids):
            return Outer.NestedOutput(state.gather(-1, token_ids[:, None]).squeeze(-1))

        def from_pp_tensors(self, tensors):
            return Outer.NestedOutput(chosen=tensors["chosen"])


class Scorer:
    """after_sample alone, without is_active/before_grammar, is not an observer SGLang could install."""

    def after_sample(self, state, token_ids):
        return TopKOutput(token_ids[:, None], state.max(dim=-1, keepdim=True).values)
