"""Scheduler-side halves of the outputs: one list entry per committed token."""

from __future__ import annotations

import torch


class PerRequestHost:
    """Host copy holding batch-major tensors; ``consume`` appends row ``i`` to request ``i``."""

    def __init__(self, fields: dict[str, torch.Tensor]) -> None:
        self.fields = fields

    def consume(self, batch, commits) -> None:
        for i, (req, commit) in enumerate(zip(batch.reqs, commits)):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            for name, values in self.fields.items():
                req.customized_info.setdefault(name, []).append(values[i].tolist())
