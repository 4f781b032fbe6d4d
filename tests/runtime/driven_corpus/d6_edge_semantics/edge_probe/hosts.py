from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class RowsHost:
    """Request i gets row i of every tensor in ``rows``; ``note`` is for logs only and never written."""

    rows: dict[str, torch.Tensor]
    note: object = None
    extra: dict = field(default_factory=dict)

    def consume(self, batch, commits) -> None:
        for i, (req, commit) in enumerate(zip(batch.reqs, commits)):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            for name, rows in self.rows.items():
                req.customized_info.setdefault(name, []).append(rows[i].tolist())
