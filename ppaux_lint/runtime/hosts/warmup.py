"""A round trip of ppaux-lint's own, run once by the verify worker so that no class's process pays for firsts.

Each class is judged in a fork of the worker (``worker.py``). Whatever the worker has not done yet, every fork
does for the first time and then forgets: torch's first call of each kernel (``softmax``, ``multinomial``,
``topk``, the copies and comparisons of the round trip) and the first pass through verify's own code cost
about as much again as a whole round trip done the second time. So the worker drives and round-trips this
module's observer and output, through the helpers the run judges with, before it forks any judge. Torch runs
it on one thread, which the forks then keep, because a second thread (torch's pool would start one) makes
forking the worker unsound. None of the project's code runs here.
"""

from __future__ import annotations

import torch

from ppaux_lint.runtime.hosts.trip import IN_PROCESS, run_request
from ppaux_lint.runtime.terms.helpers import Helpers
from ppaux_lint.runtime.terms.targets import OUTPUT, ClassRef, VerifyTarget
from ppaux_lint.support.records import dataclass


@dataclass
class TopOutput:
    """The top two tokens of each row and their logits, as observer outputs typically are."""

    values: torch.Tensor
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return (copy_tensor(self.values), copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"values": self.values, "ids": self.ids}


class TopObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids) -> TopOutput:
        top = state.topk(2, dim=-1)
        return TopOutput(top.values, top.indices)

    def from_pp_tensors(self, tensors) -> TopOutput:
        return TopOutput(tensors["values"], tensors["ids"])


def warm(helpers: Helpers) -> None:
    """Round-trip ``TopOutput`` on the CPU, driven by ``TopObserver``, with torch held to one thread."""
    torch.set_num_threads(1)
    output, observer = (ClassRef(f"{__name__}.{cls.__name__}", __name__, cls.__name__)
                        for cls in (TopOutput, TopObserver))
    run_request(VerifyTarget(output.symbol, OUTPUT, output, observer, producer=observer), "cpu", IN_PROCESS, 60.0,
                helpers=helpers)
