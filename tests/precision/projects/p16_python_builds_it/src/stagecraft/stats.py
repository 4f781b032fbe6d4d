"""Per-row statistics: bases with placeholder transport, a key each subclass names, dataclasses sent with
``dataclasses.asdict`` and outputs packed by a helper method."""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from stagecraft.support import RowHost


class _Summary(DeviceAuxiliaryOutput):
    """Base of the summaries. Each summary says what it sends; this one sends nothing of its own."""

    def copy_to_host(self, copy_tensor):
        return RowHost(type(self).__name__, **{k: copy_tensor(v) for k, v in self.to_pp_tensors().items()})

    def to_pp_tensors(self):
        return {}


class MeanSummary(_Summary):
    def __init__(self, mean):
        self.mean = mean

    def to_pp_tensors(self):
        return {"mean": self.mean}


class SpreadSummary(_Summary):
    def __init__(self, spread):
        self.spread = spread

    def to_pp_tensors(self):
        return {**super().to_pp_tensors(), "spread": self.spread}


class _Probe(DeviceAuxiliaryOutput):
    """Base of the layer probes; subclasses that carry a reading send it."""

    def copy_to_host(self, copy_tensor):
        return RowHost("probe", **{k: copy_tensor(v) for k, v in vars(self).items() if torch.is_tensor(v)})

    def to_pp_tensors(self):
        return None


class LayerProbe(_Probe):
    def __init__(self, layer):
        self.layer = layer

    def to_pp_tensors(self):
        return {"layer": self.layer}


class IdleProbe(_Probe):
    """Returned for greedy batches, where the probe does not run."""

    def __init__(self, batch: int):
        self.batch = batch


class _Keyed(DeviceAuxiliaryOutput):
    """One tensor of values under the name the subclass gives in ``KEY``."""

    KEY: ClassVar[str]

    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return RowHost(self.KEY or "values", values=copy_tensor(self.values))

    def to_pp_tensors(self):
        return {self.KEY: self.values}


class EntropyKeyed(_Keyed):
    KEY = "entropy"


class RawValues(_Keyed):
    KEY = ""  # unnamed: the host stores these under the default slot


@dataclasses.dataclass
class TokenStats(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    lengths: list[int]

    def copy_to_host(self, copy_tensor):
        return RowHost("token_stats", ids=copy_tensor(self.ids), lengths=torch.tensor(self.lengths))

    def to_pp_tensors(self):
        return dataclasses.asdict(self)


@dataclasses.dataclass
class ChoiceStats(DeviceAuxiliaryOutput):
    NAMES: ClassVar[list[str]] = ["chosen", "logprob"]

    chosen: torch.Tensor
    logprob: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("choice_stats", **{name: copy_tensor(getattr(self, name)) for name in self.NAMES})

    def to_pp_tensors(self):
        return dataclasses.asdict(self)


class TopKOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids, logprobs):
        self.ids = ids
        self.logprobs = logprobs

    def copy_to_host(self, copy_tensor):
        return RowHost("topk", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def _pack(self):
        return {"ids": self.ids, "logprobs": self.logprobs}

    def to_pp_tensors(self):
        return self._pack()


class MaskedOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids, mask: Optional[torch.Tensor] = None):
        self.ids = ids
        self.mask = mask

    def copy_to_host(self, copy_tensor):
        if self.mask is None:
            return RowHost("masked", ids=copy_tensor(self.ids))
        return RowHost("masked", ids=copy_tensor(self.ids), mask=copy_tensor(self.mask))

    def _pack(self):
        packed = {"ids": self.ids}
        if self.mask is not None:
            packed["mask"] = self.mask
        return packed

    def to_pp_tensors(self):
        return self._pack()
