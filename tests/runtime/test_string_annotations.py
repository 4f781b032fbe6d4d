"""Synthesis from annotations that are strings, as ``from __future__ import annotations`` leaves every one.

Each annotation is resolved in the namespace of the class that wrote it; what does not resolve (a name
imported only under ``TYPE_CHECKING``) is read by its text, one annotation at a time.
"""

# The spellings are the point: quoted names inside Optional, Optional beside `X | None`.
# ruff: noqa: UP037, UP045

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Optional

import pytest

from .conftest import plugin_module

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.driving.examples import build_examples, optional_tensor_parameters, synthesize  # noqa: E402

if TYPE_CHECKING:
    from torch import Tensor  # for the type checker only: at run time these annotations cannot resolve

CPU = torch.device("cpu")


class TopK(NamedTuple):
    values: torch.Tensor
    token_ids: torch.Tensor
    k: int
    mask: Optional[torch.Tensor] = None


class CheckedTopK(NamedTuple):
    values: Tensor
    mask: Tensor | None = None


@dataclass
class Inner:
    weights: torch.Tensor
    scale: float


@dataclass
class Outer:
    inner: Inner
    top: TopK
    bias: Optional["torch.Tensor"] = None
    lengths: torch.Tensor | None = None


class Plain:
    def __init__(self, hidden: Tensor, inner: Inner, scores: torch.Tensor, mask: Optional["Tensor"] = None):
        self.hidden, self.inner, self.scores, self.mask = hidden, inner, scores, mask


# The functional form evaluates its field types at run time: Optional["Tensor"] is Optional[ForwardRef('Tensor')].
Functional = NamedTuple("Functional", [("values", "torch.Tensor"), ("mask", Optional["Tensor"])])  # noqa: UP014


def test_a_namedtuple_is_synthesised_with_and_without_its_optional_tensors():
    unset, filled = build_examples(TopK, CPU, None)
    assert (unset.variant, filled.variant) == ("with mask left None", "with mask set")
    assert unset.value.mask is None and isinstance(filled.value.mask, torch.Tensor)
    assert filled.value.values.dtype == torch.float32 and filled.value.token_ids.dtype == torch.int64
    assert isinstance(filled.value.k, int)


@pytest.mark.parametrize(("cls", "optional"), [(CheckedTopK, ["mask"]), (Plain, ["mask"]), (Outer, ["bias", "lengths"])])
def test_optional_tensors_are_found_however_they_are_spelt(cls, optional):
    assert optional_tensor_parameters(cls) == optional


def test_names_imported_only_for_the_type_checker_are_read_as_text():
    made = synthesize(CheckedTopK, CPU, ["mask"])
    assert isinstance(made.values, torch.Tensor) and isinstance(made.mask, torch.Tensor)


def test_one_unresolvable_name_does_not_cost_the_other_annotations_their_resolution():
    made = synthesize(Plain, CPU)
    assert isinstance(made.hidden, torch.Tensor) and isinstance(made.scores, torch.Tensor)
    assert isinstance(made.inner, Inner) and isinstance(made.inner.weights, torch.Tensor)


def test_nested_records_are_resolved_in_their_own_module():
    made = synthesize(Outer, CPU, ["bias", "lengths"])
    assert isinstance(made.inner.weights, torch.Tensor) and isinstance(made.inner.scale, float)
    assert isinstance(made.top, TopK) and isinstance(made.top.values, torch.Tensor) and made.top.mask is None
    assert isinstance(made.bias, torch.Tensor) and made.lengths.dtype == torch.int64


def test_forward_references_left_inside_a_generic_are_read_as_text():
    made = synthesize(Functional, CPU)
    assert isinstance(made.values, torch.Tensor) and isinstance(made.mask, torch.Tensor)


def test_an_attrs_class_is_synthesised():
    attr = pytest.importorskip("attr")

    @attr.s(auto_attribs=True)
    class Scores:
        values: torch.Tensor
        inner: Inner
        mask: Optional[torch.Tensor] = None

    assert optional_tensor_parameters(Scores) == ["mask"]
    made = synthesize(Scores, CPU, ["mask"])
    assert isinstance(made.values, torch.Tensor) and isinstance(made.mask, torch.Tensor)
    assert isinstance(made.inner, Inner)


STRINGS = plugin_module(
    """
    from __future__ import annotations

    from dataclasses import dataclass
    from typing import TYPE_CHECKING, NamedTuple, Optional

    import torch

    if TYPE_CHECKING:
        from torch import Tensor


    class TopK(NamedTuple):
        values: torch.Tensor
        token_ids: torch.Tensor
        mask: Optional[torch.Tensor] = None

        def copy_to_host(self, copy_tensor):
            return (copy_tensor(self.values), copy_tensor(self.token_ids))

        def to_pp_tensors(self):
            tensors = {"values": self.values, "token_ids": self.token_ids}
            if self.mask is not None:
                tensors["mask"] = self.mask
            return tensors


    @dataclass
    class Window:
        start: Tensor
        width: int


    @dataclass
    class Checked:
        scores: Tensor
        window: Window
        mask: Tensor | None = None

        def copy_to_host(self, copy_tensor):
            return (copy_tensor(self.scores), copy_tensor(self.window.start))

        def to_pp_tensors(self):
            return {"scores": self.scores, "start": self.window.start}
    """,
    # Never active, so that their outputs are built from the annotations rather than by driving them.
    """
    class TopKObserver:
        def is_active(self, sampling_info):
            return False

        def after_sample(self, state, token_ids) -> TopK:
            return TopK(state, token_ids)

        def from_pp_tensors(self, tensors) -> TopK:
            return TopK(tensors["values"], tensors["token_ids"], tensors.get("mask"))


    class CheckedObserver:
        def is_active(self, sampling_info):
            return False

        def after_sample(self, state, token_ids) -> Checked:
            return Checked(state, Window(token_ids, 1))

        def from_pp_tensors(self, tensors) -> Checked:
            return Checked(tensors["scores"], Window(tensors["start"], 3))
    """,
)


@pytest.fixture(scope="module")
def string_rows(module_project, run_cli):
    module_project.package("strs", {"outputs": STRINGS})
    result = run_cli(str(module_project.root), "--device", "cpu", "--output-format", "json")
    return {row["symbol"].removeprefix("strs.outputs."): row for row in json.loads(result.stdout)}


@pytest.mark.parametrize("name", ["TopK", "Checked"])
def test_verify_round_trips_outputs_whose_annotations_are_strings(string_rows, name):
    row = string_rows[name]
    assert row["status"] == "pass" and row["example"] == "annotations", row["message"]
    assert "with mask set" in row["message"]
