from __future__ import annotations

from typing import Optional

import torch
from sglang.srt.model_executor.forward_observer import ForwardObserver
from sglang.srt.sampling.sampling_observer import SamplingObserver

from inhplug.outputs import (
    FinishedLeaf,
    FwdRows,
    HybridFwdOutput,
    LateOutput,
    PairOutput,
    SampRows,
    SparseOutput,
    StaticOutput,
    TopKOutput,
)


class _Hooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


# Inherited alternate constructors ------------------------------------------------------------------------


class RowsCapture(ForwardObserver):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return FwdRows.from_rows(logits_output.hidden_states)


class RowsSampler(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return SampRows.from_rows(state)

    def from_pp_tensors(self, tensors):
        return SampRows(rows=tensors["rows"])


# A class installed both as a forward and as a sampling observer ------------------------------------------


class HybridObserver(_Hooks):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return HybridFwdOutput(hidden_norm=logits_output.hidden_states.norm(dim=-1))

    def after_sample(self, state, token_ids):
        return FinishedLeaf(score=state.gather(-1, token_ids[:, None]).squeeze(-1))

    def from_pp_tensors(self, tensors):
        return FinishedLeaf(score=tensors["score"])


# A forward observer returning an attribute set in another method ----------------------------------------


class LateCapture(ForwardObserver):
    def __init__(self):
        self.last: Optional[LateOutput] = None

    def capture(self, hidden):
        self.last = LateOutput(residual=hidden)

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        self.capture(logits_output.hidden_states)
        return self.last


# super() routes ---------------------------------------------------------------------------------------


class TopKBaseObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        values, ids = state.topk(3, dim=-1)
        return TopKOutput(ids=ids, logprobs=values)

    def from_pp_tensors(self, tensors):
        return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"])


class CountingTopKObserver(TopKBaseObserver):
    def __init__(self):
        self.calls = 0

    def after_sample(self, state, token_ids):
        self.calls += 1
        return super().after_sample(state, token_ids)


class QuietBase(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        return None


class QuietChild(QuietBase):
    def after_sample(self, state, token_ids):
        token_ids.record_stream(torch.cuda.current_stream())
        return super().after_sample(state, token_ids)


# Bugs --------------------------------------------------------------------------------------------------


class _RebuildPair:
    def from_pp_tensors(self, tensors):
        return PairOutput(first=tensors["first"], second=tensors["first_mask"])


class PairObserver(_Hooks, _RebuildPair):
    def after_sample(self, state, token_ids):
        top2 = state.topk(2, dim=-1).values
        return PairOutput(first=top2[:, 0], second=top2[:, 1])


class SparseObserver(_Hooks, SamplingObserver):
    def after_sample(self, state, token_ids):
        hits = (state > -1.0).any(dim=-1)
        return SparseOutput(indices=hits.nonzero().flatten() if hits.any() else None)

    def from_pp_tensors(self, tensors):
        return SparseOutput(indices=tensors["indices"])


class StaticBuildObserver(_Hooks, SamplingObserver):
    @staticmethod
    def build(state, token_ids):
        return StaticOutput(chosen=state.gather(-1, token_ids[:, None]).squeeze(-1))

    def after_sample(self, state, token_ids):
        return self.build(state, token_ids)
