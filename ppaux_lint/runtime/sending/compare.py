"""Comparing what ``copy_to_host`` yields for the original and the rebuilt output.

Host objects are arbitrary, so each is flattened into ``{path: leaf}`` and the two maps are compared. The
walk goes into every container a host object can hold: mappings (keys too), sequences, deques, sets and
frozensets, dataclass fields and any other attribute (``__dict__`` and ``__slots__``, so attrs classes too),
numpy arrays (object arrays element by element), buffers (``array.array``, ``memoryview``), weak references,
and callables: a function's closure cells, defaults and attributes, a bound method's ``self``, a partial's
arguments. Nesting has no depth limit (the walk keeps its own stack) and a cycle ends where it closes.

The leaves are:

- tensors, compared by dtype, shape and values (NaN matches NaN; a difference names the first index at which
  the values differ, and both values);
- ``Code``: which code a callable runs. A callable matches another only if it runs the same code (a
  function's bytecode, names and constants, whatever file it was loaded from) and what it captured matches;
- ``Unseen``: a value the walk cannot see into (a generator, an iterator, an object of a C type with no
  attributes). It never matches: a comparison that cannot look must not pass for one that looked.

Plain values (a label, a window size, a dtype, a lock) are not leaves: they come from whichever observer
built the object, and verify's observer is a stand-in, not the one that made the original. Sets, and
dicts keyed by something that holds tensors, have no order of their own, so their members are matched
in the order of their content.

The comparison is the plugin's judge, so the plugin must not be able to sway it. Everything torch does
here goes through ``torch._C.TensorBase``'s own methods and descriptors (a C type that Python code cannot
reassign: not ``torch.equal``, not ``Tensor.__eq__``, not a subclass's overrides), with torch-function
and torch-dispatch overrides off (subclasses' ``__torch_function__``, modes a plugin left on). The few
module-level functions needed (``torch.from_numpy``, ``numpy.asarray``) are taken when this module is
imported, which in verify's worker, judge and receiving processes is before any of the project's code:
every module that imports the project's code through ``driving/loader.py`` imports this one first (a test holds
that). Out of reach: code written to defeat verify, which can patch ppaux-lint itself in its own process,
and kernels re-registered for torch's own operators (``torch.library``).

The flat form is also what crosses a process boundary in the ``dist`` transport, where it pickles even
when the host object does not. Nothing is copied here: tensors (and numpy arrays, through
``from_numpy``) are compared where they are, since verify's overhead is measured against a bare copy.
"""

from __future__ import annotations

import array
import contextlib
import datetime
import enum
import functools
import hashlib
import numbers
import re
import threading
import types
import weakref
from collections import abc, defaultdict
from collections.abc import Iterator
from typing import Any

import torch

from ppaux_lint.support.records import dataclass

try:
    import numpy
except ImportError:  # a host object cannot hold an array then
    numpy = None

_MAX_REPORTED = 3

_BASE = torch._C.TensorBase  # a C type: its methods and descriptors cannot be reassigned from Python
_TENSOR = torch.Tensor
_equal, _isnan, _logical_not, _item = _BASE.equal, _BASE.isnan, _BASE.logical_not, _BASE.__getitem__
_detach, _to, _to_dense, _cpu, _contiguous, _reshape, _view, _to_numpy = (
    _BASE.detach, _BASE.to, _BASE.to_dense, _BASE.cpu, _BASE.contiguous, _BASE.reshape, _BASE.view, _BASE.numpy)
_is_floating_point, _is_complex, _clone = _BASE.is_floating_point, _BASE.is_complex, _BASE.clone
_ne, _logical_and, _any, _nonzero, _tolist, _item_of = (
    _BASE.ne, _BASE.logical_and, _BASE.any, _BASE.nonzero, _BASE.tolist, _BASE.item)
_dtype_of, _shape_of, _device_of, _layout_of = (vars(_BASE)[name].__get__ for name in ("dtype", "shape", "device",
                                                                                       "layout"))
_from_numpy = torch._C._VariableFunctions.from_numpy
_promote_types = torch._C._VariableFunctions.promote_types
_no_torch_function, _no_torch_dispatch = torch._C.DisableTorchFunction, torch._C._DisableTorchDispatch
_as_array = numpy.asarray if numpy is not None else None
_ndarray = numpy.ndarray if numpy is not None else ()

_ATOMS = (type(None), bool, numbers.Number, str, bytes, bytearray, enum.Enum, type, types.ModuleType, range, slice,
          type(Ellipsis), type(NotImplemented), types.CodeType, datetime.date, datetime.time, datetime.timedelta,
          datetime.tzinfo, re.Pattern, type(threading.Lock()), type(threading.RLock()), torch.dtype, torch.device,
          torch.layout, torch.memory_format, torch.Generator, torch.finfo, torch.iinfo,
          *(getattr(torch, name) for name in ("Stream", "Event") if hasattr(torch, name)),
          *((numpy.dtype, numpy.generic) if numpy is not None else ()))
"""Plain values and handles: no data of the round trip's is in them, and they are not compared."""

_BUILTIN_CALLABLES = (types.BuiltinFunctionType, types.MethodWrapperType, types.MethodDescriptorType,
                      types.WrapperDescriptorType, types.ClassMethodDescriptorType)


@dataclass(frozen=True)
class Code:
    """Which code a callable runs: its name, and a digest of what it does (``builtin`` for C code)."""

    name: str
    digest: str


@dataclass(frozen=True)
class Unseen:
    """A value the walk cannot see into: ``what`` says which, as ``a generator``."""

    what: str


Leaf = torch.Tensor | Code | Unseen


def flatten(obj: Any) -> dict[str, Leaf]:
    """Map the path of each leaf reachable from ``obj`` to that leaf (tensors detached, not copied)."""
    return _Walk(set()).flatten(obj)


def differences(expected: dict[str, Leaf], actual: dict[str, Leaf]) -> list[str]:
    """Human-readable differences between two flattened objects, the first few only."""
    found = [f"{_show(path)} is missing" for path in expected if path not in actual]
    found += [f"{_show(path)} is unexpected" for path in actual if path not in expected]
    for path, leaf in expected.items():
        if path in actual:
            problem = _leaf_difference(leaf, actual[path])
            if problem:
                found.append(f"{_show(path)}: {problem}")
    if len(found) > _MAX_REPORTED:
        found = [*found[:_MAX_REPORTED], f"and {len(found) - _MAX_REPORTED} more"]
    return found


def _leaf_difference(expected: Leaf, actual: Leaf) -> str:
    """Why two leaves differ ("" when they do not); a value the walk could not see into always differs."""
    for leaf in (expected, actual):
        if isinstance(leaf, Unseen):
            return f"cannot see into {leaf.what}, so cannot compare it"
    if _is_tensor(expected) and _is_tensor(actual):
        return tensor_difference(expected, actual)
    if isinstance(expected, Code) and isinstance(actual, Code):
        if actual.name != expected.name:
            return f"code {actual.name} != {expected.name}"
        return f"code {actual.name} differs" if actual.digest != expected.digest else ""
    return f"{_kind(actual)} != {_kind(expected)}"


def tensor_difference(expected: torch.Tensor, actual: torch.Tensor) -> str:
    """Why two tensors differ in dtype, shape or values ("" when they do not); NaNs match NaNs."""
    with _untouched():
        try:
            return _tensor_difference(expected, actual)
        except Exception as exc:  # noqa: BLE001 - a tensor whose values cannot be read (a wrapper subclass)
            return f"cannot compare the values ({type(exc).__name__}: {exc})"


def tensor_summary(tensor: torch.Tensor) -> tuple[str, tuple[int, ...]]:
    return _dtype(_dtype_of(tensor)), tuple(int(n) for n in _shape_of(tensor))


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor, asked of torch's C base class, which a plugin cannot patch."""
    return _is_tensor(obj)


def device_of(tensor: torch.Tensor) -> torch.device:
    """The tensor's device, read through the C base class's descriptor (not a subclass's or a patch's)."""
    return _device_of(tensor)


def host_copy(tensor: torch.Tensor) -> torch.Tensor:
    """A plain CPU copy of ``tensor``, made with torch's own methods whatever the plugin patched."""
    with _untouched():
        return _clone(_cpu(_plain(tensor)))


def on_cpu(flat: dict[str, Leaf]) -> dict[str, Leaf]:
    """``flat`` with its tensors on the CPU, to cross to a process on another device."""
    with _untouched():
        return {path: _cpu(leaf) if _is_tensor(leaf) else leaf for path, leaf in flat.items()}


def _tensor_difference(expected: torch.Tensor, actual: torch.Tensor) -> str:
    """Each difference reads ``rebuilt != original`` (``actual != expected``). A dtype difference alone means
    that the values are equal once both are cast to a dtype that holds either (an int32 copy of int64 ids);
    values that differ even so are named by their first index, in row-major order."""
    found = []
    dtypes = _dtype_of(expected), _dtype_of(actual)
    if dtypes[0] != dtypes[1]:
        found.append(f"dtype {_dtype(dtypes[1])} != {_dtype(dtypes[0])}")
    if tuple(_shape_of(expected)) != tuple(_shape_of(actual)):
        found.append(f"shape {list(_shape_of(actual))} != {list(_shape_of(expected))}")
    elif _device_of(expected).type != "meta" and _device_of(actual).type != "meta":
        a, b = _dense(expected), _to(_dense(actual), _device_of(expected))
        values = _values_difference(a, b, _promote_types(*dtypes))
        if values:
            found.append(values)
    return ", ".join(found)


def _values_difference(a: torch.Tensor, b: torch.Tensor, common: torch.dtype) -> str:
    """Where two tensors of one shape first differ, compared in ``common`` (NaN matches NaN), with both values
    as their own dtypes hold them; "" when they do not differ."""
    wide_a, wide_b = _to(a, common), _to(b, common)
    if _equal(wide_a, wide_b):
        return ""
    differs = _ne(wide_a, wide_b)
    if _is_floating_point(wide_a) or _is_complex(wide_a):
        differs = _logical_and(differs, _logical_not(_logical_and(_isnan(wide_a), _isnan(wide_b))))
    if not _any(differs):
        return ""
    index = tuple(int(i) for i in _tolist(_item(_nonzero(differs), 0)))
    values = f"{_scalar(b, index)!r} != {_scalar(a, index)!r}"
    return f"values differ first at {list(index)}: {values}" if index else f"values differ: {values}"


def _scalar(tensor: torch.Tensor, index: tuple[int, ...]) -> Any:
    return _item_of(_cpu(_item(tensor, index) if index else tensor))


@contextlib.contextmanager
def _untouched() -> Iterator[None]:
    """Torch as it is with nothing of the plugin's on top: no subclass's ``__torch_function__`` or
    ``__torch_dispatch__``, no mode the plugin left on."""
    with _no_torch_function(), _no_torch_dispatch():
        yield


class _Walk:
    """One flattening; ``active`` holds the objects on the path being walked (shared with the walks that
    order a set's members, so that a cycle through a set ends too)."""

    def __init__(self, active: set[int]) -> None:
        self.active = active

    def flatten(self, root: Any) -> dict[str, Leaf]:
        flat: dict[str, Leaf] = {}
        stack: list[tuple[str | None, Any]] = [("", root)]
        while stack:
            path, obj = stack.pop()
            if path is None:  # every object below this one is done
                self.active.discard(id(obj))
            elif _is_tensor(obj):
                flat[path] = _plain(obj)
            elif isinstance(obj, (Code, Unseen)):
                flat[path] = obj
            elif not _is_atom(obj) and id(obj) not in self.active:
                self.active.add(id(obj))
                stack.append((None, obj))  # holds ``obj``, so that its id is not reused while it is active
                stack.extend((path + suffix, child) for suffix, child in reversed(self.parts(obj)))
        return flat

    def parts(self, obj: Any) -> list[tuple[str, Any]]:
        """The parts of ``obj`` that may hold data, keyed by path suffix; an ``Unseen`` when there is no
        way in, or the way in raised."""
        try:
            return self._parts(obj)
        except Exception as exc:  # noqa: BLE001 - the project's __iter__, __getattr__, ... raised
            return [("", Unseen(f"{_a(type(obj))} (looking into it raised {type(exc).__name__}: {exc})"))]

    def _parts(self, obj: Any) -> list[tuple[str, Any]]:
        if isinstance(obj, _ndarray):
            return _array_parts(obj)
        if isinstance(obj, (array.array, memoryview)):
            return [("", _as_array(obj))] if _as_array is not None else [("", Unseen(_a(type(obj))))]
        callable_parts = _callable_parts(obj)
        if callable_parts is not None:
            return callable_parts
        if isinstance(obj, weakref.ref):
            return [("()", obj())]
        if isinstance(obj, abc.Mapping):
            parts = self._mapping_parts(obj)
        elif isinstance(obj, abc.Set):
            parts = [(f"{{{i}}}", member) for i, member in enumerate(self._in_content_order(obj))]
        elif isinstance(obj, abc.Collection):
            fields = getattr(type(obj), "_fields", None) if isinstance(obj, tuple) else None
            names = [f".{name}" for name in fields] if fields else [f"[{i}]" for i in range(len(obj))]
            parts = list(zip(names, obj, strict=False))
        elif not _has_attributes(obj):
            return [("", Unseen(_a(type(obj))))]
        else:
            parts = []
        return parts + _attribute_parts(obj)

    def _mapping_parts(self, mapping: abc.Mapping) -> list[tuple[str, Any]]:
        """Entries under ``[repr(key)]``; those whose keys hold data (or share a repr), in content order."""
        items = list(mapping.items())
        plain = [(key, value) for key, value in items if not self._sub(key)]
        paths = [f"[{key!r}]" for key, _ in plain]
        if len(set(paths)) < len(paths):
            plain, paths = [], []
        parts = list(zip(paths, (value for _, value in plain), strict=True))
        named = {id(key) for key, _ in plain}
        rest = [(key, value) for key, value in items if id(key) not in named]
        for i, (key, value) in enumerate(self._in_content_order(rest)):
            parts += [(f"{{key {i}}}", key), (f"[key {i}]", value)]
        if isinstance(mapping, defaultdict):
            parts.append((".default_factory", mapping.default_factory))
        return parts

    def _in_content_order(self, members: Any) -> list[Any]:
        """``members`` sorted by what the comparison sees in each, so that equal contents line up."""
        return sorted(members, key=lambda member: tuple(sorted(_leaf_key(path, leaf)
                                                               for path, leaf in self._sub(member).items())))

    def _sub(self, obj: Any) -> dict[str, Leaf]:
        return _Walk(self.active).flatten(obj)


def _callable_parts(obj: Any) -> list[tuple[str, Any]] | None:
    """What a function, method or partial runs and what it captured; ``None`` for anything else."""
    if isinstance(obj, types.FunctionType):
        code = obj.__code__
        parts: list[tuple[str, Any]] = [(".__code__", Code(f"{obj.__module__}.{obj.__qualname__}", _digest(code)))]
        for name, cell in zip(code.co_freevars, obj.__closure__ or (), strict=True):
            with contextlib.suppress(ValueError):  # a cell not filled yet
                parts.append((f".__closure__[{name!r}]", cell.cell_contents))
        parts += [(f".__defaults__[{i}]", value) for i, value in enumerate(obj.__defaults__ or ())]
        parts += [(f".__kwdefaults__[{name!r}]", value) for name, value in (obj.__kwdefaults__ or {}).items()]
        return parts + _attribute_parts(obj)
    if isinstance(obj, types.MethodType):
        return [(".__func__", obj.__func__), (".__self__", obj.__self__)]
    if isinstance(obj, _BUILTIN_CALLABLES):
        module = getattr(obj, "__module__", None)
        name = f"{module}.{obj.__name__}" if module else obj.__qualname__
        owner = getattr(obj, "__self__", None)
        return [(".__code__", Code(name, "builtin"))] + ([(".__self__", owner)] if not _is_atom(owner) else [])
    if isinstance(obj, functools.partial):
        return ([(".func", obj.func)] + [(f".args[{i}]", arg) for i, arg in enumerate(obj.args)]
                + [(f".keywords[{name!r}]", value) for name, value in obj.keywords.items()] + _attribute_parts(obj))
    if isinstance(obj, (staticmethod, classmethod)):
        return [(".__func__", obj.__func__)]
    return None


def _array_parts(value: Any) -> list[tuple[str, Any]]:
    """A numpy array as a tensor on the same memory; an object array element by element; strings not at all
    (plain values, as ``str`` is)."""
    if value.dtype.hasobject:
        items = numpy.ndarray.tolist(value)
        return [("[()]", items)] if value.ndim == 0 else [(f"[{i}]", item) for i, item in enumerate(items)]
    if value.dtype.kind in "US":
        return []
    try:
        return [("", _from_numpy(value))]
    except (TypeError, ValueError):  # negative strides, another byte order, a dtype torch lacks
        packed = numpy.ndarray.copy(value, order="C")
    with contextlib.suppress(TypeError, ValueError):
        return [("", _from_numpy(packed))]
    return [("", _from_numpy(numpy.ndarray.view(packed, numpy.uint8)))]


def _attribute_parts(obj: Any) -> list[tuple[str, Any]]:
    """``obj``'s attributes: its ``__dict__`` and every ``__slots__`` entry set, dataclass fields among them."""
    attrs = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    for klass in type(obj).__mro__:
        for slot in _slots(klass):
            if slot not in attrs and hasattr(obj, slot):
                attrs[slot] = getattr(obj, slot)
    return [(f".{name}", value) for name, value in attrs.items()]


def _has_attributes(obj: Any) -> bool:
    """Whether ``obj`` keeps its state where the walk can read it: a ``__dict__``, or slots declared by a class
    of its own (not a C type's hidden state)."""
    return hasattr(obj, "__dict__") or any("__slots__" in vars(klass) for klass in type(obj).__mro__[:-1])


def _slots(klass: type) -> tuple[str, ...]:
    slots = vars(klass).get("__slots__", ())
    names = (slots,) if isinstance(slots, str) else tuple(slots)
    return tuple(n for n in names if n not in ("__dict__", "__weakref__"))


def _digest(code: types.CodeType) -> str:
    """What a function does, independent of where its file is: bytecode, names and constants, nested code
    included (a frozenset constant sorted, as its order changes with the hash seed of each process)."""
    parts = [code.co_code, repr((code.co_names, code.co_varnames, code.co_freevars)).encode()]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            parts.append(_digest(const).encode())
        else:
            parts.append(repr(sorted(map(repr, const)) if isinstance(const, frozenset) else const).encode())
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


def _leaf_key(path: str, leaf: Leaf) -> tuple[str, str, str, tuple[int, ...], bytes]:
    """A sortable key for one leaf: for a tensor, its dtype, shape and bytes."""
    if isinstance(leaf, Code):
        return (path, "code", leaf.name, (), leaf.digest.encode())
    if isinstance(leaf, Unseen):
        return (path, "unseen", leaf.what, (), b"")
    return (path, "tensor", *tensor_summary(leaf), _bytes(leaf))


def _bytes(tensor: torch.Tensor) -> bytes:
    with _untouched():
        try:
            flat = _reshape(_contiguous(_cpu(_dense(tensor))), (-1,))
            return numpy.ndarray.tobytes(_to_numpy(_view(flat, torch.uint8)))
        except Exception:  # noqa: BLE001 - no bytes to read (meta, quantized): the order only is less exact
            return b""


def _is_tensor(obj: Any) -> bool:
    return isinstance(obj, _BASE)


def _is_atom(obj: Any) -> bool:
    return type(obj) is object or isinstance(obj, _ATOMS)


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor as a plain, detached ``torch.Tensor`` on the same memory, whatever subclass it was."""
    with _untouched():
        return _BASE.as_subclass(_detach(tensor), _TENSOR)


def _dense(tensor: torch.Tensor) -> torch.Tensor:
    tensor = _detach(tensor)
    return _to_dense(tensor) if _layout_of(tensor) != torch.strided else tensor


def _kind(leaf: Leaf) -> str:
    return f"code {leaf.name}" if isinstance(leaf, Code) else "a tensor"


def _a(klass: type) -> str:
    name = klass.__qualname__ if klass.__module__ == "builtins" else f"{klass.__module__}.{klass.__qualname__}"
    return f"a {name}"


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _show(path: str) -> str:
    return "host" + path
