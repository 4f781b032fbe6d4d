"""Outputs written against Python 3.12's ``typing.override``."""

from __future__ import annotations

import sys

from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver

from stagecraft.support import RowHost

if sys.version_info >= (3, 12):
    from typing import override


class FastOutput(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return RowHost("fast", ids=copy_tensor(self.ids))

    if sys.version_info >= (3, 12):

        @override
        def to_pp_tensors(self):
            return {"ids": self.ids}


class FastObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().clone()

    def after_sample(self, state, token_ids):
        return FastOutput(token_ids.clone())

    if sys.version_info >= (3, 12):

        @override
        def from_pp_tensors(self, tensors):
            return FastOutput(tensors["ids"])

    else:

        def from_pp_tensors(self, tensors):
            return FastOutput(tensors["ids"])
