"""An output class made by a factory, and an observer instance whose class is defined inside a function."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ValuesHost:
    values: torch.Tensor

    def consume(self, batch, commits):
        for row, req in enumerate(batch.reqs):
            req.customized_info = {"argmax": int(self.values[row])}


def make_single_output(name: str):
    """An output class that sends its one tensor under ``name``."""

    @dataclass
    class Single:
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return ValuesHost(copy_tensor(self.values))

        def to_pp_tensors(self):
            return {name: self.values}

    return Single


ArgmaxOutput = make_single_output("argmax")


def _install():
    class ArgmaxObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits.argmax(dim=-1)

        def after_sample(self, state, token_ids) -> ArgmaxOutput:
            return ArgmaxOutput(state)

        def from_pp_tensors(self, tensors) -> ArgmaxOutput:
            return ArgmaxOutput(tensors["argmax"])

    return ArgmaxObserver()


ARGMAX_OBSERVER = _install()
