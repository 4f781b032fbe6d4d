from __future__ import annotations

from obs_core import BaseObserver, LogSoftmaxHooks, RebuildFromFieldsMixin

from obs_plugins.outputs import ConfidenceOutput, EntropyOutput, KeyOutput, PerplexityOutput, SpanOutput, StepOutput


class EntropyObserver(BaseObserver[EntropyOutput]):
    def make_output(self, logprobs, token_ids):
        return EntropyOutput(entropy=-(logprobs.exp() * logprobs).sum(dim=-1))

    def from_pp_tensors(self, tensors):
        return EntropyOutput(entropy=tensors["entropy"])


class SpanObserver(BaseObserver[SpanOutput]):
    """Marks spans of low-confidence tokens."""

    def __init__(self, threshold: float = -2.0):
        self.threshold = threshold

    def make_output(self, logprobs, token_ids):
        chosen = logprobs.gather(-1, token_ids[:, None]).squeeze(-1)
        low = chosen < self.threshold
        return SpanOutput(starts=low.nonzero().flatten(), ends=(~low).nonzero().flatten())


class ScoreObserver(RebuildFromFieldsMixin, BaseObserver[PerplexityOutput]):
    output_cls = PerplexityOutput

    def make_output(self, logprobs, token_ids):
        return PerplexityOutput(nll=-logprobs.gather(-1, token_ids[:, None]).squeeze(-1))


class ConfidenceObserver(BaseObserver[ConfidenceOutput]):
    def make_output(self, logprobs, token_ids):
        return ConfidenceOutput(prob=logprobs.gather(-1, token_ids[:, None]).squeeze(-1).exp())

    def from_pp_tensors(self, tensors):
        return ConfidenceOutput(prob=tensors["prob"])


class StepObserver(LogSoftmaxHooks):
    def after_sample(self, state, token_ids):
        return StepOutput(ids=token_ids)

    def from_pp_tensors(self, tensors):
        return StepOutput(ids=tensors["ids"][: int(tensors["batch"])])


class KeyObserver(LogSoftmaxHooks):
    def after_sample(self, state, token_ids):
        values, ids = state.topk(4, dim=-1)
        return KeyOutput(ids, values)

    def from_pp_tensors(self, tensors):
        return KeyOutput(tensors["ids"], tensors["logprobs"] + tensors["bias"])
