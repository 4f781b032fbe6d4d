from __future__ import annotations

import torch


class LogprobHooks:
    """Active for every batch; the state is the log-probabilities, a fresh tensor."""

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float(), dim=-1)
