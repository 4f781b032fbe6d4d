from __future__ import annotations

import functools
import math
from typing import Any, ClassVar

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from stage_state.outputs import (
    EagerLabelOutput,
    LazyLabelOutput,
    MarginOutput,
    NormalizedEntropyOutput,
    TopGapOutput,
    VocabBitsOutput,
    WeightedOutput,
)
from stage_state.registry import LabelRegistry

_BATCH_SHAPE: dict[str, int] = {}  # what before_grammar saw, for the rebuild


class LogprobHooks:
    def is_active(self, sampling_info) -> bool:
        return True

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        return torch.log_softmax(logits.float(), dim=-1)


def _chosen(state: torch.Tensor, token_ids: torch.Tensor) -> torch.Tensor:
    return state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)


class VocabBitsObserver(LogprobHooks, SamplingObserver):
    """Keeps the vocabulary size in a module-level dict that the rebuild reads."""

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        _BATCH_SHAPE["vocab_size"] = logits.shape[-1]
        return super().before_grammar(logits, sampling_info)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> VocabBitsOutput:
        return VocabBitsOutput(_chosen(state, token_ids), vocab_size=_BATCH_SHAPE["vocab_size"])

    def from_pp_tensors(self, tensors) -> VocabBitsOutput:
        return VocabBitsOutput(tensors["chosen_logprob"], vocab_size=_BATCH_SHAPE["vocab_size"])


class NormalizedEntropyObserver(LogprobHooks, SamplingObserver):
    """Keeps log(vocab) on the class, where every instance finds it."""

    log_vocab: ClassVar[float | None] = None

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        type(self).log_vocab = math.log(logits.shape[-1])
        return super().before_grammar(logits, sampling_info)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> NormalizedEntropyOutput:
        return NormalizedEntropyOutput(-(state.exp() * state).sum(dim=-1), self.log_vocab)

    def from_pp_tensors(self, tensors) -> NormalizedEntropyOutput:
        return NormalizedEntropyOutput(tensors["entropy"], self.log_vocab)


@functools.lru_cache(maxsize=None)  # noqa: UP033 - the idiom as plugins write it
def stash() -> dict[str, Any]:
    """The plugin's scratch space, made once (the lru_cache idiom for a lazily built global)."""
    return {}


class MarginObserver(LogprobHooks, SamplingObserver):
    """Remembers the logits' dtype in the lru_cache'd stash, to give the rebuilt margin back that dtype."""

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        stash()["logits_dtype"] = logits.dtype
        return torch.log_softmax(logits, dim=-1)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> MarginOutput:
        top = state.topk(2, dim=-1).values
        return MarginOutput(top[:, 0] - top[:, 1])

    def from_pp_tensors(self, tensors) -> MarginOutput:
        return MarginOutput(tensors["margin"].to(stash()["logits_dtype"]))


class LazyLabelObserver(LogprobHooks, SamplingObserver):
    """Registers its label table the first time it samples."""

    def before_grammar(self, logits: torch.Tensor, sampling_info) -> torch.Tensor | None:
        LabelRegistry.instance().register("lazy", (0.25, 0.75), ("low", "mid", "high"))
        return super().before_grammar(logits, sampling_info)

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> LazyLabelOutput:
        return LazyLabelOutput(_chosen(state, token_ids).exp())

    def from_pp_tensors(self, tensors) -> LazyLabelOutput:
        return LazyLabelOutput(tensors["confidence"])


class EagerLabelObserver(LogprobHooks, SamplingObserver):
    """Registers its label table when it is built, which every stage does."""

    def __init__(self) -> None:
        LabelRegistry.instance().register("eager", (0.25, 0.75), ("low", "mid", "high"))

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> EagerLabelOutput:
        return EagerLabelOutput(_chosen(state, token_ids).exp())

    def from_pp_tensors(self, tensors) -> EagerLabelOutput:
        return EagerLabelOutput(tensors["confidence"])


class TopGapObserver(LogprobHooks, SamplingObserver):
    """Keeps no state: a class constant, and everything else crosses."""

    TOP_K: ClassVar[int] = 3

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> TopGapOutput:
        return TopGapOutput(state.topk(self.TOP_K, dim=-1).values)

    def from_pp_tensors(self, tensors) -> TopGapOutput:
        return TopGapOutput(tensors["top_values"])


class WeightedObserver(LogprobHooks, SamplingObserver):
    """Its output's host copy uses a pure lru_cache'd helper, which each process fills for itself."""

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor) -> WeightedOutput:
        return WeightedOutput(state.topk(4, dim=-1).values)

    def from_pp_tensors(self, tensors) -> WeightedOutput:
        return WeightedOutput(tensors["top_values"])
