"""alpha's copy of the shared helpers: its CommonBase knows how to cross a stage."""

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class Host:
    def __init__(self, values):
        self.values = values

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].alpha = self.values[row]


class CommonBase(DeviceAuxiliaryOutput):
    def __init__(self, values: torch.Tensor):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.values))

    def to_pp_tensors(self):
        return {"values": self.values}
