from __future__ import annotations

import torch


class LogprobHooks:
    """is_active/before_grammar shared by every corp observer: the state is the row log-softmax."""

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)
