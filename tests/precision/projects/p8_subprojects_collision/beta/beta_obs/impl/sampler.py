"""beta_obs/impl has no __init__.py: Python imports it as a namespace portion inside the regular beta_obs."""

import torch
from beta_obs.outputs import BetaOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver


class BetaSampler(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        return BetaOutput(state.max(dim=-1).values)
