from __future__ import annotations

from dataclasses import dataclass

import torch

from stage_state.registry import LabelRegistry


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


@dataclass
class LabelledHost:
    """Writes each request's confidence and the label of the bucket it falls in, from the registry's table
    named ``table``."""

    confidence: torch.Tensor
    table: str

    def consume(self, batch, commits) -> None:
        edges, labels = LabelRegistry.instance().lookup(self.table)
        for req, commit, value in zip(batch.reqs, commits, self.confidence.tolist()):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            label = labels[sum(value >= edge for edge in edges)]
            req.customized_info.setdefault("confidence", []).append(value)
            req.customized_info.setdefault("confidence_label", []).append(label)
