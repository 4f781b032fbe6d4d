"""Importing the project's classes and example factories by name.

Torch-free so that the worker can report an import failure as the class's
own ``error`` rather than as a harness crash.
"""

from __future__ import annotations

import importlib
from typing import Any

from ppaux_lint.runtime import stand_ins
from ppaux_lint.runtime.targets import ClassRef


class Unimportable(Exception):
    """Verify cannot import the class, through no fault of the class, and skips it; the message says why.

    Either the static pass already knows (a class defined in a function), or the class needs a part of
    SGLang that the stand-ins do not provide where SGLang is not installed (``stand_ins.beyond``).
    """


def load_class(ref: ClassRef) -> type:
    if ref.unimportable:
        raise Unimportable(f"{ref.symbol} is {ref.unimportable}")
    try:
        if ref.module:
            return _walk(importlib.import_module(ref.module), ref.qualname, ref.module)
        return _load_dotted(ref.symbol)
    except ImportError as exc:
        needs = stand_ins.beyond(exc)
        if needs is None:
            raise
        raise Unimportable(f"{ref.symbol} {needs}") from None


def load_factory(spec: str) -> Any:
    """Resolve ``"pkg.module:function"`` (the function part may be dotted, e.g. ``Class.make``)."""
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"example factory {spec!r} must look like 'pkg.module:function'")
    return _walk(importlib.import_module(module), attr, module)


def _load_dotted(symbol: str) -> Any:
    """Import the longest module prefix of ``symbol`` that exists and walk the rest."""
    parts = symbol.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        try:
            imported = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
                continue  # this prefix is not a module; a shorter one may be
            raise
        return _walk(imported, ".".join(parts[cut:]), module)
    raise ImportError(f"no importable module in {symbol!r}")


def _walk(obj: Any, dotted: str, where: str) -> Any:
    for name in dotted.split("."):
        try:
            obj = getattr(obj, name)
        except AttributeError:
            raise ImportError(f"{where} has no attribute {name!r}") from None
        where = f"{where}.{name}"
    return obj
