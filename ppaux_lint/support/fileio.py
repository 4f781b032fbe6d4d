"""Reading and writing the files ppaux-lint keeps or consults, safely.

Every module that reads a file it did not write (a ``.gitignore``, a source file, a cache entry that may
have arrived in a pull request) or writes a file that another run may read at the same moment goes through
here; and it imports almost nothing, so that the cheapest runs can use it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path


def read_regular_file(path: str | Path) -> bytes:
    """A regular file's bytes. Anything else (a FIFO, a device) is an OSError rather than a read that may
    never end; O_NONBLOCK keeps even the open from waiting for a FIFO's writer."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return handle.read()


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file renamed over ``path``, so that a reader sees the old file or the new
    one, never half of one; a directory that cannot be written is left as it was."""
    try:
        fd, temporary = create_temporary(path)
    except OSError:
        return  # a read-only cache is a slow cache, not an error
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def create_temporary(path: Path) -> tuple[int, str]:
    """A new file beside ``path``, only for this process to write (what ``tempfile.mkstemp`` makes, without
    the 15 ms that importing ``tempfile`` adds to a run that writes one record)."""
    for _ in range(100):
        temporary = str(path.parent / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")  # is_temporary's
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                           | getattr(os, "O_BINARY", 0), 0o600), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


def is_temporary(name: str) -> bool:
    """Whether ``name`` is one that ``create_temporary`` gives (``.<name>.<pid>.<8 hex digits>.tmp``): what a
    write killed before its rename leaves, which ``clean`` removes with the files it stood for."""
    parts = name[1:-len(".tmp")].rsplit(".", 2) if name.startswith(".") and name.endswith(".tmp") else []
    return (len(parts) == 3 and parts[0] != "" and parts[1].isascii() and parts[1].isdigit() and len(parts[2]) == 8
            and all(c in "0123456789abcdef" for c in parts[2]))
