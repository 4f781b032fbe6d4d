"""Optional tensor fields: a synthesised output is sent with them left ``None`` and again with them set.

Left ``None`` only, a ``to_pp_tensors`` that forgets such a field passes, and the first stage then rebuilds
every batch that carries it without it. These run one round trip each in this process (as the worker does).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.hosts.trip import IN_PROCESS, run_request  # noqa: E402
from ppaux_lint.runtime.terms.targets import ClassRef, VerifyTarget  # noqa: E402

MODULE = '''
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class Host:
    values: torch.Tensor
    mask: Optional[torch.Tensor]


@dataclass
class Careful:
    """Sends the mask only when it has one, and the observer takes it back only when it came."""

    values: torch.Tensor
    mask: Optional[torch.Tensor] = None

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.values), None if self.mask is None else copy_tensor(self.mask))

    def to_pp_tensors(self):
        sent = {"values": self.values}
        if self.mask is not None:
            sent["mask"] = self.mask
        return sent


class CarefulObs:
    def from_pp_tensors(self, tensors):
        return Careful(tensors["values"], tensors.get("mask"))


class Forgetful(Careful):
    """Never sends the mask: with it left None nothing shows."""

    def to_pp_tensors(self):
        return {"values": self.values}


class ForgetfulObs:
    def from_pp_tensors(self, tensors):
        return Forgetful(tensors["values"], tensors.get("mask"))


class Eager(Careful):
    """Always sends the mask, None or not."""

    def to_pp_tensors(self):
        return {"values": self.values, "mask": self.mask}


class EagerObs:
    def from_pp_tensors(self, tensors):
        return Eager(tensors["values"], tensors["mask"])


class InInit:
    """An ``__init__`` spelling of the same thing: ``X | None`` with a None default."""

    def __init__(self, values: torch.Tensor, scores: torch.Tensor | None = None, k: int = 2):
        self.values, self.scores = values, scores

    def copy_to_host(self, copy_tensor):
        return [copy_tensor(t) for t in (self.values, self.scores) if t is not None]

    def to_pp_tensors(self):
        return {"values": self.values}


class InInitObs:
    def from_pp_tensors(self, tensors):
        return InInit(tensors["values"])
'''


@pytest.fixture(scope="module")
def mod(module_project):
    module_project.package("opt", {"m": MODULE})
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(module_project.root))
        yield "opt.m"


def trip(mod: str, output: str, observer: str | None):
    steps: list = []
    target = VerifyTarget(f"{mod}.{output}", "output", ClassRef(f"{mod}.{output}", mod, output),
                          ClassRef(f"{mod}.{observer}", mod, observer) if observer else None)
    return run_request(target, "cpu", IN_PROCESS, 30.0, lambda *event: steps.append(event)), steps


def test_a_class_that_sends_the_field_only_when_set_passes_both_ways(mod):
    result, steps = trip(mod, "Careful", "CarefulObs")
    assert result.status == "pass", result.message
    assert result.message == ("2 tensors and the host copy survived the round trip (example built from "
                              "annotations: no observer is known to return it; with mask left None; with mask set)")
    assert [t.name for t in result.tensors] == ["values", "mask"]  # the fuller example's
    names = [step for step, _, _ in steps]
    assert names.count("add_auxiliary_output_to_pp_tensors") == names.count("rebuilt.copy_to_host") == 2
    assert names.count(f"import {mod}.CarefulObs") == 1  # one observer for both, as on a real stage


def test_a_to_pp_tensors_that_drops_the_set_field_fails(mod):
    result, _ = trip(mod, "Forgetful", "ForgetfulObs")
    assert result.status == "fail"
    assert result.message == "with mask set: copy_to_host differs: host.mask is missing"


def test_a_to_pp_tensors_that_sends_the_unset_field_fails_on_the_first_example(mod):
    result, _ = trip(mod, "Eager", "EagerObs")
    assert result.status == "fail"
    assert result.message == ("with mask left None: add_auxiliary_output_to_pp_tensors: RuntimeError: "
                              "auxiliary PP output 'mask' is not a tensor")


def test_the_init_spelling_is_varied_too(mod):
    result, _ = trip(mod, "InInit", "InInitObs")
    assert result.status == "fail"
    assert result.message == "with scores set: copy_to_host differs: host[1] is missing"


def test_an_unpaired_output_sends_every_example_before_it_is_skipped(mod):
    result, steps = trip(mod, "Careful", None)
    assert result.status == "skip"
    assert "only the sending half ran (2 tensors added)" in result.message
    assert [step for step, _, _ in steps].count("add_auxiliary_output_to_pp_tensors") == 2
