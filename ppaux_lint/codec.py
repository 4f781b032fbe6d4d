"""Summaries to JSON and back, for the cache.

JSON rather than pickle: a cache directory can arrive in a pull request, and
unpickling it would run whatever it holds, which breaks the promise that
``check`` never executes project code. Decoding accepts only the summary
types, and anything else is treated as a corrupt entry.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

from ppaux_lint import summary as summary_module

_TYPES = {cls.__name__: cls for cls in vars(summary_module).values()
          if isinstance(cls, type) and dataclasses.is_dataclass(cls)}


class DecodeError(ValueError):
    """The data is not a summary this version wrote."""


def encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        record = {"!": type(value).__name__}
        for f in dataclasses.fields(value):
            record[f.name] = encode(getattr(value, f.name))
        return record
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        name = value.get("!")
        cls = _TYPES.get(name) if isinstance(name, str) else None  # {"!": []} must not raise TypeError
        if cls is None:
            raise DecodeError(f"unknown record type {value.get('!')!r}")
        fields = {k: decode(v) for k, v in value.items() if k != "!"}
        checks = _CHECKS[cls.__name__]
        for name, field_value in fields.items():  # valid JSON of the wrong shape must not reach the index
            if name in checks and not checks[name](field_value):
                raise DecodeError(f"{cls.__name__}.{name}: unexpected {type(field_value).__name__}")
        try:
            return cls(**fields)
        except TypeError as exc:
            raise DecodeError(str(exc)) from None
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise DecodeError(f"unexpected value of type {type(value).__name__}")


def _checker(hint: Any) -> Callable[[Any], bool]:
    """A test that a decoded value has the annotated type (nested records were checked when built)."""
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _checker(args[0])
            return lambda v: isinstance(v, tuple) and all(item(x) for x in v)
        items = [_checker(a) for a in args]
        return lambda v: (isinstance(v, tuple) and len(v) == len(items)
                          and all(c(x) for c, x in zip(items, v, strict=True)))
    if origin is typing.Union or origin is types.UnionType:
        options = [_checker(a) for a in typing.get_args(hint)]
        return lambda v: any(c(v) for c in options)
    if hint is type(None):
        return lambda v: v is None
    if hint is int or hint is float:
        accepted = int if hint is int else (int, float)
        return lambda v: isinstance(v, accepted) and not isinstance(v, bool)
    if origin is None and isinstance(hint, type):
        return lambda v: isinstance(v, hint)
    return lambda v: True  # a shape the summaries do not use: accept rather than guess


_CHECKS = {name: {field: _checker(hint) for field, hint in typing.get_type_hints(cls).items()}
           for name, cls in _TYPES.items()}
