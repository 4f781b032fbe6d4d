"""One observer per plain output."""

from __future__ import annotations

from combo_probe.outputs import EntropyOutput, TopKOutput, entropy_of


class TopKObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().topk(4, dim=-1)

    def after_sample(self, state, token_ids) -> TopKOutput:
        return TopKOutput(state.indices, state.values)

    def from_pp_tensors(self, tensors) -> TopKOutput:
        return TopKOutput(tensors["ids"], tensors["scores"])


class EntropyObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return entropy_of(logits)

    def after_sample(self, state, token_ids) -> EntropyOutput:
        return EntropyOutput(state)

    def from_pp_tensors(self, tensors) -> EntropyOutput:
        return EntropyOutput(tensors["entropy"])
