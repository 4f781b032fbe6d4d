"""Device outputs whose tensor names come from kvstats.keys."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from kvstats.hosts import RowHost
from kvstats.keys import K_ACCEPTED, K_IDS, K_LOGPROBS, K_PROPOSED, K_TOKEN_IDS, SPEC_NS, TAP_LAYER


@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("topk", ids=copy_tensor(self.ids), logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        return {K_IDS: self.ids, K_LOGPROBS: self.logprobs}


@dataclass
class AcceptOutput(DeviceAuxiliaryOutput):
    accepted: torch.Tensor
    proposed: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("accept", accepted=copy_tensor(self.accepted), proposed=copy_tensor(self.proposed))

    def to_pp_tensors(self):
        return {K_ACCEPTED: self.accepted, K_PROPOSED: self.proposed}


@dataclass
class SpecTopOutput(DeviceAuxiliaryOutput):
    top1: torch.Tensor
    top2: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("spec_top", top1=copy_tensor(self.top1), top2=copy_tensor(self.top2))

    def to_pp_tensors(self):
        return {f"{SPEC_NS}.top1": self.top1, f"{SPEC_NS}.top2": self.top2}


@dataclass
class DraftOutput(DeviceAuxiliaryOutput):
    KEY_LEN = "draft_len"
    KEY_CONF = "draft_conf"

    lengths: torch.Tensor
    confidence: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("draft", lengths=copy_tensor(self.lengths), confidence=copy_tensor(self.confidence))

    def to_pp_tensors(self):
        return {self.KEY_LEN: self.lengths, DraftOutput.KEY_CONF: self.confidence}


@dataclass
class HiddenTapOutput(DeviceAuxiliaryOutput):
    """Norm of the logits at the tapped layer's position, keyed by the layer it came from."""

    norm: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("tap", norm=copy_tensor(self.norm))

    def to_pp_tensors(self):
        return {TAP_LAYER: self.norm}


@dataclass
class ChoiceIdsOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    token_ids: torch.Tensor
    logprobs: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return RowHost("choice_ids", ids=copy_tensor(self.ids), token_ids=copy_tensor(self.token_ids),
                       logprobs=copy_tensor(self.logprobs))

    def to_pp_tensors(self):
        return {K_IDS: self.ids, K_TOKEN_IDS: self.token_ids, K_LOGPROBS: self.logprobs}


@dataclass
class ChoiceOutput(DeviceAuxiliaryOutput):
    chosen_logprob: torch.Tensor
    source: str

    def copy_to_host(self, copy_tensor):
        return RowHost(f"choice_{self.source}", chosen_logprob=copy_tensor(self.chosen_logprob))
