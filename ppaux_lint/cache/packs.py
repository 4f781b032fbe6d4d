"""Summaries kept many to a file: what a cold run learns is written as one pack, not as a file per entry.

Why: creating a file is the dearest thing a cold run asks of the kernel, and its price moves with the hour. On
the benchmarks' VM one create and rename cost 35 µs at one hour and 0.7 ms at another, so the 2,617 entries of
a cold check of the 10,000-file monorepo took 1.9 s of kernel time in a 4.6 s run (``--no-cache``: 2.1 s).
One pack is one create, whatever the number of entries.

A pack, ``<version>/packs/<32 hex digits>.pack`` (the digits: a digest of its bytes), is written once, through
a temporary file renamed into place (``fileio.replace_file``), and never changed after:

    b"ppaux-lint pack 1\\n"  +  the index's length, 16 decimal digits, and b"\\n"  +  the index  +  the entries

The index is JSON, ``{key: [offset, length], ...}``, offsets counted from the end of the index; an entry is
what ``summaries.summary_entry`` makes, as a file of its own would hold. A run reads every pack's header and
index on its first lookup, and an entry's bytes when it is asked for, keeping each pack open until the run
lets go of its entries (a pack that a concurrent run merged and removed meanwhile still reads). A pack that
cannot be read back whole (not a regular file, a foreign header, an index that is not JSON of keys to
in-bounds ranges) holds nothing; an entry that does not decode is a miss (``summaries.py``). Neither is an
error: the file is parsed again.

Few entries (the files an edit changed) are still written a file each, so packs do not multiply with edits;
a run that would make a pack when ``MAX_PACKS`` are there already writes one holding its own and, up to
``MERGE_BYTES``, theirs, newest first, then removes those it merged: the packs stay few, and their size
bounded. Two runs merging at once each write a whole pack, and each removes what it read.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import weakref
from collections.abc import Mapping
from pathlib import Path

from ppaux_lint.support.fileio import replace_file

try:  # as summaries.py takes it: importing hashlib also loads OpenSSL
    from _blake2 import blake2b
except ImportError:  # an interpreter without it (not CPython)
    from hashlib import blake2b

PACKS = "packs"
PACK = re.compile(r"[0-9a-f]{32}\.pack")  # as clean.py recognises a pack's name
PACK_MIN = 16  # entries a run writes at once before one pack pays over a file each
MAX_PACKS = 8  # packs a lookup opens before the next run to write one merges them
MERGE_BYTES = 64 << 20  # of entries a merged pack holds at most (the 10,000-file monorepo's: 9 MB)
MAGIC = b"ppaux-lint pack 1\n"
_LENGTH = 16  # decimal digits of the index's length
_HEAD = len(MAGIC) + _LENGTH + 1
_MAX_INDEX = 64 << 20  # no index of ours is larger (50 bytes an entry): a header that says more is not one
MAX_READ = 4 * MAX_PACKS  # packs whose indexes a run reads at most (``_newest``)
_OPEN = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

Located = tuple[int, int, int]  # the open pack's descriptor, the entry's first byte in it, and its length


def pack_bytes(entries: Mapping[str, bytes]) -> bytes:
    """A pack holding ``entries`` (key -> entry)."""
    index: dict[str, list[int]] = {}
    offset = 0
    for key, entry in entries.items():
        index[key] = [offset, len(entry)]
        offset += len(entry)
    head = json.dumps(index, separators=(",", ":")).encode()
    return MAGIC + str(len(head)).zfill(_LENGTH).encode() + b"\n" + head + b"".join(entries.values())


class Packs:
    """The packs in one directory: what their indexes hold, read on the first lookup, and the writing of a new
    one."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._found: dict[str, Located] | None = None
        self._read: list[tuple[float, str, dict[str, tuple[int, int]]]] = []  # each pack read: mtime, name, index
        self._fds: list[int] = []
        weakref.finalize(self, _close_all, self._fds)

    def get(self, key: str) -> bytes | None:
        """The entry kept under ``key`` in some pack; None when none holds it, or its bytes are not all there."""
        located = self._index().get(key)
        if located is None:
            return None
        fd, start, length = located
        try:
            data = _pread(fd, length, start)
        except OSError:
            return None
        return data if len(data) == length else None

    def write(self, entries: Mapping[str, bytes]) -> None:
        """Keep ``entries`` as one new pack. When ``MAX_PACKS`` are there already, the new one also holds their
        entries, the newest packs' first, up to ``MERGE_BYTES`` in all, and they go: what a merge leaves out is
        what the latest runs did not write, and a cache that only grows would be read whole by every run. A
        pack that cannot be written is only a slower next run, and removes nothing."""
        self._index()
        merged = sorted(self._read, reverse=True) if len(self._read) >= MAX_PACKS else []
        if merged:
            carried: dict[str, bytes] = {}
            budget = MERGE_BYTES - sum(map(len, entries.values()))
            for _, _, located in merged:
                for key, (_, length) in located.items():
                    if key not in carried and key not in entries and length <= budget:
                        data = self.get(key)
                        if data is not None:
                            carried[key] = data
                            budget -= length
            entries = {**carried, **entries}
        data = pack_bytes(entries)
        name = blake2b(data, digest_size=16).hexdigest() + ".pack"
        try:
            replace_file(self.directory / name, data)
        except OSError:
            return
        for _, old, _ in merged:
            if old != name:
                with contextlib.suppress(OSError):  # a concurrent merge removed it first
                    os.unlink(self.directory / old)

    def _index(self) -> dict[str, Located]:
        if self._found is None:
            self._found = {}
            try:
                names = sorted(name for name in os.listdir(self.directory) if PACK.fullmatch(name))
            except OSError:  # no packs yet, or a directory that cannot be read: every lookup is a miss
                names = []
            for name in _newest(self.directory, names, MAX_READ):
                self._read_index(name)
        return self._found

    def _read_index(self, name: str) -> None:
        """Add what the pack ``name`` holds to the lookups; nothing when it is not a whole pack of ours."""
        try:
            fd = os.open(self.directory / name, _OPEN)
        except OSError:
            return
        try:
            status = os.fstat(fd)
            located = _located(fd, status)
        except (OSError, ValueError, RecursionError):
            located = None
        if located is None:
            os.close(fd)
            return
        self._fds.append(fd)
        self._read.append((status.st_mtime, name, located))
        for key, (start, length) in located.items():
            self._found.setdefault(key, (fd, start, length))  # type: ignore[union-attr]  # set by the caller


def _located(fd: int, size: os.stat_result) -> dict[str, tuple[int, int]] | None:
    """Where each entry of the pack open on ``fd`` (whose stat is ``size``) lies in it; None when the file is
    not a whole pack."""
    if not stat.S_ISREG(size.st_mode):  # a FIFO or a device named like a pack: reading it could never end
        return None
    head = _pread(fd, _HEAD, 0)
    digits = head[len(MAGIC):-1]
    if len(head) != _HEAD or not head.startswith(MAGIC) or head[-1:] != b"\n" or not digits.isdigit():
        return None
    length = int(digits)
    if length > min(size.st_size - _HEAD, _MAX_INDEX):
        return None
    raw = _pread(fd, length, _HEAD)
    index = json.loads(raw) if len(raw) == length else None
    if not isinstance(index, dict):
        return None
    base, end = _HEAD + length, size.st_size
    out: dict[str, tuple[int, int]] = {}
    for key, where in index.items():
        if not (isinstance(where, list) and len(where) == 2 and all(type(n) is int and n >= 0 for n in where)
                and base + where[0] + where[1] <= end):
            return None
        out[key] = (base + where[0], where[1])
    return out


def _newest(directory: Path, names: list[str], most: int) -> list[str]:
    """``names`` when they are at most ``most``, else the ``most`` last modified: runs of ppaux-lint leave a
    few packs (``MAX_PACKS``, and one more for each run merging at once), and a directory that holds thousands
    did not come from them, so its first lookup reads a bounded number of indexes."""
    if len(names) <= most:
        return names

    def modified(name: str) -> float:
        try:
            return os.lstat(directory / name).st_mtime
        except OSError:
            return 0.0
    return sorted(names, key=modified, reverse=True)[:most]


def _pread(fd: int, length: int, offset: int) -> bytes:
    """``os.pread``, where the platform has it (not Windows): a seek and a read there, which no other thread of
    this process shares a pack's descriptor for."""
    if hasattr(os, "pread"):
        return os.pread(fd, length, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    fds.clear()
