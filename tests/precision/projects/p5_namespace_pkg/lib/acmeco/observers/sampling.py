from __future__ import annotations

import torch
from acmeco.outputs.base import RowOutput
from acmeco.outputs.topk import ChosenLogprob, DraftOutput, RankOutput, SurpriseOutput, TopKOutput
from sglang.srt.sampling.sampling_observer import SamplingObserver


class _Base(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


class ChosenObserver(_Base):
    def after_sample(self, state, token_ids) -> RowOutput:
        return ChosenLogprob(state.gather(-1, token_ids[:, None]).squeeze(-1))

    def from_pp_tensors(self, tensors):
        return ChosenLogprob(tensors["rows"])


class RankObserver(_Base):
    def after_sample(self, state, token_ids):
        chosen = state.gather(-1, token_ids[:, None])
        return RankOutput((state > chosen).sum(dim=-1))


class TopKObserver(_Base):
    def __init__(self, k: int = 8):
        self.k = k

    def after_sample(self, state, token_ids):
        values, ids = state.topk(self.k, dim=-1)
        return TopKOutput(ids=ids, logprobs=values, k=self.k)

    def from_pp_tensors(self, tensors):
        return TopKOutput(ids=tensors["ids"], logprobs=tensors["logprobs"], k=self.k)


class DraftObserver(_Base):
    def after_sample(self, state, token_ids):
        return DraftOutput(draft_ids=state.argmax(dim=-1))

    def from_pp_tensors(self, tensors):
        return DraftOutput(draft_ids=tensors["draft_ids"])


class SurpriseObserver(_Base):
    def after_sample(self, state, token_ids):
        surprise = -state.gather(-1, token_ids[:, None]).squeeze(-1)
        result = SurpriseOutput(surprise)
        return result

    def from_pp_tensors(self, tensors):
        return SurpriseOutput(tensors["surprise"])
