"""A plugin with the three bugs one example hides, for the ``--explore`` tests of verify and of the pytest plugin.

A ``squeeze()`` that drops the batch at 1, ids sent as ``float16`` (exact up to 2048 only), a ``view(4, -1)``
that bakes in the example's batch; two correct pairs (one with its own example, one synthesised); and a class
with no tensor to vary.
"""

import textwrap

PAIRS = textwrap.dedent('''
from dataclasses import dataclass

import torch


@dataclass
class SqueezeOutput:
    ids: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        return cls(torch.arange(16, device=device).reshape(4, 4))

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.ids)

    def to_pp_tensors(self):
        return {"ids": self.ids}


class SqueezeObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> SqueezeOutput:
        return SqueezeOutput(token_ids)

    def from_pp_tensors(self, tensors) -> SqueezeOutput:
        return SqueezeOutput(tensors["ids"].squeeze())


@dataclass
class HalfIdsOutput:
    ids: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        return cls(torch.tensor([[3, 17], [5, 2047]], device=device))

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.ids)

    def to_pp_tensors(self):
        return {"ids": self.ids.to(torch.float16)}


class HalfIdsObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> HalfIdsOutput:
        return HalfIdsOutput(token_ids)

    def from_pp_tensors(self, tensors) -> HalfIdsOutput:
        return HalfIdsOutput(tensors["ids"].long())


@dataclass
class ViewOutput:
    logprobs: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        return cls(torch.linspace(-3.0, 0.0, 8, device=device).reshape(4, 2))

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.logprobs)

    def to_pp_tensors(self):
        return {"logprobs": self.logprobs.flatten()}


class ViewObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> ViewOutput:
        return ViewOutput(state)

    def from_pp_tensors(self, tensors) -> ViewOutput:
        return ViewOutput(tensors["logprobs"].view(4, -1))


@dataclass
class TopkOutput:
    ids: torch.Tensor
    scores: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        return cls(torch.tensor([[1, 2], [3, 4], [5, 6]], device=device),
                   torch.tensor([[0.5, 0.25], [1.0, 2.0], [3.0, 4.0]], device=device))

    def copy_to_host(self, copy_tensor):
        return (copy_tensor(self.ids), copy_tensor(self.scores))

    def to_pp_tensors(self):
        return {"ids": self.ids, "scores": self.scores}


class TopkObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> TopkOutput:
        return TopkOutput(token_ids, state)

    def from_pp_tensors(self, tensors) -> TopkOutput:
        return TopkOutput(tensors["ids"], tensors["scores"])


@dataclass
class MaskOutput:
    mask: torch.Tensor
    lens: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return {"mask": copy_tensor(self.mask), "lens": copy_tensor(self.lens)}

    def to_pp_tensors(self):
        return {"mask": self.mask, "lens": self.lens}


class MaskObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> MaskOutput:
        return MaskOutput(state, token_ids)

    def from_pp_tensors(self, tensors) -> MaskOutput:
        return MaskOutput(tensors["mask"], tensors["lens"])


class ConstantOutput:
    @classmethod
    def ppaux_example(cls, device):
        return cls()

    def copy_to_host(self, copy_tensor):
        return None

    def to_pp_tensors(self):
        return {"flag": torch.ones(1)}


class ConstantObserver:
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids) -> ConstantOutput:
        return ConstantOutput()

    def from_pp_tensors(self, tensors) -> ConstantOutput:
        return ConstantOutput()
''')
