import torch

from calib_probe.host import RowsHost


class RegretOutput:
    def __init__(self, best_and_chosen: torch.Tensor) -> None:
        self.best_and_chosen = best_and_chosen  # [batch, 2]

    def copy_to_host(self, copy_tensor):
        return RowsHost(best_and_chosen=copy_tensor(self.best_and_chosen))

    def to_pp_tensors(self):
        return {"best_and_chosen": self.best_and_chosen}


class RegretObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        chosen = state.gather(1, token_ids.view(-1, 1)).squeeze()
        best = state.max(dim=-1).values
        return RegretOutput(torch.stack([best, chosen], dim=-1))

    def from_pp_tensors(self, tensors):
        return RegretOutput(tensors["best_and_chosen"])
