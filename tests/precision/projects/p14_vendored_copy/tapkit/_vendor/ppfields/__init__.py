"""ppfields 0.3.1 (vendored): declare which tensors an SGLang auxiliary output sends between pipeline
stages, and let the observer rebuild it from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

__version__ = "0.3.1"

T = TypeVar("T")


def sends(*names):
    """Class decorator: ``to_pp_tensors`` sends the named attributes under their names."""

    def decorate(cls):
        def to_pp_tensors(self):
            return {name: getattr(self, name) for name in names}

        setattr(cls, "to_pp_tensors", to_pp_tensors)
        return cls

    return decorate


def rebuilt_as(output_cls):
    """Class decorator for observers: ``from_pp_tensors`` calls ``output_cls(**tensors)``."""

    def decorate(cls):
        def from_pp_tensors(self, tensors):
            return output_cls(**tensors)

        setattr(cls, "from_pp_tensors", from_pp_tensors)
        return cls

    return decorate


def tensors_of(*names):
    """A ``to_pp_tensors`` to assign: ``Output.to_pp_tensors = tensors_of("ids", "logprobs")``."""

    def to_pp_tensors(self):
        return {name: getattr(self, name) for name in names}

    return to_pp_tensors


class ScalarHost:
    def __init__(self, name: str, value):
        self.name = name
        self.value = value

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].customized_info[self.name] = self.value


@dataclass
class Scalar(DeviceAuxiliaryOutput, Generic[T]):
    """One value per batch, sent under 'value'."""

    value: T

    def copy_to_host(self, copy_tensor):
        value = copy_tensor(self.value) if isinstance(self.value, torch.Tensor) else self.value
        return ScalarHost(type(self).__name__, value)

    def to_pp_tensors(self):
        return {"value": self.value}
