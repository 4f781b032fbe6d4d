from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from batch_probe.outputs import ClonedWindowOutput, ControlWindowOutput, LateLogprobOutput, ScaledLogprobOutput

CONTROL_TOKENS = 16


class ControlWindowObserver(SamplingObserver):
    """Watches the logits of the control tokens (ids below 16) before the grammar masks them."""

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info):
        window = logits[:, :CONTROL_TOKENS]
        return window, window.max(dim=-1).values

    def after_sample(self, state, token_ids: torch.Tensor) -> ControlWindowOutput:
        window, peak = state
        return ControlWindowOutput(window, peak)

    def from_pp_tensors(self, tensors) -> ControlWindowOutput:
        window = tensors["window"]
        return ControlWindowOutput(window, window.max(dim=-1).values)


class ClonedWindowObserver(SamplingObserver):
    """As ``ControlWindowObserver``, with a copy of the window."""

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info):
        window = logits[:, :CONTROL_TOKENS].clone()
        return window, window.max(dim=-1).values

    def after_sample(self, state, token_ids: torch.Tensor) -> ClonedWindowOutput:
        window, peak = state
        return ClonedWindowOutput(window, peak)

    def from_pp_tensors(self, tensors) -> ClonedWindowOutput:
        window = tensors["window"]
        return ClonedWindowOutput(window, window.max(dim=-1).values)


class LateLogprobObserver(SamplingObserver):
    """Keeps the logits themselves and takes the log-softmax only once the token is known."""

    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return logits

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> LateLogprobOutput:
        logprobs = torch.log_softmax(state.float(), dim=-1)
        return LateLogprobOutput(logprobs.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1))

    def from_pp_tensors(self, tensors) -> LateLogprobOutput:
        return LateLogprobOutput(tensors["chosen_logprob"])


class ScaledLogprobObserver(SamplingObserver):
    """The sampled token's log-probability at the request's own temperature; nothing for greedy batches."""

    def is_active(self, sampling_info) -> bool:
        return not sampling_info.is_all_greedy

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor:
        return torch.log_softmax(logits.float() / sampling_info.temperatures, dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> ScaledLogprobOutput:
        return ScaledLogprobOutput(state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1))

    def from_pp_tensors(self, tensors) -> ScaledLogprobOutput:
        return ScaledLogprobOutput(tensors["chosen_logprob"])
