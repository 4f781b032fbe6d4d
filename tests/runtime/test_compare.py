"""Flattening host objects to their tensors, and telling two of them apart."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.compare import differences, flatten, tensor_difference  # noqa: E402


@dataclass
class Host:
    scores: torch.Tensor
    label: str
    extras: dict


class Plain:
    def __init__(self, items):
        self.items = items
        self.window = 16


class Slotted:
    __slots__ = ("a", "unset")

    def __init__(self, a):
        self.a = a


def test_paths_go_through_fields_attributes_and_containers():
    host = Host(torch.ones(2), "x", {"k": [Plain((torch.zeros(1), Slotted(torch.ones(3))))]})
    assert sorted(flatten(host)) == [".extras['k'][0].items[0]", ".extras['k'][0].items[1].a", ".scores"]


def test_a_bare_tensor_flattens_to_the_root():
    assert list(flatten(torch.ones(1))) == [""]


def test_plain_values_are_not_compared():
    assert differences(flatten(Host(torch.ones(2), "a", {})), flatten(Host(torch.ones(2), "b", {"n": 1}))) == []


def test_tensors_are_compared_where_they_are_not_copied():
    tensor = torch.zeros(3)
    assert flatten([tensor])["[0]"].data_ptr() == tensor.data_ptr()


def test_cycles_end():
    a = Plain(None)
    a.items = [a, torch.ones(1)]
    assert list(flatten(a)) == [".items[1]"]


def test_differences_name_the_path_and_the_problem():
    expected = flatten({"a": torch.ones(2), "b": torch.ones(2), "c": torch.ones(2)})
    actual = flatten({"a": torch.ones(2, dtype=torch.float64), "b": torch.zeros(2), "d": torch.ones(2)})
    assert differences(expected, actual) == [
        "host['c'] is missing",
        "host['d'] is unexpected",
        "host['a']: dtype float64 != float32",
        "and 1 more",
    ]


@pytest.mark.parametrize(("a", "b", "text"), [
    (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), ""),
    (torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 1.0]), "values differ"),
    (torch.ones(2, 3), torch.ones(3, 2), "shape [3, 2] != [2, 3]"),
    (torch.ones(2).to_sparse(), torch.ones(2), ""),
    (torch.ones(2, device="meta"), torch.ones(2), ""),
])
def test_tensor_difference(a, b, text):
    assert tensor_difference(a, b) == text
