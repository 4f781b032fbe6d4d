from __future__ import annotations


class RowHost:
    """What the scheduler keeps after the copy: named per-row tensors, handed to each request."""

    def __init__(self, name: str, **tensors):
        self.name = name
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].customized_info[self.name] = {k: v[row].tolist() for k, v in self.tensors.items()}
