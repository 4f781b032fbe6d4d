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
New entries are saved when the process exits, merged with what other processes saved meanwhile, through a
temporary file and a rename. A worker (``children.py``) leaves through ``os._exit``, which runs no exit
handler, so it saves what it compiled (the summarizer's classes, which only workers may import) as it leaves
(``save``).

Where Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``, ``-B``: common in containers and CI images) or
cannot write beside it (a read-only or system-wide installation), the code is kept in the user's cache
directory instead (``_user_directory``), which is where a tool's cache belongs: without it every run compiled
every class again, and a 1,000-file check took 1.16x as long, a one-file check 1.07x. That file is code this
process runs, so it is trusted only as the user's own: read and written only in a directory that this user
owns and nobody else may write, opened without following links, and read only when the file too is this
user's and writable by nobody else. Of the two files, the one ``save`` writes to is read first, the other
only when that one holds nothing.
"""

from __future__ import annotations

import atexit
import binascii
import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
from _thread import RLock, get_ident
from collections.abc import Callable, Iterator
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
        # First the file ``save`` writes to, so that what this process compiles is found there next time; the
        # other only when that one has nothing (a file an earlier run left where this one may no longer write).
        first, then = (_read_beside, _read_users) if _saves_beside(store_path()) else (_read_users, _read_beside)
        _codes = first() or then()
    return _codes


def _read_beside() -> dict[str, CodeType]:
    path = store_path()
    return _read(path) if path is not None else {}


def _read_users() -> dict[str, CodeType]:
    """The kept code in the user's file, when its directory and the file are private (``_in_private``)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return {}
    return _in_private(_user_directory(), False, lambda directory: _read(_user_file_name(tag), directory, True), {})


def _saves_beside(path: str | None) -> bool:
    """Whether ``save`` writes beside the bytecode: Python writes bytecode, and the directory is writable."""
    return path is not None and not sys.dont_write_bytecode and os.access(os.path.dirname(path), os.W_OK)


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
    return os.path.join(cache, _file_name(tag))


def _file_name(tag: str, suffix: str = "") -> str:
    return f"dataclasses.{tag}.m{marshal.version}.o{sys.flags.optimize}{suffix}.bin"


def _user_file_name(tag: str) -> str:
    """The name adds a checksum of ``sys.version``: interpreters that share a tag there (a virtual environment's
    and the system's) do not replace each other's file."""
    return _file_name(tag, f".{binascii.crc32(sys.version.encode()):08x}")


def _user_directory() -> str | None:
    """Where a process keeps the code when it cannot keep it beside the bytecode (Python writes none there, or
    the installation is read-only): the user's cache directory (``$XDG_CACHE_HOME``, else ``~/.cache``;
    ``~/Library/Caches`` on macOS), in a directory of its own that only the user may write (``_in_private``).
    None where the user has no home, and off POSIX, where ownership cannot be checked."""
    if os.name != "posix":
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, "Library", "Caches") if sys.platform == "darwin" else os.path.join(home, ".cache")
    return os.path.join(base, "ppaux-lint")


Result = TypeVar("Result")


def _in_private(directory: str | None, make: bool, use: Callable[[int], Result], missing: Result) -> Result:
    """``use`` of the user's directory for the code, opened as a descriptor, when it is a directory (not a
    link) that this user owns and nobody else may write (made so first when ``make``); ``missing`` otherwise.
    The file there is code this process runs, so a directory another user could write into is never used."""
    if directory is None:
        return missing
    if make:
        with contextlib.suppress(OSError):
            os.makedirs(os.path.dirname(directory), exist_ok=True)
        with contextlib.suppress(OSError):
            os.mkdir(directory, 0o700)
    try:
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return missing
    try:
        return use(descriptor) if _private(os.fstat(descriptor)) else missing
    finally:
        os.close(descriptor)


def _private(status: os.stat_result) -> bool:
    """Owned by this user, and writable by nobody else."""
    return status.st_uid == os.geteuid() and not status.st_mode & 0o022


def _read(path: str, directory: int | None = None, private: bool = False) -> dict[str, CodeType]:
    """The kept code in ``path`` (a name in ``directory``, when given); empty for anything that is not a file of
    ours (a FIFO there cannot stall the import, nor a file of gigabytes fill memory: 4,096 entries take about
    5 MB), and, when ``private``, for a file that is not private (``_private``)."""
    from ppaux_lint.support.fileio import read_regular_file_stat

    try:
        data, status = read_regular_file_stat(path, MAX_BYTES, directory)
        if private and not _private(status):
            return {}
        value = marshal.loads(data)  # (``marshal.load`` reads piece by piece: 6x slower)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not (isinstance(value, tuple) and len(value) == 2 and value[0] == sys.version and isinstance(value[1], dict)):
        return {}
    codes = value[1]
    return codes if all(type(k) is str and type(v) is CodeType for k, v in codes.items()) else {}


def save() -> None:
    """Add what this process compiled to the file beside the bytecode, or, where Python writes no bytecode or
    that file cannot be written, to the user's (``_user_directory``); unless nothing was compiled. Never fails:
    where neither can be written, every process compiles, as without this module."""
    global _added
    if not _added or _codes is None:
        return
    _added = False
    path = store_path()
    if path is not None and not sys.dont_write_bytecode:
        with contextlib.suppress(OSError):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        if _write(path, None, private=False):
            return
    tag = sys.implementation.cache_tag
    if tag is not None:
        name = _user_file_name(tag)
        _in_private(_user_directory(), True, lambda directory: _write(name, directory, private=True), False)


def _write(name: str, directory: int | None, private: bool) -> bool:
    """This process's code merged into the file ``name`` (in ``directory``, a descriptor, when given: a link
    there is refused), through a temporary file and a rename; whether it was written."""
    assert _codes is not None
    merged = _read(name, directory, private)
    if len(merged) + len(_codes) > MAX_ENTRIES:
        merged = {}
    merged.update(_codes)
    temporary = f"{name}.{os.getpid()}.tmp"
    at = {} if directory is None else {"dir_fd": directory}
    try:  # never through a link (O_EXCL), and one that exists is not ours to remove
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o644, **at)
    except OSError:
        return False
    try:
        with open(descriptor, "wb") as handle:
            handle.write(marshal.dumps((sys.version, merged)))
        os.replace(temporary, name, **({} if directory is None else {"src_dir_fd": directory,
                                                                       "dst_dir_fd": directory}))
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary, **at)
        return False
    return True
