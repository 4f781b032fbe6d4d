from __future__ import annotations


class RowHost:
    def __init__(self, name: str, **tensors):
        self.name = name
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].customized_info[self.name] = {k: v[row].tolist() for k, v in self.tensors.items()}


class CompositeHost:
    def __init__(self, *parts):
        self.parts = parts

    def consume(self, batch, commits):
        for part in self.parts:
            part.consume(batch, commits)
