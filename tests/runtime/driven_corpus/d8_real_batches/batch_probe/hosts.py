from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class RowsHost:
    """Request i gets row i of every tensor in ``rows``."""

    rows: dict[str, torch.Tensor]

    def consume(self, batch, commits) -> None:
        for i, (req, commit) in enumerate(zip(batch.reqs, commits)):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            for name, rows in self.rows.items():
                req.customized_info.setdefault(name, []).append(rows[i].tolist())
