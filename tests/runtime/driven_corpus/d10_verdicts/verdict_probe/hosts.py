"""Host objects: each writes one value per request into ``req.customized_info`` under its own key."""


class RowsHost:
    """Writes row ``i`` of ``values`` (as Python numbers) for each request that committed a token."""

    def __init__(self, key, values):
        self.key = key
        self.values = values

    def consume(self, batch, commits):
        for row, (req, commit) in enumerate(zip(batch.reqs, commits)):
            if commit is None:
                continue
            if req.customized_info is None:
                req.customized_info = {}
            req.customized_info.setdefault(self.key, []).append(self.values[row].tolist())
