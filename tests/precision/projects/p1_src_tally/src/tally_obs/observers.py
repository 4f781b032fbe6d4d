"""The observers. Each is installed alone on a model runner."""

from __future__ import annotations

from typing import Optional

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from tally_obs import factories
from tally_obs.factories import build_histogram
from tally_obs.outputs import EntropyOutput, HistogramOutput, LengthOutput, MarginOutput, RowStatsOutput, TopKOutput


class _LogSoftmaxHooks:
    """The two hooks every observer here shares; not an observer by itself."""

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


class EntropyObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return EntropyOutput.from_logprobs(state)

    def from_pp_tensors(self, tensors):
        return EntropyOutput(entropy=tensors["entropy"])


class CalibrationObserver(_LogSoftmaxHooks, SamplingObserver):
    """Entropy at a calibration temperature."""

    def __init__(self, temperature: float = 0.7):
        self.temperature = temperature

    def after_sample(self, state, token_ids):
        return EntropyOutput.from_logprobs(torch.log_softmax(state / self.temperature, dim=-1))


class RowStatsObserver(_LogSoftmaxHooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return RowStatsOutput.from_rows(state)

    def from_pp_tensors(self, tensors):
        return RowStatsOutput(mean=tensors["mean"], var=tensors["var"])


class MarginObserver(_LogSoftmaxHooks):
    """Structural: no SGLang base, the hooks make it an observer."""

    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        out = MarginOutput(margin=top2[:, 0] - top2[:, 1])
        return out

    def from_pp_tensors(self, tensors):
        return MarginOutput(margin=tensors["margin"], gap=int(tensors["gap"]))


class TopKObserver(_LogSoftmaxHooks, SamplingObserver):
    def __init__(self, k: int = 5):
        self.k = k

    def after_sample(self, state, token_ids):
        return factories.make_topk(state, self.k)

    def from_pp_tensors(self, tensors):
        if "ids" not in tensors:
            return None
        return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])


class HistogramObserver(_LogSoftmaxHooks, SamplingObserver):
    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size

    def after_sample(self, state, token_ids):
        return build_histogram(token_ids, self.vocab_size)

    def from_pp_tensors(self, tensors) -> HistogramOutput:
        return HistogramOutput(tensors["counts"])


class LengthObserver(_LogSoftmaxHooks, SamplingObserver):
    def __init__(self, eos_id: int):
        self.eos_id = eos_id
        self._last: Optional[LengthOutput] = None

    def after_sample(self, state, token_ids):
        mask = token_ids != self.eos_id
        self._last = LengthOutput(lengths=mask.long().cumsum(0), mask=mask)
        return self._last

    def from_pp_tensors(self, tensors):
        return LengthOutput(lengths=tensors["lengths"], mask=tensors["valid"])


class TokenCounterObserver(_LogSoftmaxHooks, SamplingObserver):
    """Counts sampled tokens for metrics; produces no auxiliary output."""

    def __init__(self):
        self.total = 0

    def after_sample(self, state, token_ids):
        self.total += int(token_ids.numel())
        return None
