"""An observer whose rebuild changes values past the first: it applies a cumulative sum that was applied already."""

import torch

from verdict_probe.hosts import RowsHost


class CumLogprobOutput:
    """The cumulative log-probability of each row's top four tokens: ``[batch, 4]``."""

    def __init__(self, cum_logprobs):
        self.cum_logprobs = cum_logprobs

    def copy_to_host(self, copy_tensor):
        return RowsHost("cum_logprobs", copy_tensor(self.cum_logprobs))

    def to_pp_tensors(self):
        return {"cum_logprobs": self.cum_logprobs}


class CumLogprobObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        return CumLogprobOutput(state.topk(4, dim=-1).values.cumsum(dim=-1))

    def from_pp_tensors(self, tensors):
        return CumLogprobOutput(tensors["cum_logprobs"].cumsum(dim=-1))
