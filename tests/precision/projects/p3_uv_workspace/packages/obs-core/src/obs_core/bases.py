"""Bases the plugin packages build on. None of these is instantiated by itself."""

from __future__ import annotations

import abc
from abc import abstractmethod
from typing import Generic, TypeVar

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from obs_core.mixins import LogSoftmaxHooks

T = TypeVar("T")
OutputT = TypeVar("OutputT", bound=DeviceAuxiliaryOutput)


class NamedHost:
    def __init__(self, name: str, tensors: dict):
        self.name = name
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                setattr(batch.reqs[row], self.name, {k: v[row] for k, v in self.tensors.items()})


class TensorBundle(DeviceAuxiliaryOutput, Generic[T]):
    """A device output whose tensors are its annotated fields; ``T`` is the host-side summary type."""

    host_name: str = "bundle"

    def tensors(self) -> dict:
        return {k: v for k, v in vars(self).items() if isinstance(v, torch.Tensor)}

    def copy_to_host(self, copy_tensor):
        return NamedHost(self.host_name, {k: copy_tensor(v) for k, v in self.tensors().items()})


class AbstractScoreOutput(DeviceAuxiliaryOutput, abc.ABC):
    """A per-row score; subclasses say what the score is called."""

    @abstractmethod
    def score_name(self) -> str: ...

    @property
    @abstractmethod
    def score(self) -> torch.Tensor: ...

    def copy_to_host(self, copy_tensor):
        return NamedHost(self.score_name(), {"score": copy_tensor(self.score)})


class BaseObserver(LogSoftmaxHooks, abc.ABC, Generic[OutputT]):
    """Template observer: subclasses build the output, this class wires it to SGLang's hook."""

    @abstractmethod
    def make_output(self, logprobs: torch.Tensor, token_ids: torch.Tensor) -> OutputT: ...

    def after_sample(self, state, token_ids):
        return self.make_output(state, token_ids)
