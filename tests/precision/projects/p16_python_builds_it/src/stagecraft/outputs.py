"""Device outputs: methods bound twice, bound to None, declared for type checkers only, given by a
metaclass, and added by decorators applied as plain calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, TypeVar

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput

from stagecraft.support import RowHost, TransportMeta, with_transport

if TYPE_CHECKING:
    _C = TypeVar("_C", bound=type)

    def pp_fields(*names: str) -> Callable[[_C], _C]:
        """Typed signature for mypy (the real decorator is untyped)."""
        ...
else:
    from stagecraft.support import pp_fields


class SendsIds:
    """Mixin: sends the token ids."""

    def to_pp_tensors(self):
        return {"ids": self.ids}


class RankOutput(DeviceAuxiliaryOutput):
    """Rank of each sampled token among the logits."""

    def __init__(self, ids, ranks):
        self.ids = ids
        self.ranks = ranks

    def copy_to_host(self, copy_tensor):
        return RowHost("rank", ids=copy_tensor(self.ids), ranks=copy_tensor(self.ranks))

    def to_pp_tensors(self):
        return {"ids": self.ids, "ranks": self.ranks}

    def rank_of(self, row: int) -> int:
        return int(self.ranks[row])

    def to_pp_tensors(self):  # noqa: F811
        return {"ids": self.ids}


class ScoreOutput(DeviceAuxiliaryOutput):
    """Chosen-token score."""

    def __init__(self, scores):
        self.scores = scores

    def copy_to_host(self, copy_tensor):
        return RowHost("score", scores=copy_tensor(self.scores))

    def to_pp_tensors(self):
        return {}

    def to_pp_tensors(self):  # noqa: F811
        return {"scores": self.scores}


class DraftOutput(DeviceAuxiliaryOutput):
    """Draft tokens proposed for the next step."""

    def __init__(self, draft):
        self.draft = draft

    def copy_to_host(self, copy_tensor):
        return RowHost("draft", draft=copy_tensor(self.draft))

    def to_pp_tensors(self):
        return {"draft": self.draft}

    # Drafts are not sent across stages until the receiver handles variable lengths.
    to_pp_tensors = None  # noqa: F811


@pp_fields("heat")
class HeatOutput(DeviceAuxiliaryOutput):
    """Softmax temperature actually applied to each row."""

    def __init__(self, heat):
        self.heat = heat

    def copy_to_host(self, copy_tensor):
        return RowHost("heat", heat=copy_tensor(self.heat))


class TypedIdsOutput(SendsIds, DeviceAuxiliaryOutput):
    """Token ids, with the transport method declared for type checkers."""

    if TYPE_CHECKING:

        def to_pp_tensors(self) -> Mapping[str, torch.Tensor]: ...

    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return RowHost("typed_ids", ids=copy_tensor(self.ids))


class MarginOutput(metaclass=TransportMeta):
    """Top-1 minus top-2 logit."""

    FIELDS = ("margin",)

    def __init__(self, margin):
        self.margin = margin

    def copy_to_host(self, copy_tensor):
        return RowHost("margin", margin=copy_tensor(self.margin))


class CountsOutput(DeviceAuxiliaryOutput):
    """How many candidates survived top-k/top-p per row."""

    TRANSPORT = ("counts",)

    def __init__(self, counts):
        self.counts = counts

    def copy_to_host(self, copy_tensor):
        return RowHost("counts", counts=copy_tensor(self.counts))


with_transport(CountsOutput)


class PickedOutput(DeviceAuxiliaryOutput):
    """The sampled ids, as the first stage streams them."""

    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return RowHost("picked", ids=copy_tensor(self.ids))


pp_fields("ids")(PickedOutput)


class LogprobOutput(DeviceAuxiliaryOutput):
    """Log-probability of the sampled token."""

    def __init__(self, logprob):
        self.logprob = logprob

    def copy_to_host(self, copy_tensor):
        return RowHost("logprob", logprob=copy_tensor(self.logprob))

    def to_pp_tensors(self):
        return {"logprob": self.logprob}
