"""Host-side results: what the scheduler keeps after the device-to-host copy."""

from __future__ import annotations


class RowHost:
    def __init__(self, name: str, **tensors):
        self.name = name
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].customized_info[self.name] = {k: v[row].tolist() for k, v in self.tensors.items()}


class TimedHost:
    def __init__(self, inner, produced_at: float):
        self.inner = inner
        self.produced_at = produced_at

    def consume(self, batch, commits):
        self.inner.consume(batch, commits)
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].customized_info["produced_at"] = self.produced_at
