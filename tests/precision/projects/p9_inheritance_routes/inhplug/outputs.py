from __future__ import annotations

import abc
from abc import abstractmethod
from dataclasses import dataclass
from typing import Optional

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class Host:
    def __init__(self, **tensors):
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].inh = {k: v[row] for k, v in self.tensors.items()}


# An alternate constructor on a base, inherited: `Sub.from_rows(...)` builds a Sub ---------------------------


@dataclass
class RowsBase(DeviceAuxiliaryOutput):
    rows: torch.Tensor

    @classmethod
    def from_rows(cls, rows: torch.Tensor):
        return cls(rows=rows.float())

    def copy_to_host(self, copy_tensor):
        return Host(rows=copy_tensor(self.rows))


@dataclass
class FwdRows(RowsBase):
    """Only the forward capture builds one."""


@dataclass
class SampRows(RowsBase):
    """The sampler builds one; never taught to cross a stage."""


# An abstract transport method: a subclass that does not implement it cannot be instantiated ---------------


class AbstractPP(DeviceAuxiliaryOutput, abc.ABC):
    @abstractmethod
    def to_pp_tensors(self): ...

    def copy_to_host(self, copy_tensor):
        return Host(**{k: copy_tensor(v) for k, v in self.to_pp_tensors().items()})


class ScoredLeafBase(AbstractPP):
    """Adds a score; still abstract."""

    def __init__(self, score: torch.Tensor):
        self.score = score


class FinishedLeaf(ScoredLeafBase):
    def to_pp_tensors(self):
        return {"score": self.score}


# Plain outputs -----------------------------------------------------------------------------------------


@dataclass
class HybridFwdOutput(DeviceAuxiliaryOutput):
    hidden_norm: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(hidden_norm=copy_tensor(self.hidden_norm))


@dataclass
class LateOutput(DeviceAuxiliaryOutput):
    residual: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(residual=copy_tensor(self.residual))


@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        return {"ids": self.ids, "logprobs": self.logprobs}


@dataclass
class PairOutput(DeviceAuxiliaryOutput):
    first: torch.Tensor
    second: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(first=copy_tensor(self.first), second=copy_tensor(self.second))

    def to_pp_tensors(self):
        return {"first": self.first, "second": self.second}


@dataclass
class SparseOutput(DeviceAuxiliaryOutput):
    indices: Optional[torch.Tensor] = None

    def copy_to_host(self, copy_tensor):
        return Host() if self.indices is None else Host(indices=copy_tensor(self.indices))

    def to_pp_tensors(self):
        if self.indices is None:
            return None
        return {"indices": self.indices}


@dataclass
class StaticOutput(DeviceAuxiliaryOutput):
    chosen: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return Host(chosen=copy_tensor(self.chosen))

    def to_pp_tensors(self):
        return {"chosen": self.chosen}
