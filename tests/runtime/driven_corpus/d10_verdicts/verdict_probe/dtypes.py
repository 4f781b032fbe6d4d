"""Outputs sent narrower than they are kept: once harmlessly, once losing what the host writes."""

import torch

from verdict_probe.hosts import RowsHost


class NarrowIdsOutput:
    """The sampled ids, kept as int64 and sent as int32 (every vocabulary fits); the rebuild keeps int32."""

    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return RowsHost("ids", copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"ids": self.ids.to(torch.int32)}


class NarrowIdsObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.shape[0]

    def after_sample(self, state, token_ids):
        return NarrowIdsOutput(token_ids.to(torch.int64))

    def from_pp_tensors(self, tensors):
        return NarrowIdsOutput(tensors["ids"])


class HalfLogprobOutput:
    """The chosen token's log-probability, kept as float32 and sent as float16: its host writes other floats."""

    def __init__(self, chosen_logprob):
        self.chosen_logprob = chosen_logprob

    def copy_to_host(self, copy_tensor):
        return RowsHost("chosen_logprob", copy_tensor(self.chosen_logprob))

    def to_pp_tensors(self):
        return {"chosen_logprob": self.chosen_logprob.to(torch.float16)}


class HalfLogprobObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        chosen = state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1)
        return HalfLogprobOutput(chosen)

    def from_pp_tensors(self, tensors):
        return HalfLogprobOutput(tensors["chosen_logprob"])
