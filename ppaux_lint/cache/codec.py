"""Frozen records to JSON and back, for the cache: summaries, and the findings a replayed run reads.

JSON rather than pickle: a cache directory can arrive in a pull request, and
unpickling it would run whatever it holds, which breaks the promise that
``check`` never executes project code. A ``Codec`` decodes only the record
types it was made for, and anything else is treated as a corrupt entry.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any


class DecodeError(ValueError):
    """The data is not a record this version wrote."""


def encode(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is tuple or kind is list:
        return [encode(v) for v in value]
    names = _FIELDS.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(kind):
            return [encode(v) for v in value] if isinstance(value, (tuple, list)) else value
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    record = {"!": kind.__name__}
    for name in names:
        record[name] = encode(getattr(value, name))
    return record


# A summary is tens of thousands of values: these spare each one the generic tests, and each record the
# dataclass machinery, which together were most of the time a cold run spent writing its cache.
_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}


# Each annotation becomes one function that checks a JSON value and builds the field's value in the same pass
# (one walk over a warm run's summaries, not a decode and then a check).
Decoder = Callable[[Any], Any]


class Codec:
    """Decodes the JSON of ``records`` (dataclasses, found by name), checking every field against its
    annotation on the way: valid JSON of the wrong shape must not reach the index."""

    def __init__(self, records: Iterable[type]) -> None:
        self._types = {cls.__name__: cls for cls in records}
        self._records: dict[str, Decoder] = {}
        self._records.update((name, self._record(cls)) for name, cls in self._types.items())

    def decode(self, value: Any) -> Any:
        """A record (or a list of them) back into its dataclass."""
        if isinstance(value, list):
            return tuple(self.decode(v) for v in value)
        if isinstance(value, dict):
            name = value.get("!")
            record = self._records.get(name) if isinstance(name, str) else None  # {"!": []} must not raise
            if record is None:
                raise DecodeError(f"unknown record type {name!r}")
            return record(value)
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
        raise DecodeError(f"unexpected value of type {type(value).__name__}")

    def _decoder(self, hint: Any) -> Decoder:
        origin = typing.get_origin(hint)
        if origin is tuple:
            args = typing.get_args(hint)
            if len(args) == 2 and args[1] is Ellipsis:
                item = self._decoder(args[0])
                return lambda v: tuple([item(x) for x in _items(v)])
            items = [self._decoder(a) for a in args]

            def fixed(value: Any) -> tuple:
                value = _items(value)
                if len(value) != len(items):
                    raise DecodeError(f"expected {len(items)} items, not {len(value)}")
                return tuple([d(x) for d, x in zip(items, value, strict=True)])
            return fixed
        if origin is typing.Union or origin is types.UnionType:
            options = [self._decoder(a) for a in typing.get_args(hint) if a is not type(None)]
            other = options[0] if len(options) == 1 else _first_of(options)
            if type(None) not in typing.get_args(hint):
                return other
            return lambda v: None if v is None else other(v)
        if hint is int:
            return _scalar(int)
        if hint is float:
            return _scalar(int, float)
        if hint in (str, bool):
            return _scalar(hint)
        if isinstance(hint, type) and hint.__name__ in self._types:
            name, records = hint.__name__, self._records
            return lambda v: records[name](v) if type(v) is dict and v.get("!") == name else _fail(v)
        return self.decode  # a shape the records do not use: decode it as it comes rather than guess

    def _record(self, cls: type) -> Decoder:
        name = cls.__name__
        fields = {field: self._decoder(hint) for field, hint in typing.get_type_hints(cls).items()}

        def record(value: dict) -> Any:
            kwargs = {}
            for key, item in value.items():
                if key != "!":
                    field = fields.get(key)
                    if field is None:
                        raise DecodeError(f"{name}: unknown field {key!r}")
                    try:
                        kwargs[key] = field(item)
                    except DecodeError as exc:
                        raise DecodeError(f"{name}.{key}: {exc}") from None
            try:
                return cls(**kwargs)
            except TypeError as exc:  # a required field missing
                raise DecodeError(str(exc)) from None
        return record


def _wrong(value: Any, what: str) -> DecodeError:
    return DecodeError(f"expected {what}, not {type(value).__name__}")


def _scalar(*accepted: type) -> Decoder:
    """``bool`` is an ``int`` to isinstance, never to a summary."""
    def scalar(value: Any) -> Any:
        if type(value) not in accepted:
            raise _wrong(value, "/".join(t.__name__ for t in accepted))
        return value
    return scalar


def _items(value: Any) -> list:
    if type(value) is not list:
        raise _wrong(value, "a list")
    return value


def _first_of(options: list[Decoder]) -> Decoder:
    def first(value: Any) -> Any:
        for option in options:
            try:
                return option(value)
            except DecodeError:
                continue
        raise _wrong(value, "one of the annotated types")
    return first


def _fail(value: Any) -> Any:
    raise _wrong(value, "a record of the annotated type")
