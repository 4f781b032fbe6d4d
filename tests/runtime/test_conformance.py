"""Our transport helpers against SGLang's own, scenario by scenario.

Each scenario builds fresh inputs for one implementation (its Protocol classes
matter for the scenarios that inherit them), calls a helper, and records what
a caller could observe: the return value, the exception's type and text, the
dict afterwards (keys in order, values by identity), and what the project's
methods were called with. The record must be identical for both.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ppaux_lint.runtime import core  # noqa: E402

P = core.PP_OUTPUT_KEY_PREFIX


@dataclass
class Impl:
    name: str
    add: Callable[..., Any]
    pop: Callable[..., Any]
    output_protocol: type
    observer_protocol: type


@pytest.fixture(scope="module")
def impls(sglang_pp: types.ModuleType) -> tuple[Impl, Impl]:
    ours = Impl("ours", core.add_auxiliary_output_to_pp_tensors, core.pop_auxiliary_output_from_pp_tensors,
                core.PipelineParallelAuxiliaryOutput, core.PipelineParallelSamplingObserver)
    theirs = Impl("sglang", sglang_pp.add_auxiliary_output_to_pp_tensors,
                  sglang_pp.pop_auxiliary_output_from_pp_tensors, sglang_pp.PipelineParallelAuxiliaryOutput,
                  sglang_pp.PipelineParallelSamplingObserver)
    return ours, theirs


@dataclass
class Case:
    """One scenario's inputs for one implementation, plus what it lets the test observe."""

    call: Callable[[], Any]
    tensors: dict
    labels: dict[int, str] = field(default_factory=dict)
    log: list = field(default_factory=list)

    def label(self, obj: Any, name: str) -> Any:
        self.labels[id(obj)] = name
        return obj

    def show(self, obj: Any) -> str:
        if obj is None:
            return "None"
        return self.labels.get(id(obj), f"<unlabelled {type(obj).__name__}>")


def observe(case: Case) -> dict[str, Any]:
    try:
        returned, raised = case.show(case.call()), None
    except Exception as exc:  # noqa: BLE001 - what was raised is the observation
        returned, raised = None, (type(exc).__name__, str(exc))
    return {
        "returned": returned,
        "raised": raised,
        "dict": [(key, case.show(value)) for key, value in case.tensors.items()],
        "log": case.log,
    }


def t(case: Case, name: str) -> torch.Tensor:
    return case.label(torch.full((2,), float(len(case.labels))), name)


def stage(case: Case) -> dict:
    """A stage dict as the scheduler's, with two tensors that are not the auxiliary output's."""
    case.tensors["hidden_states"] = t(case, "hidden")
    case.tensors["residual"] = t(case, "residual")
    return case.tensors


class Out:
    """A structural output: ``to_pp_tensors`` returns whatever the scenario says, and is logged."""

    def __init__(self, case: Case, produce: Callable[[], Any]) -> None:
        self._case, self._produce = case, produce

    def copy_to_host(self, copy_tensor):
        return None

    def to_pp_tensors(self):
        self._case.log.append("to_pp_tensors")
        return self._produce()


class Obs:
    """A structural observer whose ``from_pp_tensors`` logs what it received and does what it is told."""

    def __init__(self, case: Case, rebuild: Callable[[Any], Any]) -> None:
        self._case, self._rebuild = case, rebuild

    def after_sample(self, state, token_ids):
        return None

    def from_pp_tensors(self, tensors):
        self._case.log.append(("from_pp_tensors", type(tensors).__name__,
                               [(k, self._case.show(v)) for k, v in tensors.items()]))
        return self._rebuild(tensors)


def arrived(case: Case, **entries: Any) -> dict:
    """A received stage dict holding the given auxiliary entries (name -> value) after the others."""
    tensors = stage(case)
    for name, value in entries.items():
        tensors[P + name] = value
    return tensors


def rebuilt(case: Case) -> Callable[[Any], Any]:
    return lambda tensors: case.label(types.SimpleNamespace(), "rebuilt")


def _raise(exc: Exception) -> Callable[..., Any]:
    def go(*args: Any) -> Any:
        raise exc

    return go


class Pairs(Mapping):
    """A Mapping that is not a dict, yielding the pairs it was given (keys may repeat)."""

    def __init__(self, pairs: list) -> None:
        self._pairs = pairs

    def __getitem__(self, key):
        return dict(self._pairs)[key]

    def __iter__(self):
        return iter(k for k, _ in self._pairs)

    def __len__(self):
        return len(self._pairs)

    def items(self):
        return list(self._pairs)


# ---- scenarios: name -> (impl, case) -> the call -------------------------------------------------------

def add_with(produce: Callable[[Case], Any]) -> Callable[[Impl, Case], Callable[[], Any]]:
    def build(impl: Impl, case: Case) -> Callable[[], Any]:
        out = Out(case, lambda: produce(case))
        return lambda: impl.add(stage(case), out)

    return build


def pop_with(entries: Callable[[Case], dict], observer: Callable[[Impl, Case], Any]):
    def build(impl: Impl, case: Case) -> Callable[[], Any]:
        tensors = arrived(case, **entries(case))
        obs = observer(impl, case)
        return lambda: impl.pop(tensors, obs)

    return build


def _stub_output(impl: Impl, case: Case) -> Any:
    """Inherits the PP Protocol explicitly and never overrides it: the stub returns None."""
    cls = type("Stubbed", (impl.output_protocol,), {"copy_to_host": lambda self, f: None})
    return cls()


def _stub_observer(impl: Impl, case: Case) -> Any:
    cls = type("StubbedObserver", (impl.observer_protocol,), {"after_sample": lambda self, s, t: None})
    return cls()


class NoneMember:
    to_pp_tensors = None

    def copy_to_host(self, copy_tensor):
        return None


class NoneObserverMember:
    from_pp_tensors = None

    def after_sample(self, state, token_ids):
        return None


class PlainOutput:
    def copy_to_host(self, copy_tensor):
        return None


class PlainObserver:
    def after_sample(self, state, token_ids):
        return None


class WeirdName(str):
    pass


def _mutating_observer(mutate: Callable[[dict], None]):
    def build(impl: Impl, case: Case) -> Any:
        def rebuild(tensors):
            mutate(tensors)
            return case.label(types.SimpleNamespace(), "rebuilt")

        return Obs(case, rebuild)

    return build


SCENARIOS: dict[str, Callable[[Impl, Case], Callable[[], Any]]] = {
    # add_auxiliary_output_to_pp_tensors
    "add: output None leaves the dict alone": lambda impl, c: (lambda: impl.add(stage(c), None)),
    "add: output without to_pp_tensors": lambda impl, c: (lambda: impl.add(stage(c), PlainOutput())),
    "add: to_pp_tensors set to None counts as missing": lambda impl, c: (lambda: impl.add(stage(c), NoneMember())),
    "add: inherited Protocol stub returns None": lambda impl, c: (lambda: impl.add(stage(c), _stub_output(impl, c))),
    "add: empty mapping": add_with(lambda c: {}),
    "add: empty non-dict mapping": add_with(lambda c: Pairs([])),
    "add: one tensor": add_with(lambda c: {"a": t(c, "a")}),
    "add: several tensors keep their order": add_with(lambda c: {"z": t(c, "z"), "a": t(c, "a"), "m": t(c, "m")}),
    "add: empty name": add_with(lambda c: {"": t(c, "a")}),
    "add: int name": add_with(lambda c: {0: t(c, "a")}),
    "add: None name": add_with(lambda c: {None: t(c, "a")}),
    "add: bytes name": add_with(lambda c: {b"a": t(c, "a")}),
    "add: str subclass name": add_with(lambda c: {WeirdName("w"): t(c, "w")}),
    "add: bad name after a good one leaves the good one": add_with(lambda c: {"a": t(c, "a"), "": t(c, "b")}),
    "add: list value": add_with(lambda c: {"a": [1, 2]}),
    "add: None value": add_with(lambda c: {"a": None}),
    "add: non-tensor after a tensor leaves the tensor": add_with(lambda c: {"a": t(c, "a"), "b": 3}),
    "add: name checked before value": add_with(lambda c: {0: "not a tensor"}),
    "add: parameter is a tensor": add_with(lambda c: {"p": c.label(torch.nn.Parameter(torch.ones(2)), "p")}),
    "add: non-dict mapping": add_with(lambda c: Pairs([("a", t(c, "a")), ("b", t(c, "b"))])),
    "add: mapping repeating a name": add_with(lambda c: Pairs([("a", t(c, "a1")), ("a", t(c, "a2"))])),
    "add: list of pairs is not a mapping": add_with(lambda c: [("a", t(c, "a"))]),
    "add: to_pp_tensors raises": add_with(lambda c: _raise(ValueError("boom"))()),
    "add: duplicate key already in the dict": lambda impl, c: (
        lambda: impl.add(arrived(c, a=t(c, "old")), Out(c, lambda: {"b": t(c, "b"), "a": t(c, "new")}))
    ),
    "add: duplicate name with a non-tensor value: the value is checked first": lambda impl, c: (
        lambda: impl.add(arrived(c, a=t(c, "old")), Out(c, lambda: {"a": "not a tensor"}))
    ),
    "add: a name that is itself prefixed": add_with(lambda c: {P + "x": t(c, "x")}),
    # pop_auxiliary_output_from_pp_tensors
    "pop: nothing prefixed returns None, observer None": pop_with(lambda c: {}, lambda impl, c: None),
    "pop: nothing prefixed returns None, observer untouched": pop_with(lambda c: {}, lambda i, c: Obs(c, rebuilt(c))),
    "pop: nothing prefixed, non-PP observer": pop_with(lambda c: {}, lambda impl, c: PlainObserver()),
    "pop: observer None": pop_with(lambda c: {"a": t(c, "a")}, lambda impl, c: None),
    "pop: observer without from_pp_tensors": pop_with(lambda c: {"a": t(c, "a")}, lambda impl, c: PlainObserver()),
    "pop: from_pp_tensors set to None": pop_with(lambda c: {"a": t(c, "a")}, lambda i, c: NoneObserverMember()),
    "pop: inherited Protocol stub returns None": pop_with(lambda c: {"a": t(c, "a")}, _stub_observer),
    "pop: non-tensor received": pop_with(lambda c: {"a": t(c, "a"), "b": [1]}, lambda i, c: Obs(c, rebuilt(c))),
    "pop: observer checked before values": pop_with(lambda c: {"b": [1]}, lambda impl, c: PlainObserver()),
    "pop: from_pp_tensors returns None": pop_with(lambda c: {"a": t(c, "a")}, lambda i, c: Obs(c, lambda ts: None)),
    "pop: from_pp_tensors raises": pop_with(lambda c: {"a": t(c, "a")},
                                            lambda i, c: Obs(c, _raise(KeyError("lengths")))),
    "pop: success removes only prefixed entries": pop_with(lambda c: {"b": t(c, "b"), "a": t(c, "a")},
                                                           lambda i, c: Obs(c, rebuilt(c))),
    "pop: empty name after the prefix": pop_with(lambda c: {"": t(c, "e")}, lambda i, c: Obs(c, rebuilt(c))),
    "pop: observer removes a received name": pop_with(
        lambda c: {"a": t(c, "a"), "b": t(c, "b")},
        _mutating_observer(lambda tensors: tensors.pop("a")),
    ),
    "pop: observer adds a received name": pop_with(
        lambda c: {"a": t(c, "a")},
        _mutating_observer(lambda tensors: tensors.__setitem__("zz", 1)),
    ),
    "pop: non-str key in the dict": lambda impl, c: (
        lambda: impl.pop({**arrived(c, a=t(c, "a")), 7: t(c, "seven")}, Obs(c, rebuilt(c)))
    ),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_same_behaviour_as_sglang(scenario: str, impls: tuple[Impl, Impl]) -> None:
    records = []
    for impl in impls:
        case = Case(call=lambda: None, tensors={})
        case.call = SCENARIOS[scenario](impl, case)
        records.append(observe(case))
    ours, theirs = records
    assert ours == theirs


def test_the_prefix_is_sglangs(sglang_pp: types.ModuleType) -> None:
    assert core.PP_OUTPUT_KEY_PREFIX == sglang_pp._OUTPUT_PREFIX


def test_the_scenarios_reach_every_error(impls: tuple[Impl, Impl]) -> None:
    """Guards the table itself: every error SGLang can raise is produced by some scenario."""
    seen = set()
    for build in SCENARIOS.values():
        case = Case(call=lambda: None, tensors={})
        case.call = build(impls[1], case)
        raised = observe(case)["raised"]
        if raised and raised[0] == "RuntimeError":
            seen.add(raised[1].split("'")[0])
    assert seen == {
        "auxiliary output does not support pipeline-parallel transport",
        "auxiliary PP output must contain at least one tensor",
        "auxiliary PP tensor names must be non-empty strings",
        "auxiliary PP output ",
        "duplicate auxiliary PP tensor ",
        "received auxiliary PP output without a sampling observer",
        "sampling observer does not support pipeline-parallel transport",
        "received a non-tensor auxiliary PP output",
        "sampling observer did not reconstruct its PP output",
    }


# Property test: random outputs and stage dicts, both helpers, one after the other.
NAMES = st.sampled_from(["a", "b", "", 0, None, "a.b", P + "a"])
VALUES = st.sampled_from(["tensor", "int", "none"])


@settings(max_examples=150, deadline=None)
@given(
    entries=st.lists(st.tuples(NAMES, VALUES), max_size=4),
    existing=st.lists(st.tuples(st.sampled_from(["hidden", P + "a", P + "b", P + "", "x"]), VALUES), max_size=3),
    observer=st.sampled_from(["good", "none-result", "plain", "absent"]),
)
def test_random_round_trips_match(entries, existing, observer, impls) -> None:
    def run(impl: Impl) -> tuple:
        case = Case(call=lambda: None, tensors={})

        def value(kind: str, name: str) -> Any:
            return {"tensor": lambda: t(case, name), "int": lambda: 7, "none": lambda: None}[kind]()

        for key, kind in existing:
            case.tensors[key] = value(kind, f"existing {key}")
        produced = Pairs([(name, value(kind, f"entry {name}")) for name, kind in entries])
        obs = {"good": lambda: Obs(case, rebuilt(case)), "none-result": lambda: Obs(case, lambda ts: None),
               "plain": PlainObserver, "absent": lambda: None}[observer]()
        case.call = lambda: impl.add(case.tensors, Out(case, lambda: produced))
        after_add = observe(case)
        case.log = []
        case.call = lambda: impl.pop(case.tensors, obs)
        return after_add, observe(case)

    ours, theirs = (run(impl) for impl in impls)
    assert ours == theirs
