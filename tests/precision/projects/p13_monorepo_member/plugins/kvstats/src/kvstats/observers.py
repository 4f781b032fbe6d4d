"""Sampling observers. Each reads back the names kvstats.keys gives its output."""

from __future__ import annotations

import functools

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

from kvstats.keys import K_IDS, K_LOGPROBS, K_TOKEN_IDS, SPEC_NS, TAP_LAYER
from kvstats.outputs import (
    AcceptOutput,
    ChoiceIdsOutput,
    ChoiceOutput,
    DraftOutput,
    HiddenTapOutput,
    SpecTopOutput,
    TopKOutput,
)
from kvstats.parts import EntropyPart, GapPart, RowReport, StepReport, TopPart


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


class TopKObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(4, dim=-1)
        return TopKOutput(ids=ids, logprobs=logprobs)

    def from_pp_tensors(self, tensors):
        return TopKOutput(ids=tensors[K_IDS], logprobs=tensors[K_LOGPROBS])


class AcceptObserver(_Hooks, SamplingObserver):
    """How many of the drafted candidates the sampler accepted (the top-4 stand in for the draft)."""

    def after_sample(self, state, token_ids):
        proposed = state.topk(4, dim=-1).indices
        accepted = (proposed == token_ids.long()[:, None]).any(dim=-1)
        return AcceptOutput(accepted=accepted, proposed=proposed)

    def from_pp_tensors(self, tensors):
        return AcceptOutput(accepted=tensors["accept"], proposed=tensors["proposed"])


class SpecTopObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        return SpecTopOutput(top1=top2[:, 0].contiguous(), top2=top2[:, 1].contiguous())

    def from_pp_tensors(self, tensors):
        return SpecTopOutput(top1=tensors[f"{SPEC_NS}_top1"], top2=tensors[f"{SPEC_NS}.top2"])


class DraftObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        probs = state.exp()
        return DraftOutput(lengths=(probs > 0.05).sum(dim=-1), confidence=probs.amax(dim=-1))

    def from_pp_tensors(self, tensors):
        return DraftOutput(lengths=tensors[DraftOutput.KEY_LEN], confidence=tensors[DraftOutput.KEY_CONF])


class HiddenTapObserver(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().norm(dim=-1)

    def after_sample(self, state, token_ids):
        return HiddenTapOutput(norm=state)

    def from_pp_tensors(self, tensors):
        return HiddenTapOutput(norm=tensors[TAP_LAYER])


class ChoiceIdsObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(3, dim=-1)
        return ChoiceIdsOutput(ids=ids, token_ids=token_ids.clone(), logprobs=logprobs)

    def from_pp_tensors(self, tensors):
        return ChoiceIdsOutput(ids=tensors[K_IDS], token_ids=tensors[K_TOKEN_IDS], logprobs=tensors[K_LOGPROBS])


class ChoiceObserver(_Hooks, SamplingObserver):
    def __init__(self):
        self._emit = functools.partial(ChoiceOutput, source="sampler")

    def after_sample(self, state, token_ids):
        return self._emit(chosen_logprob=state.gather(-1, token_ids.long()[:, None]).squeeze(-1))

    def from_pp_tensors(self, tensors):
        return ChoiceOutput(chosen_logprob=tensors["chosen_logprob"], source="sampler")


class StepReportObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        logprobs, ids = state.topk(2, dim=-1)
        entropy = -(state.exp() * state).sum(dim=-1)
        return StepReport(top=TopPart(ids=ids, logprobs=logprobs), entropy=EntropyPart(value=entropy))

    def from_pp_tensors(self, tensors):
        return StepReport(top=TopPart(ids=tensors["top.ids"], logprobs=tensors["top.logprobs"]),
                          entropy=EntropyPart(value=tensors["entropy.value"]))


class RowReportObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        return RowReport(chosen=token_ids.clone(), detail=GapPart(gaps=top2[:, 0] - top2[:, 1]))

    def from_pp_tensors(self, tensors):
        return RowReport(chosen=tensors["chosen"], detail=GapPart(gaps=tensors["detail"]))
