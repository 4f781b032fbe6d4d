"""Comparing the tensors that ``copy_to_host`` yields for the original and the rebuilt output.

Host objects are arbitrary (dataclasses, plain objects, nested containers),
so each is flattened into ``{path: tensor}`` by walking dataclass fields,
attributes, tuples, lists and dicts, and the two maps are compared. Only
tensors count: plain values on the host object (a label, a window size) come
from whichever observer built the object, and verify's observer is a
stand-in, not the one that made the original. The flat form is also what
crosses a process boundary in the ``dist`` transport, where it pickles even
when the host object does not.

Nothing is copied here: tensors are compared where they are, since verify's
overhead is measured against a bare copy and every extra copy of a large
output shows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

_MAX_DEPTH = 32
_MAX_REPORTED = 3


def flatten(obj: Any) -> dict[str, torch.Tensor]:
    """Map the path of each tensor reachable from ``obj`` to that tensor (detached, not copied)."""
    flat: dict[str, torch.Tensor] = {}
    _flatten(obj, "", flat, set(), 0)
    return flat


def differences(expected: dict[str, torch.Tensor], actual: dict[str, torch.Tensor]) -> list[str]:
    """Human-readable differences between two flattened objects, the first few only."""
    found = [f"{_show(path)} is missing" for path in expected if path not in actual]
    found += [f"{_show(path)} is unexpected" for path in actual if path not in expected]
    for path, tensor in expected.items():
        if path in actual:
            problem = tensor_difference(tensor, actual[path])
            if problem:
                found.append(f"{_show(path)}: {problem}")
    if len(found) > _MAX_REPORTED:
        found = [*found[:_MAX_REPORTED], f"and {len(found) - _MAX_REPORTED} more"]
    return found


def tensor_difference(expected: torch.Tensor, actual: torch.Tensor) -> str:
    """Why two tensors differ in dtype, shape or values ("" when they do not); NaNs match NaNs."""
    if expected.dtype != actual.dtype:
        return f"dtype {_dtype(actual.dtype)} != {_dtype(expected.dtype)}"
    if expected.shape != actual.shape:
        return f"shape {list(actual.shape)} != {list(expected.shape)}"
    if expected.device.type == "meta" or actual.device.type == "meta":
        return ""
    a, b = _dense(expected), _dense(actual).to(expected.device)
    if torch.equal(a, b):
        return ""
    if (a.is_floating_point() or a.is_complex()) and torch.equal(a.isnan(), b.isnan()):
        keep = ~a.isnan()
        if torch.equal(a[keep], b[keep]):
            return ""
    return "values differ"


def tensor_summary(tensor: torch.Tensor) -> tuple[str, tuple[int, ...]]:
    return _dtype(tensor.dtype), tuple(int(n) for n in tensor.shape)


def _flatten(obj: Any, path: str, flat: dict[str, torch.Tensor], active: set[int], depth: int) -> None:
    if isinstance(obj, torch.Tensor):
        flat[path] = obj.detach()
        return
    if depth >= _MAX_DEPTH or id(obj) in active:
        return
    active.add(id(obj))
    for suffix, child in _children(obj):
        _flatten(child, path + suffix, flat, active, depth + 1)
    active.discard(id(obj))


def _children(obj: Any) -> list[tuple[str, Any]]:
    """The parts of ``obj`` that may hold tensors, keyed by path suffix."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f".{f.name}", getattr(obj, f.name, None)) for f in dataclasses.fields(obj)]
    if isinstance(obj, (tuple, list)):
        return [(f"[{i}]", item) for i, item in enumerate(obj)]
    if isinstance(obj, dict):
        return [(f"[{key!r}]", value) for key, value in obj.items()]
    if isinstance(obj, (str, bytes, int, float, complex, type)) or obj is None or callable(obj):
        return []
    attrs = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
    for klass in type(obj).__mro__:
        for slot in _slots(klass):
            if slot not in attrs and hasattr(obj, slot):
                attrs[slot] = getattr(obj, slot)
    return [(f".{name}", value) for name, value in attrs.items()]


def _slots(klass: type) -> tuple[str, ...]:
    slots = vars(klass).get("__slots__", ())
    names = (slots,) if isinstance(slots, str) else tuple(slots)
    return tuple(n for n in names if n not in ("__dict__", "__weakref__"))


def _dense(tensor: torch.Tensor) -> torch.Tensor:
    tensor = tensor.detach()
    return tensor.to_dense() if tensor.layout != torch.strided else tensor


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _show(path: str) -> str:
    return "host" + path
