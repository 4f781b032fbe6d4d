"""Flattening host objects to their tensors, and telling two of them apart."""

from __future__ import annotations

import functools
import threading
from array import array
from collections import ChainMap, OrderedDict, UserDict, UserList, defaultdict, deque, namedtuple
from dataclasses import dataclass
from types import MappingProxyType

import pytest

torch = pytest.importorskip("torch")
numpy = pytest.importorskip("numpy")

from ppaux_lint.runtime.sending.compare import differences, flatten, tensor_difference  # noqa: E402


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
    (torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 1.0]), "values differ first at [0]: nan != 1.0"),
    (torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.0, 5.0]]),
     "values differ first at [1, 1]: 5.0 != 4.0"),
    (torch.tensor(1.0), torch.tensor(2.0), "values differ: 2.0 != 1.0"),
    (torch.tensor([7, 70000]), torch.tensor([7, 70000], dtype=torch.int32), "dtype int32 != int64"),
    (torch.tensor([7, 70000]), torch.tensor([7, 70000]).to(torch.int16),
     "dtype int16 != int64, values differ first at [1]: 4464 != 70000"),
    (torch.tensor([1.0, 0.1]), torch.tensor([1.0, 0.1]).half(),
     "dtype float16 != float32, values differ first at [1]: 0.0999755859375 != 0.10000000149011612"),
    (torch.tensor([True, False]), torch.tensor([True, True]), "values differ first at [1]: True != False"),
    (torch.ones(2, 3), torch.ones(3, 2), "shape [3, 2] != [2, 3]"),
    (torch.ones(2), torch.ones(3, dtype=torch.float64), "dtype float64 != float32, shape [3] != [2]"),
    (torch.ones(2).to_sparse(), torch.ones(2), ""),
    (torch.ones(2, device="meta"), torch.ones(2), ""),
])
def test_tensor_difference(a, b, text):
    assert tensor_difference(a, b) == text


# -- every container a host object can hold ------------------------------------------------------------------


class CallableHost:
    """A host object that is callable: its tensors are still data."""

    def __init__(self, values):
        self.values = values

    def __call__(self):
        return self.values


class Holder:
    def __init__(self, values):
        self.values = values

    def read(self):
        return self.values


Pair = namedtuple("Pair", "values label")


def _closure(values):
    return lambda: values


def _with_default(values):
    def read(x=values):
        return x
    return read


def _with_kwdefault(values):
    def read(*, x=values):
        return x
    return read


def _with_attribute(values):
    def read():
        return None
    read.values = values
    return read


def _dataclass_extra(values):
    host = Host(torch.ones(1), "x", {})
    host.late = values  # an attribute that is no field
    return host


def _nested(values):
    return {"a": deque([frozenset([(1, _closure([values]))])])}


def _linked(values, depth=2000):
    node = Holder(values)
    for _ in range(depth):
        node = Holder(node)
    return node


HOSTS = {
    "deque": lambda t: deque([t]),
    "frozenset": lambda t: frozenset([t]),
    "set": lambda t: {t, "label"},
    "OrderedDict": lambda t: OrderedDict(k=t),
    "defaultdict": lambda t: defaultdict(list, k=[t]),
    "defaultdict factory": lambda t: defaultdict(lambda: t),
    "mappingproxy": lambda t: MappingProxyType({"k": t}),
    "ChainMap": lambda t: ChainMap({}, {"k": t}),
    "UserList": lambda t: UserList([t]),
    "UserDict": lambda t: UserDict(k=t),
    "namedtuple": lambda t: Pair(t, "x"),
    "dict values view": lambda t: {"k": t}.values(),
    "tensor as a dict key": lambda t: {t: "label"},
    "callable host object": CallableHost,
    "lambda closure": _closure,
    "default argument": _with_default,
    "keyword-only default": _with_kwdefault,
    "function attribute": _with_attribute,
    "partial argument": lambda t: functools.partial(torch.add, t),
    "partial keyword": lambda t: functools.partial(torch.add, other=t),
    "bound method": lambda t: Holder(t).read,
    "builtin bound method": lambda t: t.tolist,
    "staticmethod": lambda t: staticmethod(_closure(t)),
    "dataclass attribute outside its fields": _dataclass_extra,
    "nested containers": _nested,
    "2000 levels deep": _linked,
    "numpy array": lambda t: t.numpy(),
    "numpy int64 array": lambda t: t.long().numpy(),
    "numpy bool array": lambda t: (t > 1).numpy(),
    "numpy big-endian array": lambda t: t.double().numpy().astype(">f8"),
    "numpy reversed view": lambda t: t.numpy()[::-1],
    "numpy object array": lambda t: numpy.array([Holder(t), None], dtype=object),
    "array.array": lambda t: array("d", t.tolist()),
    "memoryview": lambda t: memoryview(array("d", t.tolist())),
    "tensor subclass": lambda t: torch.nn.Parameter(t, requires_grad=False),
}


@pytest.mark.parametrize("make", HOSTS.values(), ids=HOSTS.keys())
def test_a_host_that_keeps_the_same_data_in_any_container_matches(make):
    values = torch.tensor([0.5, 1.5, 2.5])
    expected = flatten(make(values))
    assert expected, "the tensor was not found"
    assert differences(expected, flatten(make(values.clone()))) == []


@pytest.mark.parametrize("make", HOSTS.values(), ids=HOSTS.keys())
def test_a_host_that_lost_data_in_any_container_differs(make):
    lost = differences(flatten(make(torch.tensor([0.5, 1.5, 2.5]))), flatten(make(torch.tensor([0.5, 1.5, 0.0]))))
    assert lost, "the lost value went unnoticed"


def test_a_set_is_matched_by_content_not_by_iteration_order():
    a, b = torch.tensor([1, 2]), torch.tensor([3, 4])
    assert differences(flatten({a, b}), flatten({b.clone(), a.clone()})) == []
    assert differences(flatten(frozenset([a, b])), flatten(frozenset([a.clone(), b + 1]))) != []


def test_a_dict_keyed_by_tensors_is_matched_by_content():
    a, b = torch.tensor([1]), torch.tensor([2])
    assert differences(flatten({a: torch.ones(1), b: torch.zeros(1)}),
                       flatten({b.clone(): torch.zeros(1), a.clone(): torch.ones(1)})) == []
    assert differences(flatten({a: torch.ones(1)}), flatten({a.clone(): torch.zeros(1)})) != []


def test_paths_name_where_the_data_was():
    host = {"fn": _closure(torch.ones(1)), "q": deque([torch.ones(1)]), "p": Pair(torch.ones(1), "x"),
            "m": Holder(torch.ones(1)).read, "part": functools.partial(torch.add, other=torch.ones(1))}
    assert sorted(flatten(host)) == sorted([
        "['fn'].__code__", "['fn'].__closure__['values']", "['q'][0]", "['p'].values",
        "['m'].__func__.__code__", "['m'].__self__.values", "['part'].func.__code__",
        "['part'].keywords['other']"])


def test_a_function_with_other_code_differs_even_with_the_same_captured_state():
    values = torch.ones(2)
    assert differences(flatten(_closure(values)), flatten(_closure(values.clone()))) == []
    double = differences(flatten(lambda: values), flatten(lambda: values * 2))  # same name, other code
    assert double == [f"host.__code__: code {__name__}.test_a_function_with_other_code_differs_even_with_the_same_"
                      "captured_state.<locals>.<lambda> differs"]
    assert differences(flatten(torch.add), flatten(torch.sub)) == [
        "host.__code__: code torch.sub != torch.add"]


def test_a_value_it_cannot_see_into_is_a_difference_not_a_match():
    def gen():
        yield torch.ones(1)

    found = differences(flatten({"g": gen()}), flatten({"g": gen()}))
    assert found == ["host['g']: cannot see into a generator, so cannot compare it"]


def test_plain_values_and_handles_are_not_compared():
    host = (torch.float32, torch.device("cpu"), numpy.float32(1.5), numpy.array(["a"]), threading.Lock(),
            torch.Generator(), type, functools, None, b"x", range(3), 1.5)
    assert flatten(host) == {}


def test_cycles_through_every_kind_of_container_end():
    box = deque()
    box.append(box)
    box.append({"self": box, "t": torch.ones(1)})
    fn = None
    fn = (lambda: fn)  # noqa: E731 - a function whose closure holds itself
    box.append(fn)
    assert sorted(flatten(box)) == ["[1]['t']", "[2].__code__"]


# -- immune to what plugin code does to torch ------------------------------------------------------------------


def _always_equal(*args, **kwargs):
    return True


PATCHES = {
    "torch.equal": (torch, "equal", _always_equal),
    "Tensor.equal": (torch.Tensor, "equal", _always_equal),
    "Tensor.__eq__": (torch.Tensor, "__eq__", lambda self, other: torch.ones(self.shape, dtype=torch.bool)),
    "Tensor.__ne__": (torch.Tensor, "__ne__", lambda self, other: torch.zeros(self.shape, dtype=torch.bool)),
    "torch.isnan": (torch, "isnan", lambda t: torch.ones(t.shape, dtype=torch.bool)),
    "Tensor.isnan": (torch.Tensor, "isnan", lambda t: torch.ones(t.shape, dtype=torch.bool)),
    "Tensor.detach": (torch.Tensor, "detach", lambda t: torch.zeros(t.shape, dtype=t.dtype)),
    "Tensor.to": (torch.Tensor, "to", lambda t, *a, **k: torch.zeros(t.shape, dtype=t.dtype)),
    "Tensor.dtype": (torch.Tensor, "dtype", property(lambda t: torch.float32)),
    "torch.from_numpy": (torch, "from_numpy", lambda a: torch.zeros(1)),
    "numpy.array_equal": (numpy, "array_equal", _always_equal),
}


@pytest.mark.parametrize("patch", PATCHES.values(), ids=PATCHES.keys())
def test_a_plugin_that_patches_torch_does_not_decide_the_comparison(monkeypatch, patch):
    monkeypatch.setattr(*patch)
    expected = {"t": torch.tensor([1.0, float("nan")]), "a": numpy.array([1.0, 2.0])}
    lost = {"t": torch.tensor([0.0, float("nan")]), "a": numpy.array([1.0, 0.0])}
    found = differences(flatten(expected), flatten(lost))
    monkeypatch.undo()
    assert found == ["host['t']: values differ first at [0]: 0.0 != 1.0", "host['a']: values differ first at [1]: 0.0 != 2.0"]


class AlwaysEqual(torch.Tensor):
    """A subclass that says it equals anything, however torch asks."""

    def __eq__(self, other):
        return True

    def equal(self, other):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("equal", "eq", "__eq__"):
            return True
        return super().__torch_function__(func, types, args, kwargs)


def test_a_tensor_subclass_that_overrides_equality_is_compared_on_its_data():
    ones = torch.ones(3).as_subclass(AlwaysEqual)
    assert tensor_difference(ones, torch.zeros(3)) == "values differ first at [0]: 0.0 != 1.0"
    assert tensor_difference(torch.zeros(3), ones) == "values differ first at [0]: 1.0 != 0.0"
    assert type(flatten([ones])["[0]"]) is torch.Tensor


def test_torch_function_and_dispatch_modes_do_not_decide_the_comparison():
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class FunctionMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") == "equal":
                return True
            return func(*args, **(kwargs or {}))

    class DispatchMode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is torch.ops.aten.equal.default:
                return True
            return func(*args, **(kwargs or {}))

    for mode in (FunctionMode(), DispatchMode()):
        with mode:
            assert tensor_difference(torch.ones(3), torch.zeros(3)) == "values differ first at [0]: 0.0 != 1.0"


def test_attrs_classes_are_walked_slotted_or_not():
    attrs = pytest.importorskip("attrs")

    @attrs.define
    class Slotted:
        values: object

    @attrs.define(slots=False)
    class Plain:
        values: object

    for klass in (Slotted, Plain):
        assert list(flatten(klass(torch.ones(1)))) == [".values"]
        assert differences(flatten(klass(torch.ones(1))), flatten(klass(torch.zeros(1)))) == [
            "host.values: values differ first at [0]: 0.0 != 1.0"]
