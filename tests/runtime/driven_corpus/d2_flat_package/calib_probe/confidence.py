import torch

from calib_probe.host import RowsHost


class ConfidenceOutput:
    def __init__(self, margin, chosen_logprob):
        self.margin = margin
        self.chosen_logprob = chosen_logprob

    def copy_to_host(self, copy_tensor):
        return RowsHost(margin=copy_tensor(self.margin), chosen_logprob=copy_tensor(self.chosen_logprob))

    def to_pp_tensors(self):
        return {"chosen_logprob": self.chosen_logprob, "margin": self.margin}


class ConfidenceObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        margin = top2[:, 0] - top2[:, 1]
        chosen = state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        return ConfidenceOutput(chosen_logprob=chosen, margin=margin)

    def from_pp_tensors(self, tensors):
        return ConfidenceOutput(tensors["chosen_logprob"], tensors["margin"])
