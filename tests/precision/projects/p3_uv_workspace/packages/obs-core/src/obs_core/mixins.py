from __future__ import annotations

import dataclasses

import torch


class LogSoftmaxHooks:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)


class FieldTensorsMixin:
    """``to_pp_tensors`` for a dataclass output: every tensor field, under its field name."""

    def to_pp_tensors(self):
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if isinstance(getattr(self, f.name), torch.Tensor)}


class RebuildFromFieldsMixin:
    """``from_pp_tensors`` for an observer whose output class takes its tensors as keyword arguments."""

    output_cls: type

    def from_pp_tensors(self, tensors):
        return self.output_cls(**tensors)
