"""Importing the project's classes and example factories by name.

Torch-free so that the worker can report an import failure as the class's
own ``error`` rather than as a harness crash.
"""

from __future__ import annotations

import importlib
from typing import Any

from ppaux_lint.runtime import stand_ins
from ppaux_lint.runtime.terms.targets import ClassRef


class Unimportable(Exception):
    """Verify cannot import the class, through no fault of the class, and skips it; the message says why.

    Either the static pass already knows (a class defined in a function), or the class needs a part of
    SGLang that the stand-ins do not provide where SGLang is not installed (``stand_ins.beyond``).
    """


def load_class(ref: ClassRef) -> type:
    """The class ``ref`` names: imported by name, taken from the module-level name that holds it (or an
    instance of it) when it is defined in a function, or, when only an observer's ``after_sample`` reaches
    it (``ref.returned_by``), a stand-in type that matches its instances by name (any object when no class
    is known), for the drive to recognise what the observer returns."""
    if ref.returned_by:
        return returned_type(ref)
    if ref.unimportable:
        raise Unimportable(f"{ref.symbol} is {ref.unimportable}")
    try:
        if ref.exposed:
            found = load_exposed(ref)
            return found if isinstance(found, type) else type(found)
        if ref.module:
            return _walk(importlib.import_module(ref.module), ref.qualname, ref.module)
        return _load_dotted(ref.symbol)
    except ImportError as exc:
        needs = stand_ins.beyond(exc)
        if needs is None:
            raise
        raise Unimportable(f"{ref.symbol} {needs}") from None


def load_exposed(ref: ClassRef) -> Any:
    """The first module-level object of ``ref.exposed`` that is the class ``ref`` names or an instance of it:
    what the function that defines the class made, as the deployment installs it."""
    held = []
    for exposure in ref.exposed:
        module, _, name = exposure.partition(":")
        found = _walk(importlib.import_module(module), name, module)
        if _is(found, ref) or _is(type(found), ref):
            return found
        held.append(f"{module}.{name} holds a {type(found).__qualname__}")
    raise Unimportable(f"{ref.symbol} is defined inside a function, and no module-level name holds it or an "
                       f"instance of it ({'; '.join(held)})")


def exposed_instance(ref: ClassRef) -> Any | None:
    """The module-level instance ``ref`` is exposed as, if it is exposed as one (``OBSERVER = _install()``):
    that object is what a deployment installs, so it is the one to drive."""
    if not ref.exposed or ref.returned_by or ref.unimportable:
        return None
    try:
        found = load_exposed(ref)
    except Unimportable:  # load_class says so, as the row's skip
        return None
    return None if isinstance(found, type) else found


def returned_type(ref: ClassRef) -> type:
    """A type whose ``isinstance`` accepts what ``ref`` stands for: instances of the class of that module and
    qualname (a class defined in a function, found by driving), or anything when ``ref`` names no class."""

    class _Meta(type):
        def __instancecheck__(cls, value: object) -> bool:
            return not ref.qualname or any(_is(klass, ref) for klass in type(value).__mro__)

    return _Meta(ref.symbol.rpartition(".")[2] or "returned", (), {"__module__": ref.module or "builtins"})


def _is(cls: Any, ref: ClassRef) -> bool:
    return isinstance(cls, type) and cls.__module__ == ref.module and cls.__qualname__ == ref.qualname


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
