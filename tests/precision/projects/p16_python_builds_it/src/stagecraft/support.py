"""What the outputs and observers are built with: the host object, class decorators, a method wrapper and a
metaclass."""

from __future__ import annotations

import functools
import logging

import torch

log = logging.getLogger(__name__)


class RowHost:
    """The host-side copy: one named row of values per request."""

    def __init__(self, name: str, **tensors):
        self.name = name
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].customized_info[self.name] = {k: v[row].tolist() for k, v in self.tensors.items()}


def pp_fields(*names: str):
    """Give the class a ``to_pp_tensors`` that sends the named tensor fields under their own names."""

    def decorate(cls):
        def to_pp_tensors(self):
            return {name: getattr(self, name) for name in names}

        cls.to_pp_tensors = to_pp_tensors
        return cls

    return decorate


def with_transport(cls):
    """Return a subclass of ``cls`` that sends the fields listed in ``cls.TRANSPORT``."""

    class Transported(cls):
        def to_pp_tensors(self):
            return {name: getattr(self, name) for name in cls.TRANSPORT}

    Transported.__name__ = cls.__name__
    Transported.__qualname__ = cls.__qualname__
    Transported.__module__ = cls.__module__
    return Transported


def with_device(method):
    """Hand ``from_pp_tensors`` its tensors moved to the observer's device, and the device as a third argument.

    The method is written ``def from_pp_tensors(self, tensors, device)``; what SGLang calls is the wrapper,
    ``from_pp_tensors(self, tensors)``.
    """

    @functools.wraps(method)
    def from_pp_tensors(self, tensors):
        device = getattr(self, "device", None) or torch.device("cpu")
        return method(self, {name: tensor.to(device) for name, tensor in tensors.items()}, device)

    return from_pp_tensors


def traced(method):
    """Log what ``from_pp_tensors`` receives and what it rebuilds."""

    @functools.wraps(method)
    def wrapper(self, tensors):
        log.debug("%s received %s", type(self).__name__, sorted(tensors))
        rebuilt = method(self, tensors)
        log.debug("%s rebuilt %s", type(self).__name__, type(rebuilt).__name__)

    return wrapper


class TransportMeta(type):
    """Metaclass of the outputs that list their tensor fields in ``FIELDS``: it knows how to send them."""

    def to_pp_tensors(self):
        return {name: getattr(self, name) for name in self.FIELDS}

    def describe(cls) -> str:
        return f"{cls.__name__}({', '.join(cls.FIELDS)})"
