"""Records whose transport is written by their metaclass from ``__pp_fields__``."""

from __future__ import annotations

import torch
from corp.typed_obs.hooks import LogprobHooks
from corp.typed_obs.hosts import StatHost
from sglang.srt.sampling.sampling_observer import SamplingObserver


class AutoTransport(type):
    """Gives every class that lists ``__pp_fields__`` a ``to_pp_tensors`` sending those fields."""

    def __new__(mcls, name, bases, namespace):
        cls = super().__new__(mcls, name, bases, namespace)
        fields = namespace.get("__pp_fields__")
        if fields:

            def to_pp_tensors(self):
                return {field: getattr(self, field) for field in fields}

            cls.to_pp_tensors = to_pp_tensors
        return cls


class Record(metaclass=AutoTransport):
    __pp_fields__ = ()

    def __init__(self, **fields):
        for name, value in fields.items():
            setattr(self, name, value)


class LensOutput(Record):
    __pp_fields__ = ("lens",)

    def copy_to_host(self, copy_tensor):
        return StatHost("lens", copy_tensor(self.lens))


class LensObserver(LogprobHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return LensOutput(lens=torch.logsumexp(state, dim=-1))

    def from_pp_tensors(self, tensors):
        return LensOutput(lens=tensors["lens"])
