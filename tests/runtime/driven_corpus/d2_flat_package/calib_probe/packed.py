import torch

from calib_probe.host import RowsHost


class PeakOutput:
    """Two [batch] columns sent as one [batch, 2] tensor (one send instead of two)."""

    def __init__(self, peak_prob: torch.Tensor, chosen_prob: torch.Tensor) -> None:
        self.peak_prob = peak_prob
        self.chosen_prob = chosen_prob

    def copy_to_host(self, copy_tensor):
        return RowsHost(peak_prob=copy_tensor(self.peak_prob), chosen_prob=copy_tensor(self.chosen_prob))

    def to_pp_tensors(self):
        return {"packed": torch.stack([self.peak_prob, self.chosen_prob], dim=-1)}


class PeakObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.softmax(logits.float(), dim=-1)

    def after_sample(self, state, token_ids):
        peak = state.max(dim=-1).values
        chosen = state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
        return PeakOutput(peak, chosen)

    def from_pp_tensors(self, tensors):
        packed = tensors["packed"]
        return PeakOutput(packed[:, 0], packed[:, 1])
