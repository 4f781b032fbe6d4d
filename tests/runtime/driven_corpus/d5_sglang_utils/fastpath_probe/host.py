from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ValuesHost:
    key: str
    values: torch.Tensor

    def consume(self, batch, commits) -> None:
        for req, commit, value in zip(batch.reqs, commits, self.values.tolist()):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault(self.key, []).append(value)
