"""Observers whose rebuild reads a key that was never sent."""

import torch

from verdict_probe.hosts import RowsHost

PREFIX = "__sampling_observer_output__."


class KeepOutput:
    """Which rows keep their sample (1.0) or drop it (0.0), sent as ``keep``."""

    def __init__(self, keep):
        self.keep = keep

    def copy_to_host(self, copy_tensor):
        return RowsHost("keep", copy_tensor(self.keep))

    def to_pp_tensors(self):
        return {"keep": self.keep}


class PrefixedKeyObserver:
    """Reads SGLang's prefixed key, which pop strips before ``from_pp_tensors`` sees the dict."""

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        chosen = state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1)
        return KeepOutput((chosen > 0.001).float())

    def from_pp_tensors(self, tensors):
        return KeepOutput(tensors[PREFIX + "keep"])


class ScoresOutput:
    """The chosen token's probability, sent as ``probs``."""

    def __init__(self, probs):
        self.probs = probs

    def copy_to_host(self, copy_tensor):
        return RowsHost("probs", copy_tensor(self.probs))

    def to_pp_tensors(self):
        return {"probs": self.probs}


class MissingKeyObserver:
    """Sends ``probs`` but rebuilds from ``scores``, a name from before a rename."""

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        return ScoresOutput(state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1))

    def from_pp_tensors(self, tensors):
        return ScoresOutput(_scores(tensors))


def _scores(tensors):
    return tensors["scores"]
