"""A correct output and observer that import SGLang's protocol modules, as a plugin does: the pair the tests of
verify's stand-ins for SGLang (``tests/runtime/test_stand_ins.py``, ``tests/pytest_plugin/test_without_sglang.py``)
import a plugin with where SGLang is not installed."""

IMPORTS = """
from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver
"""

CLASSES = '''
@dataclass
class TopOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return TopOutput(copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {"ids": self.ids}


class TopObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits

    def after_sample(self, state, token_ids) -> TopOutput:
        return TopOutput(token_ids)

    def from_pp_tensors(self, tensors) -> TopOutput:
        return TopOutput(tensors["ids"])
'''
