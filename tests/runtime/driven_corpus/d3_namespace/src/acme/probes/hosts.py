from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ColumnHost:
    name: str
    column: torch.Tensor

    def consume(self, batch, commits) -> None:
        for req, commit, value in zip(batch.reqs, commits, self.column.tolist()):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault(self.name, []).append(value)
