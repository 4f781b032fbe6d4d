"""``ppaux_lint.runtime.round_trip``, the function behind the fixture, called directly in this process."""

from __future__ import annotations

import traceback
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")

from ppaux_lint.runtime import RoundTripFailed, round_trip  # noqa: E402
from ppaux_lint.runtime.terms.devices import DeviceError  # noqa: E402


@dataclass
class Scores:
    values: torch.Tensor
    mask: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return {"values": copy_tensor(self.values), "mask": copy_tensor(self.mask)}

    def to_pp_tensors(self):
        return {"values": self.values, "mask": self.mask}


class ScoresObserver:
    def from_pp_tensors(self, tensors):
        return Scores(tensors["values"], tensors["mask"])


class TypoObserver:
    def from_pp_tensors(self, tensors):
        return Scores(tensors["value"], tensors["mask"])


class MaskDroppingObserver:
    def from_pp_tensors(self, tensors):
        return Scores(tensors["values"], torch.zeros_like(tensors["mask"]))


class EmptyScores(Scores):
    def to_pp_tensors(self):
        return {}


def scores() -> Scores:
    return Scores(torch.tensor([0.5, 1.5]), torch.tensor([True, False]))


def test_returns_the_output_the_observer_rebuilt_from_new_buffers():
    sent = scores()
    rebuilt = round_trip(sent, ScoresObserver())
    assert isinstance(rebuilt, Scores)
    assert torch.equal(rebuilt.values, sent.values) and torch.equal(rebuilt.mask, sent.mask)
    assert rebuilt.values.data_ptr() != sent.values.data_ptr()


@pytest.mark.parametrize(("output", "observer", "message"), [
    (scores(), None, "received auxiliary PP output without a sampling observer"),
    (scores(), object(), "sampling observer does not support pipeline-parallel transport"),
    (EmptyScores(torch.ones(1), torch.ones(1)), ScoresObserver(), "auxiliary PP output must contain at least one tensor"),
])
def test_raises_the_helpers_own_runtime_error(output, observer, message):
    with pytest.raises(RuntimeError) as raised:
        round_trip(output, observer, helpers="bundled")
    assert type(raised.value) is RuntimeError
    assert str(raised.value) == message


def test_the_project_s_own_exception_propagates_with_its_traceback():
    with pytest.raises(KeyError) as raised:
        round_trip(scores(), TypoObserver())
    assert raised.value.args == ("value",)
    assert traceback.extract_tb(raised.value.__traceback__)[-1].name == "from_pp_tensors"


def test_a_rebuild_that_loses_data_fails_with_verify_s_message():
    with pytest.raises(RoundTripFailed, match=r"^the rebuilt 'mask' differs: .*; copy_to_host differs: "):
        round_trip(scores(), MaskDroppingObserver())


def test_refuses_an_unknown_transport_or_device():
    with pytest.raises(ValueError, match="unknown transport 'nccl'"):
        round_trip(scores(), ScoresObserver(), transport="nccl")
    with pytest.raises(DeviceError, match="'cuda:99' does not exist"):
        round_trip(scores(), ScoresObserver(), device="cuda:99")
