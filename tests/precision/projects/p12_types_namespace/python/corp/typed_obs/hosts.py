from __future__ import annotations


class StatHost:
    def __init__(self, name: str, value):
        self.name = name
        self.value = value

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                value = self.value[row] if getattr(self.value, "ndim", 0) else self.value
                batch.reqs[row].customized_info[self.name] = value.tolist() if hasattr(value, "tolist") else value
