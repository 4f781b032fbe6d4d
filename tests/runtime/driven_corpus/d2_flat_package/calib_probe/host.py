import torch


class RowsHost:
    """Host side: appends row i of each named tensor to request i's customized_info."""

    def __init__(self, **columns: torch.Tensor) -> None:
        self.columns = columns

    def consume(self, batch, commits):
        for i, (req, commit) in enumerate(zip(batch.reqs, commits)):
            if commit is None:
                continue
            info = req.customized_info
            if info is None:
                info = req.customized_info = {}
            for name, column in self.columns.items():
                info.setdefault(name, []).append(column[i].tolist())
