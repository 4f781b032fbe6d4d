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

# In the name of every temporary file: the file it will replace, this mark, the writer's pid and a salt.
TEMPORARY_MARK = ".ppaux-lint."

# The most a run reads of one file a repository holds, judged by the opened file's own size before any read: a
# sparse file of 3 GB named .py (a few MB in a Git pack) took a check 50 s and 6 GB of memory to find nothing in.
MAX_SOURCE_BYTES = 256 << 20  # a Python file; a larger one is its own PPA000, unread
MAX_PATTERN_BYTES = 100 << 20  # a .gitignore: git itself ignores a larger pattern file
MAX_SETTINGS_BYTES = 16 << 20  # a pyproject.toml or a --config file
# The most gitignore-style patterns one source holds (a config's key, a .gitignore): each costs a compile of
# about half a millisecond (pathspec's regex, then ``linear_regex``'s program) and is tried on every path, so
# 100,000 of them in a 3 MB pyproject.toml held a check for more than a minute and 800 MB. A config with more
# is an error; a .gitignore with more is not read, with a warning, as git reads none over 100 MB.
MAX_PATTERNS = 10_000


def read_regular_file(path: str | Path, limit: int | None = None, follow: bool = True) -> bytes:
    """A regular file's bytes. Anything else (a FIFO, a device) is an OSError rather than a read that may
    never end; O_NONBLOCK keeps even the open from waiting for a FIFO's writer. With ``limit``, a file of more
    bytes is an OSError too, judged by the opened file itself, not by a stat of the path taken before. Without
    ``follow``, a symbolic link at ``path`` is an OSError (ELOOP) rather than followed."""
    return read_regular_file_stat(path, limit, follow=follow)[0]


def read_regular_file_stat(path: str | Path, limit: int | None = None, directory: int | None = None,
                           follow: bool = True) -> tuple[bytes, os.stat_result]:
    """``read_regular_file``, with the file's stat as it was opened, before it was read: what a cache that
    trusts stats must pair with what it learns from the bytes. With ``directory`` (a descriptor), ``path`` is
    a name in that directory, and a link there is refused rather than followed."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow and directory is None else os.O_NOFOLLOW)
    fd = os.open(path, flags) if directory is None else os.open(path, flags, dir_fd=directory)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if limit is not None and status.st_size > limit:
            raise _too_large(path, limit)
        # Straight from the descriptor: a file object around it cost more than the read itself, and a scan
        # reads every file of a tree, a large one three times. Asking one byte more than the stat says and
        # getting exactly the stat's size is the whole file; anything else (it grew or shrank since, a short
        # read on a network file system, a /proc file that says 0) reads on to the end.
        data = os.read(fd, status.st_size + 1)
        if len(data) == status.st_size:
            return data, status
        parts, size = [data], len(data)
        while more := os.read(fd, _READ_SIZE):
            parts.append(more)
            size += len(more)
            if limit is not None and size > limit:  # it grew since the stat
                raise _too_large(path, limit)
        return b"".join(parts), status
    finally:
        os.close(fd)


def _too_large(path: str | Path, limit: int) -> OSError:
    return OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))


_READ_SIZE = 1 << 20


def atomic_write(path: Path, data: bytes) -> None:
    """``replace_file`` for a cache entry: a directory that cannot be written is left as it was, since a
    read-only cache is a slow cache, not an error."""
    with contextlib.suppress(OSError):
        replace_file(path, data)


class ChangedMeanwhile(OSError):
    """The file no longer holds what it held when it was read: someone saved it since."""


def replace_file(path: str | Path, data: bytes, like: os.stat_result | None = None, durable: bool = False,
                 expected: bytes | None = None, resolved: bool = False, strays: bool = False) -> None:
    """Write through a temporary file renamed over ``path``, so that a reader, or a kill at any instant, sees
    the old file or the new one, never half of one. ``like`` is the stat of the file replaced, whose mode, and
    owner where this process may give it, the new one keeps. ``durable`` syncs the data before the rename and
    the directory after it, as a user's file needs and a cache entry does not (a torn one is a miss).
    ``expected``: what the file held when the new text was made from it, read again just before the rename; a
    file saved meanwhile (an editor, another tool) raises ``ChangedMeanwhile`` and keeps what was saved, unless
    it already holds ``data`` (one file fixed under two names), which is then left as it is.

    ``resolved``: ``path`` is absolute and has no symbolic link in it (a ``realpath``), as a fix's target is
    once it was judged to be a checked file. Its directory is then opened one component at a time, following no
    link (``open_directory``), and the temporary file, the read again, the rename and the sync all go through
    that descriptor: a directory swapped for a link to elsewhere after the judgement (a repository's own
    script, a second user of a shared tree) cannot lead the write out of the project.

    Raises OSError. The temporary file is removed on any failure, an interrupt included: only a kill, or a
    crash of the system, leaves one, under a name ``remove_stray_temporaries`` recognises; ``strays`` removes
    those of ``path`` first (through the directory's descriptor when ``resolved``)."""
    path = Path(path)
    directory = open_directory(path.parent) if resolved else None
    try:
        if strays:
            remove_stray_temporaries(path, directory)
        _replace(path if directory is None else Path(path.name), data, like, durable, expected, directory, path)
    finally:
        if directory is not None:
            os.close(directory)


def _replace(target: Path, data: bytes, like: os.stat_result | None, durable: bool, expected: bytes | None,
             directory: int | None, path: Path) -> None:
    """``replace_file``'s work on ``target``: ``path`` itself, or its name in ``directory`` (a descriptor)."""
    fd, temporary = create_temporary(target, directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if like is not None:
                _keep_owner_and_mode(handle.fileno(), like, target, directory, path)
            if durable:
                os.fsync(handle.fileno())
        current = _current(target, directory) if expected is not None else None
        if current is not None and current == data:  # already this text (the same file fixed through a link)
            os.unlink(temporary, dir_fd=directory)
            return
        if expected is not None and current != expected:
            raise ChangedMeanwhile(errno.EAGAIN, "it changed since it was read", str(path))
        os.replace(temporary, target, src_dir_fd=directory, dst_dir_fd=directory)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory)
        raise
    if durable:
        _sync_directory(path.parent if directory is None else directory)


def open_directory(path: str | Path) -> int:
    """A descriptor of the directory at ``path`` (absolute), opened from ``/`` one component at a time with
    O_NOFOLLOW: a symbolic link anywhere in it is an OSError (ELOOP or ENOTDIR), never followed."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    parts = Path(path).parts
    if not parts or not os.path.isabs(path):
        raise OSError(errno.EINVAL, "not an absolute path", str(path))
    fd = os.open(parts[0], flags)
    try:
        for part in parts[1:]:
            inner = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _current(target: Path, directory: int | None) -> bytes | None:
    try:  # a FIFO swapped in meanwhile must not block the write
        return read_regular_file_stat(target, MAX_SOURCE_BYTES, directory=directory)[0]
    except OSError:
        return None


def writable_file(path: str | Path) -> os.stat_result:
    """The stat of the regular file at ``path`` (a symlink there is not followed), if this process may write
    it. The kernel decides, by an open for writing that truncates nothing: a read-only file system, an
    immutable file or a mode that denies this user is refused as a write would be, root's rights included,
    where a rename in a writable directory would replace the file all the same."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return info


def create_temporary(path: Path, directory: int | None = None) -> tuple[int, str]:
    """A new file beside ``path``, only for this process to write (what ``tempfile.mkstemp`` makes, without
    the 15 ms that importing ``tempfile`` adds to a run that writes one record), named for ``path``, for
    ppaux-lint and for this process, so that one a kill leaves is recognised (``remove_stray_temporaries``). With
    ``directory`` (a descriptor), ``path`` is a name in it, and so is the temporary name returned."""
    for _ in range(100):
        temporary = str(path.parent / f".{path.name}{TEMPORARY_MARK}{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                           | getattr(os, "O_BINARY", 0), 0o600, dir_fd=directory), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", str(path.parent))


def _temporary_parts(name: str) -> tuple[str, int] | None:
    """What a name that ``create_temporary`` gives stands for, and the pid that made it: ``.<stem>.<pid>.<8 hex
    digits>.tmp``, where the stem is ``<name>.ppaux-lint``, or the name alone in what earlier releases wrote."""
    parts = name[1:-len(".tmp")].rsplit(".", 2) if name.startswith(".") and name.endswith(".tmp") else []
    if (len(parts) == 3 and parts[0] != "" and parts[1].isascii() and parts[1].isdigit() and len(parts[2]) == 8
            and all(c in "0123456789abcdef" for c in parts[2])):
        return parts[0], int(parts[1])
    return None


def is_temporary(name: str) -> bool:
    """Whether ``name`` is one that ``create_temporary`` gives: what a write killed before its rename leaves,
    which ``clean`` removes with the files it stood for."""
    return _temporary_parts(name) is not None


def remove_stray_temporaries(path: Path, directory: int | None = None) -> None:
    """Remove the temporary files beside ``path`` that writes of it left when they were killed: named by
    ``create_temporary``, by a process no longer running on this system. With ``directory`` (a descriptor of
    ``path``'s directory), listed and removed through it."""
    stem = f"{path.name}{TEMPORARY_MARK}"[:-1]
    try:
        names = os.listdir(path.parent if directory is None else directory)
    except OSError:
        return
    for name in names:
        parts = _temporary_parts(name)
        if parts is not None and parts[0] == stem and not _running(parts[1]):
            with contextlib.suppress(OSError):
                os.unlink(path.parent / name if directory is None else name, dir_fd=directory)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process, or a number no process of ours had
        return True
    return True


def _keep_owner_and_mode(fd: int, like: os.stat_result, old: Path, directory: int | None, path: Path) -> None:
    """Give the new file the old one's owner and group (each only where this process may: root, or a group
    it belongs to), its extended attributes (``old``'s, in ``directory`` when given, an access control list among
    them), then its mode, which a change of owner could have cleared the set-id bits of. ``path``: the file's
    name in messages."""
    for uid in (like.st_uid, -1):
        try:
            os.fchown(fd, uid, like.st_gid)
            break
        except PermissionError:
            continue
    _keep_attributes(fd, old, directory, path)
    os.fchmod(fd, stat.S_IMODE(like.st_mode))


def _keep_attributes(fd: int, old: Path, directory: int | None, path: Path) -> None:
    """Copy ``old``'s extended attributes (``user.*`` metadata, ``system.posix_acl_access``, a security label)
    onto the new file: a rename would otherwise drop them, and with an access control list the access it
    granted. They are read through a descriptor of the old file opened in ``directory`` without following a link,
    so that a directory swapped after the file was judged cannot lend another file's. OSError where one that the
    new file does not already carry cannot be set: the file is then not replaced. Nothing to do where the system
    has no extended attributes."""
    if not hasattr(os, "listxattr"):
        return
    try:
        source = os.open(old, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                         dir_fd=directory)
    except FileNotFoundError:
        return  # the file is gone: the rename says so
    try:
        try:
            names = os.listxattr(source)
        except OSError as error:
            if error.errno == errno.ENOTSUP:  # none here
                return
            raise
        for name in names:
            value = os.getxattr(source, name)
            try:
                os.setxattr(fd, name, value)
            except OSError as error:
                with contextlib.suppress(OSError):
                    if os.getxattr(fd, name) == value:  # the new file has it already (a directory's default label)
                        continue
                raise OSError(error.errno, f"cannot keep its extended attribute {name} ({error.strerror})",
                              str(path)) from None
    finally:
        os.close(source)


def _sync_directory(directory: Path | int) -> None:
    """Make a rename in ``directory`` (a path, or a descriptor, kept open) durable. It has happened whatever
    this does, so a file system that cannot sync a directory (some refuse) is not an error."""
    with contextlib.suppress(OSError):
        if isinstance(directory, int):
            os.fsync(directory)
            return
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
