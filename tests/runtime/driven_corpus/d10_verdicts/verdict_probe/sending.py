"""A pair whose output cannot be sent, and a pair that works."""

import torch

from verdict_probe.hosts import RowsHost


class LabelledOutput:
    """Top-k token ids, sent with the ``k`` they were taken at: a plain int, which SGLang's add refuses."""

    def __init__(self, top_ids, k):
        self.top_ids = top_ids
        self.k = k

    def copy_to_host(self, copy_tensor):
        return RowsHost("top_ids", copy_tensor(self.top_ids))

    def to_pp_tensors(self):
        return {"top_ids": self.top_ids, "k": self.k}


class LabelledObserver:
    def __init__(self, k=3):
        self.k = k

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().clone()

    def after_sample(self, state, token_ids):
        return LabelledOutput(state.topk(self.k, dim=-1).indices, self.k)

    def from_pp_tensors(self, tensors):
        return LabelledOutput(tensors["top_ids"], int(tensors["k"]))


class TopTwoOutput:
    """The top two log-probabilities of each row."""

    def __init__(self, top_logprobs):
        self.top_logprobs = top_logprobs

    def copy_to_host(self, copy_tensor):
        return RowsHost("top2", copy_tensor(self.top_logprobs))

    def to_pp_tensors(self):
        return {"top_logprobs": self.top_logprobs}


class TopTwoObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        return TopTwoOutput(state.topk(2, dim=-1).values.contiguous())

    def from_pp_tensors(self, tensors):
        return TopTwoOutput(tensors["top_logprobs"])
