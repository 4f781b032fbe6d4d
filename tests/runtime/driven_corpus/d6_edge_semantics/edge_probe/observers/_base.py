from __future__ import annotations

import torch


class LogprobHooks:
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        return torch.log_softmax(logits.float(), dim=-1)
