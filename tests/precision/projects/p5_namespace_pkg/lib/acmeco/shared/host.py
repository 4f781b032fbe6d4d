class RowsHost:
    def __init__(self, attribute, **tensors):
        self.attribute = attribute
        self.tensors = tensors

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                setattr(batch.reqs[row], self.attribute, {k: v[row] for k, v in self.tensors.items()})
