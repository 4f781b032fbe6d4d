"""Building examples: the user's own first, then a config factory, then synthesis from annotations."""

# The annotations' spellings (Optional[...], quoted names) are what these tests feed synthesis.
# ruff: noqa: UP037, UP045

from __future__ import annotations

import abc
import enum
import sys
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Optional

import pytest

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.driving.examples import (  # noqa: E402
    HOW_TO_PROVIDE,
    ExampleFailed,
    ExampleUnavailable,
    build_examples,
    optional_tensor_parameters,
    synthesize,
)

if TYPE_CHECKING:
    from some_library_that_is_not_installed import Tensor

CPU = torch.device("cpu")


@pytest.fixture
def factories(monkeypatch):
    """A module ``ppaux_test_factories`` with a few factories, importable for the duration of a test."""
    module = types.ModuleType("ppaux_test_factories")

    class Made:
        def __init__(self, device=None):
            self.device = device

        @classmethod
        def make(cls, device):
            return cls(device)

    module.Made = Made
    module.with_device = lambda device: Made(device)
    module.without_device = lambda: Made("none")
    module.broken = lambda device: 1 / 0
    module.nothing = lambda device: None
    monkeypatch.setitem(sys.modules, "ppaux_test_factories", module)
    return module


class WithOwnExample:
    def __init__(self, tag):
        self.tag = tag

    @classmethod
    def ppaux_example(cls, device):
        return cls(("own", device))


def test_the_classmethod_wins_over_a_factory(factories):
    (example,) = build_examples(WithOwnExample, CPU, "ppaux_test_factories:with_device")
    assert example.value.tag == ("own", CPU) and example.synthesised is False


@pytest.mark.parametrize(("spec", "device"), [
    ("ppaux_test_factories:with_device", CPU),
    ("ppaux_test_factories:without_device", "none"),
    ("ppaux_test_factories:Made.make", CPU),
])
def test_factories_get_the_device_when_they_take_a_parameter(factories, spec, device):
    (example,) = build_examples(type("Anything", (), {}), CPU, spec)
    assert example.value.device == device and example.synthesised is False


@pytest.mark.parametrize(("spec", "text"), [
    ("ppaux_test_factories:broken", "example factory 'ppaux_test_factories:broken' raised ZeroDivisionError"),
    ("ppaux_test_factories:nothing", "returned None"),
    ("ppaux_test_factories:missing", "cannot be loaded: ImportError: ppaux_test_factories has no attribute"),
    ("no_such_module_here:make", "cannot be loaded: ModuleNotFoundError"),
    ("ppaux_test_factories.with_device", "must look like 'pkg.module:function'"),
])
def test_a_broken_factory_is_the_users_error(factories, spec, text):
    with pytest.raises(ExampleFailed) as caught:
        build_examples(type("Anything", (), {}), CPU, spec)
    assert text in str(caught.value)


def test_a_raising_classmethod_is_the_users_error():
    class Bad:
        @classmethod
        def ppaux_example(cls, device):
            raise RuntimeError("no config")

    with pytest.raises(ExampleFailed, match=r"Bad.ppaux_example raised RuntimeError: no config"):
        build_examples(Bad, CPU, None)


class Colour(enum.Enum):
    RED = 1
    BLUE = 2


@dataclass
class Inner:
    weights: torch.Tensor
    scale: float


@dataclass
class Everything:
    logits: torch.Tensor
    token_ids: torch.Tensor
    valid_mask: torch.Tensor
    maybe: Optional[torch.Tensor]
    either: torch.Tensor | None
    count: int
    ratio: float
    flag: bool
    name: str
    raw: bytes
    ids: list[int]
    pair: tuple[int, str]
    many: tuple[float, ...]
    table: dict[str, float]
    mode: Literal["greedy", "sample"]
    colour: Colour
    dtype: torch.dtype
    device: torch.device
    inner: Inner
    nothing: None
    kept: int = 42
    listed: list = field(default_factory=list)


def test_synthesis_covers_the_common_annotations():
    made = synthesize(Everything, CPU)
    assert made.logits.shape == (2, 3) and made.logits.dtype == torch.float32
    assert made.token_ids.dtype == torch.int64
    assert made.valid_mask.dtype == torch.bool
    assert isinstance(made.maybe, torch.Tensor) and isinstance(made.either, torch.Tensor)
    assert isinstance(made.count, int) and isinstance(made.ratio, float) and made.flag is True
    assert isinstance(made.name, str) and isinstance(made.raw, bytes)
    assert made.ids and isinstance(made.ids[0], int)
    assert isinstance(made.pair[0], int) and isinstance(made.pair[1], str)
    assert len(made.many) == 1 and isinstance(made.table, dict)
    assert made.mode == "greedy" and made.colour is Colour.RED
    assert made.dtype == torch.float32 and made.device == CPU
    assert isinstance(made.inner.weights, torch.Tensor) and made.nothing is None
    assert made.kept == 42 and made.listed == []


def test_synthesised_tensors_differ_from_each_other():
    made = synthesize(Everything, CPU)
    assert not torch.equal(made.logits, made.maybe.to(made.logits.dtype))
    assert not torch.equal(made.maybe, made.either)


class FromInit:
    """Annotations that cannot be resolved at run time still work in their usual spellings."""

    def __init__(self, hidden: "Tensor", scores: "Optional[torch.Tensor]", k: "int", /, label: "str | None"):
        self.args = (hidden, scores, k, label)


def test_unresolvable_annotations_fall_back_to_their_text():
    made = synthesize(FromInit, CPU)
    hidden, scores, k, label = made.args
    assert isinstance(hidden, torch.Tensor) and isinstance(scores, torch.Tensor)
    assert isinstance(k, int) and isinstance(label, str)


def test_a_class_without_constructor_parameters_is_built_bare():
    class Observer:
        def from_pp_tensors(self, tensors):
            return tensors

    (example,) = build_examples(Observer, CPU, None)
    assert isinstance(example.value, Observer) and example.synthesised is True and example.variant == ""


class Handle:
    pass


class Unknown:
    def __init__(self, *, handle: Handle):
        self.handle = handle


@pytest.mark.parametrize(("cls", "text"), [
    (type("NoAnnotation", (), {"__init__": lambda self, x: None}), "parameter 'x' has no annotation"),
    (Unknown, "no value for 'handle' of type Handle"),
])
def test_what_cannot_be_synthesised_says_what_to_add(cls, text):
    with pytest.raises(ExampleUnavailable) as caught:
        synthesize(cls, CPU)
    assert text in str(caught.value)
    assert HOW_TO_PROVIDE in str(caught.value)


def test_an_abstract_class_is_not_synthesised():
    class Base(abc.ABC):
        @abc.abstractmethod
        def to_pp_tensors(self): ...

    with pytest.raises(ExampleUnavailable, match="is abstract"):
        synthesize(Base, CPU)


def test_a_constructor_that_rejects_the_synthesised_values_is_unavailable_not_failed():
    class Picky:
        def __init__(self, values: torch.Tensor):
            raise ValueError("values must be 1-D")

    with pytest.raises(ExampleUnavailable, match=r"a synthesised .*Picky\(\.\.\.\) raised ValueError"):
        synthesize(Picky, CPU)


@dataclass
class WithOptionalTensors:
    values: torch.Tensor
    mask: Optional[torch.Tensor] = None
    lengths: torch.Tensor | None = None
    sloppy: torch.Tensor = None
    label: Optional[str] = None
    weights: "Optional[torch.Tensor]" = None


class OptionalInInit:
    def __init__(self, values: "torch.Tensor", scores: "torch.Tensor | None" = None, k: int = 3):
        self.values, self.scores, self.k = values, scores, k


@pytest.mark.parametrize(("cls", "names"), [
    (WithOptionalTensors, ["mask", "lengths", "sloppy", "weights"]),
    (OptionalInInit, ["scores"]),
    (Everything, []),  # its optional tensors have no default: they are always synthesised as tensors
])
def test_parameters_that_default_to_none_and_admit_a_tensor_are_found(cls, names):
    assert optional_tensor_parameters(cls) == names


def test_optional_tensors_get_a_second_example_with_them_set():
    unset, filled = build_examples(WithOptionalTensors, CPU, None)
    assert (unset.variant, filled.variant) == ("with mask, lengths, sloppy, weights left None",
                                               "with mask, lengths, sloppy, weights set")
    assert unset.synthesised and filled.synthesised
    assert all(getattr(unset.value, name) is None for name in ("mask", "lengths", "sloppy", "weights"))
    tensors = [filled.value.values] + [getattr(filled.value, n) for n in ("mask", "lengths", "sloppy", "weights")]
    assert all(isinstance(t, torch.Tensor) for t in tensors)
    assert filled.value.lengths.dtype == torch.int64  # typed by name, as required tensors are
    assert len({tuple(t.flatten().tolist()) for t in tensors}) == len(tensors)  # all distinct
    assert filled.value.label is None  # only tensors are varied


def test_optional_tensors_in_an_unresolvable_init_are_set_too():
    _, filled = build_examples(OptionalInInit, CPU, None)
    assert isinstance(filled.value.scores, torch.Tensor) and filled.value.k == 3


def test_a_users_example_is_never_varied():
    class Own(WithOptionalTensors):
        @classmethod
        def ppaux_example(cls, device):
            return cls(torch.ones(2, device=device))

    (example,) = build_examples(Own, CPU, None)
    assert example.value.mask is None and example.variant == ""


def test_an_observer_is_built_once_with_its_defaults():
    (example,) = build_examples(WithOptionalTensors, CPU, None, vary=False)
    assert example.value.mask is None


def test_a_constructor_that_rejects_the_set_optional_tensors_says_so():
    @dataclass
    class Strict:
        values: torch.Tensor
        mask: Optional[torch.Tensor] = None

        def __post_init__(self):
            if self.mask is not None:
                raise ValueError("mask needs values of another shape")

    with pytest.raises(ExampleUnavailable, match=r"Strict\(\.\.\.\) with mask set raised ValueError"):
        build_examples(Strict, CPU, None)
