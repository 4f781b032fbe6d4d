"""``dataclass``, the standard library's, with the methods it writes compiled once per installation, not per run.

For each dataclass the standard library writes the source of its ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` and, when frozen, ``__setattr__`` and ``__delattr__``, and compiles it while the module is being
imported. A cold check of a 1,000-file project made 384 such compilations in its main process, 39 ms of its
250 ms on Python 3.11: more than discovery, the index and the rules together. The source depends only on the
class's fields and options, so the code compiled from it is kept in a file beside ppaux-lint's own bytecode
(``__pycache__``, as ``sys.pycache_prefix`` places it), keyed by that exact source text, and later processes
run the kept code instead of compiling it again. What a class becomes is what ``dataclasses.dataclass`` makes
of it: ``compile`` is given what ``exec`` would have compiled, with the same file name and no inherited
``__future__`` flags, so a kept code object is the one compiling would make. Type checkers see the standard
library's ``dataclass`` itself.

Scope: only the classes this module's ``dataclass`` decorates, and only in the thread that decorates them, are
compiled through the kept code. The standard library is told to use it (its module-level ``exec``) only for
the length of one decoration, so another thread's dataclasses, or a user's in the same process (the pytest
plugin, ``verify``), are compiled as always and never join the file.

The file is trusted as Python trusts the ``.pyc`` files beside it: whoever can write there can change
ppaux-lint's bytecode anyway. It is named for the interpreter (``cache_tag``), the marshal format and the
optimization level, and holds the exact ``sys.version`` that wrote it (builds that share a tag may not share a
bytecode); a file that does not read back as that version's mapping of text to code is ignored, and replaced.
Nothing is written where Python writes no bytecode (``sys.dont_write_bytecode``) or where it cannot write
(a read-only installation): those processes compile, as the standard library does. New entries are saved
when the process exits, merged with what other processes saved meanwhile, through a temporary file and a
rename. A worker (``children.py``) leaves through ``os._exit``, which runs no exit handler, so it saves what it
compiled (the summarizer's classes, which only workers may import) as it leaves (``save``).
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
from _thread import RLock, get_ident
from collections.abc import Iterator
from types import CodeType
from typing import TYPE_CHECKING, Any, TypeVar

Class = TypeVar("Class", bound=type)
MAX_ENTRIES = 4096  # past this the file starts afresh: old ppaux-lint versions' classes are never asked for again
MAX_BYTES = 64 << 20  # no file of ours is larger

_codes: dict[str, CodeType] | None = None  # the kept code by source text; None until first needed
_added = False  # whether this process compiled something the file lacked, not saved yet
_lock = RLock()
_owner: int | None = None  # the thread decorating a class now
_depth = 0


if TYPE_CHECKING:
    from dataclasses import dataclass
else:
    def dataclass(cls: Class | None = None, /, **options: Any) -> Any:
        """``dataclasses.dataclass(cls, **options)``, compiling its methods' source at most once per installation."""

        def wrap(cls: Class) -> Class:
            with _kept_code():
                return dataclasses.dataclass(**options)(cls)

        return wrap if cls is None else wrap(cls)


@contextlib.contextmanager
def _kept_code() -> Iterator[None]:
    """While inside, the standard library's dataclasses compile through ``_exec`` (its module-level name shadows
    the builtin); one thread at a time, and as often as that thread nests."""
    global _owner, _depth
    with _lock:
        if _depth == 0:
            _owner = get_ident()
            dataclasses.exec = _exec  # type: ignore[attr-defined]
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
            if _depth == 0:
                vars(dataclasses).pop("exec", None)
                _owner = None


def _exec(source: object, globals: dict[str, Any] | None = None, locals: dict[str, Any] | None = None) -> None:
    """``exec``, with the code for ``source`` taken from the kept code when the decorating thread asks."""
    global _added
    if type(source) is str and get_ident() == _owner:
        codes = _kept()
        code = codes.get(source)
        if code is None:
            code = codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            if not _added:
                _added = True
                atexit.register(save)
        source = code
    builtins.exec(source, globals, locals)  # type: ignore[arg-type]


def _kept() -> dict[str, CodeType]:
    global _codes
    if _codes is None:
        path = store_path()
        _codes = _read(path) if path is not None else {}
    return _codes


def store_path() -> str | None:
    """Where this interpreter keeps the code: beside this module's bytecode, as Python places it (under
    ``sys.pycache_prefix`` when set); None for an interpreter that keeps no bytecode."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    directory = os.path.dirname(os.path.abspath(__file__))
    if sys.pycache_prefix:
        cache = os.path.join(sys.pycache_prefix, os.path.splitdrive(directory)[1].lstrip(os.sep + (os.altsep or "")))
    else:
        cache = os.path.join(directory, "__pycache__")
    return os.path.join(cache, f"dataclasses.{tag}.m{marshal.version}.o{sys.flags.optimize}.bin")


def _read(path: str) -> dict[str, CodeType]:
    """The kept code in ``path``; empty for anything that is not a file of ours (a FIFO there cannot stall the
    import, nor a file of gigabytes fill memory: 4,096 entries take about 5 MB)."""
    from ppaux_lint.support.fileio import read_regular_file

    try:
        value = marshal.loads(read_regular_file(path, MAX_BYTES))  # (``marshal.load`` reads piece by piece: 6x slower)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not (isinstance(value, tuple) and len(value) == 2 and value[0] == sys.version and isinstance(value[1], dict)):
        return {}
    codes = value[1]
    return codes if all(type(k) is str and type(v) is CodeType for k, v in codes.items()) else {}


def save() -> None:
    """Add what this process compiled to the file, unless nothing was or Python writes no bytecode here; never
    fail (a read-only installation compiles each time, as without this module)."""
    global _added
    path = store_path()
    if not _added or path is None or sys.dont_write_bytecode or _codes is None:
        return
    _added = False
    merged = _read(path)
    if len(merged) + len(_codes) > MAX_ENTRIES:
        merged = {}
    merged.update(_codes)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # never through a link
    except OSError:
        return  # (one that exists is not ours to remove)
    try:
        with open(descriptor, "wb") as handle:
            handle.write(marshal.dumps((sys.version, merged)))
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
