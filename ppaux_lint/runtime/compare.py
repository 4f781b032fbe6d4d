"""Comparing what ``copy_to_host`` returns for the original and the rebuilt output.

Host objects are arbitrary (dataclasses, plain objects, nested containers of
tensors), so they are flattened into ``{path: leaf}`` maps and the maps are
compared. The flat form is also what crosses a process boundary in the
``dist`` transport: it holds only CPU tensors and plain values, so it pickles
even when the host object itself does not.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any

import torch

_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_MAX_DEPTH = 32
_MAX_REPORTED = 3


@dataclasses.dataclass(frozen=True)
class Kind:
    """The type of a container at some path, so that a rebuilt object of the wrong class is noticed."""

    name: str


def flatten(obj: Any) -> dict[str, Any]:
    """Map each path in ``obj`` to a leaf: a CPU tensor copy, a plain value, or a ``Kind``."""
    flat: dict[str, Any] = {}
    _flatten(obj, "", flat, set(), 0)
    return flat


def differences(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Human-readable differences between two flattened objects, the first few only."""
    found: list[str] = []
    for path in sorted(expected.keys() - actual.keys()):
        found.append(f"{_show(path)} is missing")
    for path in sorted(actual.keys() - expected.keys()):
        found.append(f"{_show(path)} is unexpected")
    for path in sorted(expected.keys() & actual.keys()):
        problem = leaf_difference(expected[path], actual[path])
        if problem:
            found.append(f"{_show(path)}: {problem}")
    if len(found) > _MAX_REPORTED:
        found = found[:_MAX_REPORTED] + [f"and {len(found) - _MAX_REPORTED} more"]
    return found


def leaf_difference(expected: Any, actual: Any) -> str:
    if isinstance(expected, torch.Tensor) or isinstance(actual, torch.Tensor):
        if not (isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor)):
            return f"expected {_brief(expected)}, got {_brief(actual)}"
        return tensor_difference(expected, actual)
    if type(expected) is not type(actual):
        return f"expected {_brief(expected)}, got {_brief(actual)}"
    if isinstance(expected, float) and math.isnan(expected) and math.isnan(actual):
        return ""
    return "" if expected == actual else f"expected {_brief(expected)}, got {_brief(actual)}"


def tensor_difference(expected: torch.Tensor, actual: torch.Tensor) -> str:
    """Why two tensors differ in dtype, shape or values ("" when they do not); NaNs match NaNs."""
    if expected.dtype != actual.dtype:
        return f"dtype {_dtype(actual.dtype)} != {_dtype(expected.dtype)}"
    if expected.shape != actual.shape:
        return f"shape {list(actual.shape)} != {list(expected.shape)}"
    if expected.device.type == "meta" or actual.device.type == "meta":
        return ""
    a, b = _dense_cpu(expected), _dense_cpu(actual)
    if torch.equal(a, b):
        return ""
    if (a.is_floating_point() or a.is_complex()) and torch.equal(a.isnan(), b.isnan()):
        keep = ~a.isnan()
        if torch.equal(a[keep], b[keep]):
            return ""
    return "values differ"


def tensor_summary(tensor: torch.Tensor) -> tuple[str, tuple[int, ...]]:
    return _dtype(tensor.dtype), tuple(int(n) for n in tensor.shape)


def _flatten(obj: Any, path: str, flat: dict[str, Any], active: set[int], depth: int) -> None:
    if isinstance(obj, torch.Tensor):
        if obj.device.type == "meta":
            flat[path] = obj
        else:  # a CPU tensor must be copied to be a snapshot; .cpu() already copies the others
            flat[path] = _dense_cpu(obj).clone() if obj.device.type == "cpu" else _dense_cpu(obj)
        return
    if isinstance(obj, _PLAIN) or isinstance(obj, enum.Enum):
        flat[path] = obj
        return
    if depth >= _MAX_DEPTH or id(obj) in active:
        flat[path] = Kind(f"{_type_name(obj)} (not followed: too deep or cyclic)")
        return
    children = _children(obj)
    if children is None:
        flat[path] = Kind(_type_name(obj))
        return
    flat[path + "#type"] = Kind(_type_name(obj))
    active.add(id(obj))
    for suffix, child in children:
        _flatten(child, path + suffix, flat, active, depth + 1)
    active.discard(id(obj))


def _children(obj: Any) -> list[tuple[str, Any]] | None:
    """The parts of ``obj`` to compare, keyed by path suffix; None for an opaque leaf."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f".{f.name}", getattr(obj, f.name)) for f in dataclasses.fields(obj)]
    if isinstance(obj, (tuple, list)):
        return [(f"[{i}]", item) for i, item in enumerate(obj)]
    if isinstance(obj, dict):
        return [(f"[{key!r}]", value) for key, value in obj.items()]
    if isinstance(obj, (set, frozenset)):
        return [("{}", sorted(repr(item) for item in obj))]
    if isinstance(obj, type) or callable(obj):
        return None
    attrs = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    for klass in type(obj).__mro__:
        for slot in _slots(klass):
            if slot not in attrs and hasattr(obj, slot):
                attrs[slot] = getattr(obj, slot)
    return [(f".{name}", value) for name, value in attrs.items()] if attrs else None


def _slots(klass: type) -> tuple[str, ...]:
    slots = vars(klass).get("__slots__", ())
    names = (slots,) if isinstance(slots, str) else tuple(slots)
    return tuple(n for n in names if n not in ("__dict__", "__weakref__"))


def _dense_cpu(tensor: torch.Tensor) -> torch.Tensor:
    tensor = tensor.detach()
    if tensor.layout != torch.strided:
        tensor = tensor.to_dense()
    return tensor.cpu()


def _type_name(obj: Any) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _brief(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of {_dtype(value.dtype)} {list(value.shape)}"
    if isinstance(value, Kind):
        return value.name
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _show(path: str) -> str:
    if path.endswith("#type"):
        return "the type of host" + path.removesuffix("#type")
    return "host" + path
