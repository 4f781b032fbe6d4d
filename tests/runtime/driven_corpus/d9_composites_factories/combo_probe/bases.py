"""A base that only serves to make other outputs: it has no to_pp_tensors of its own, its subclass adds one."""

from __future__ import annotations

import torch


class ChoiceOutputBase:
    """Holds the chosen ids and copies them to the host; subclasses say how they cross a stage."""

    def __init__(self, chosen: torch.Tensor):
        self.chosen = chosen  # int64 [batch]

    def copy_to_host(self, copy_tensor):
        return ChoiceHost(copy_tensor(self.chosen))


class ChoiceHost:
    def __init__(self, chosen):
        self.chosen = chosen

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            req.customized_info = {"chosen": int(self.chosen[row])}


class ChosenOutput(ChoiceOutputBase):
    def to_pp_tensors(self):
        return {"chosen": self.chosen}


class ChosenObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> ChosenOutput:
        return ChosenOutput(token_ids.clone())

    def from_pp_tensors(self, tensors) -> ChosenOutput:
        return ChosenOutput(tensors["chosen"])
