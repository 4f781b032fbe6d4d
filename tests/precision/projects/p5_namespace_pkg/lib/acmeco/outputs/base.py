from __future__ import annotations

import torch
from acmeco.shared.host import RowsHost
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class RowOutput(DeviceAuxiliaryOutput):
    """One tensor per request row; subclasses name it."""

    attribute = "row"

    def __init__(self, rows: torch.Tensor):
        self.rows = rows

    def copy_to_host(self, copy_tensor):
        return RowsHost(self.attribute, rows=copy_tensor(self.rows))

    def to_pp_tensors(self):
        return {"rows": self.rows}
