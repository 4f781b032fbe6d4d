"""Summaries to JSON and back, for the cache.

JSON rather than pickle: a cache directory can arrive in a pull request, and
unpickling it would run whatever it holds, which breaks the promise that
``check`` never executes project code. Decoding accepts only the summary
types, and anything else is treated as a corrupt entry.
"""

from __future__ import annotations

import dataclasses
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
        cls = _TYPES.get(value.get("!"))  # type: ignore[arg-type]
        if cls is None:
            raise DecodeError(f"unknown record type {value.get('!')!r}")
        try:
            return cls(**{k: decode(v) for k, v in value.items() if k != "!"})
        except TypeError as exc:
            raise DecodeError(str(exc)) from None
    if isinstance(value, list):
        return tuple(decode(v) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise DecodeError(f"unexpected value of type {type(value).__name__}")
