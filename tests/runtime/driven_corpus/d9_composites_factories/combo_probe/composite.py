"""Top-k and entropy from one observer: with SGLang's append_auxiliary_output, and with a container of our own."""

from __future__ import annotations

from dataclasses import dataclass

from sglang.srt.managers.auxiliary_output import (
    CompositeDeviceAuxiliaryOutput,
    CompositeHostAuxiliaryOutput,
    append_auxiliary_output,
)

from combo_probe.outputs import EntropyOutput, TopKOutput, entropy_of


class _Both:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits.float().topk(4, dim=-1), entropy_of(logits)


class CombinedObserver(_Both):
    """Combines its two outputs as SGLang's own observers do; rebuilds SGLang's composite."""

    def after_sample(self, state, token_ids):
        top, entropy = state
        combined = append_auxiliary_output(None, TopKOutput(top.indices, top.values))
        return append_auxiliary_output(combined, EntropyOutput(entropy))

    def from_pp_tensors(self, tensors) -> CompositeDeviceAuxiliaryOutput:
        return CompositeDeviceAuxiliaryOutput(
            (TopKOutput(tensors["ids"], tensors["scores"]), EntropyOutput(tensors["entropy"])))


class StackedObserver(_Both):
    """The same, with append_auxiliary_output on both sides and no annotation."""

    def after_sample(self, state, token_ids):
        top, entropy = state
        return append_auxiliary_output(TopKOutput(top.indices, top.values), EntropyOutput(entropy))

    def from_pp_tensors(self, tensors):
        return append_auxiliary_output(TopKOutput(tensors["ids"], tensors["scores"]),
                                       EntropyOutput(tensors["entropy"]))


class SoloAppendObserver:
    """Accumulates with append_auxiliary_output, but only ever appends one output to None: SGLang's helper
    hands that output back as it is, so a plain EntropyOutput crosses."""

    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return entropy_of(logits)

    def after_sample(self, state, token_ids):
        return append_auxiliary_output(None, EntropyOutput(state))

    def from_pp_tensors(self, tensors) -> EntropyOutput:
        return EntropyOutput(tensors["entropy"])


@dataclass
class CombinedOutput:
    """Both outputs in a container of our own, which flattens them into one mapping."""

    top: TopKOutput
    entropy: EntropyOutput

    def copy_to_host(self, copy_tensor):
        return CompositeHostAuxiliaryOutput((self.top.copy_to_host(copy_tensor),
                                             self.entropy.copy_to_host(copy_tensor)))

    def to_pp_tensors(self):
        return {**self.top.to_pp_tensors(), **self.entropy.to_pp_tensors()}


class BundledObserver(_Both):
    def after_sample(self, state, token_ids) -> CombinedOutput:
        top, entropy = state
        return CombinedOutput(TopKOutput(top.indices, top.values), EntropyOutput(entropy))

    def from_pp_tensors(self, tensors) -> CombinedOutput:
        return CombinedOutput(TopKOutput(tensors["ids"], tensors["scores"]), EntropyOutput(tensors["entropy"]))
