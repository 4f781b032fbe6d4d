"""Device outputs: mixins imported with fallbacks, a class replaced after its statement, converted fields."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

try:
    from forms._mixins import Sends
except ImportError:  # the layout before the mixins moved
    class Sends:
        pass

try:
    from forms._mixins import Quiet
except ImportError:
    class Quiet:
        def to_pp_tensors(self):
            return {"ids": self.ids}


class Host:
    def __init__(self, *tensors):
        self.tensors = tensors

    def consume(self, batch, commits):
        pass


class MixedOutput(Sends, DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))


class QuietOutput(Quiet, DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))


class ChosenOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))


class _ChosenPP(ChosenOutput):
    def to_pp_tensors(self):
        return {"ids": self.ids}


ChosenOutput = _ChosenPP


@dataclass
class RankOutput(DeviceAuxiliaryOutput):
    ranks: list

    def __post_init__(self):
        self.ranks = torch.as_tensor(self.ranks)

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ranks))

    def to_pp_tensors(self):
        return {"ranks": self.ranks}


@dataclass
class LengthOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    lengths: list[int]

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"ids": self.ids, "lengths": self.lengths}


class LazyOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids
        self.to_pp_tensors = lambda: {"ids": self.ids}

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))


class CallableOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    @classmethod
    def rebuild(cls, tensors):
        return cls(tensors["ids"])

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))

    @property
    def to_pp_tensors(self):
        return lambda: {"ids": self.ids}


class DictPropertyOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))

    @property
    def to_pp_tensors(self):
        return {"ids": self.ids}


class GreedyOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"ids": self.ids}


class SampledOutput(GreedyOutput):
    def __init__(self, ids, probs):
        super().__init__(ids)
        self.probs = probs

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids), copy_tensor(self.probs))

    def to_pp_tensors(self):
        return {"ids": self.ids, "probs": self.probs}


class MaskOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids, mask=None):
        self.ids = ids
        self.mask = mask

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"ids": self.ids}


class RegisteredBase(DeviceAuxiliaryOutput):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.to_pp_tensors = lambda self: {"ids": self.ids}

    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.ids))


class RegisteredChild(RegisteredBase):
    pass
