from typing import NamedTuple

import torch

from calib_probe.host import RowsHost


class EntropyOutput(NamedTuple):
    entropy: torch.Tensor
    chosen_logprob: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowsHost(entropy=copy_tensor(self.entropy), chosen_logprob=copy_tensor(self.chosen_logprob))

    def to_pp_tensors(self):
        return {"entropy": self.entropy, "chosen_logprob": self.chosen_logprob}


class EntropyObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        return logprobs, logprobs.exp()

    def after_sample(self, state, token_ids):
        logprobs, probs = state
        entropy = -(probs * logprobs).sum(dim=-1)
        chosen = logprobs.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        return EntropyOutput(entropy, chosen)

    def from_pp_tensors(self, tensors):
        return EntropyOutput(tensors["entropy"], tensors["chosen_logprob"])
