import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver
from utils.common import CommonBase


class AlphaOutput(CommonBase):
    pass


class AlphaObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        return AlphaOutput(state.gather(-1, token_ids[:, None]).squeeze(-1))

    def from_pp_tensors(self, tensors):
        values = tensors.get("values")
        if values is None:
            return None
        return AlphaOutput(values)
