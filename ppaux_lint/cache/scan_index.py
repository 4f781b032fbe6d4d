"""What earlier runs learned from scanning each file's bytes, so unchanged files need not be read again.

A file is known by its path and its stamp: size, mtime, inode change time (ctime) and inode. mtime and
size alone are not enough: ``cp -p``, ``rsync -t``, ``touch -r`` and unpacking a tarball put an old mtime
back on new content, often at the same size, and the index would go on calling a changed file token-free
(a finding missing from every run until the file changed again). No user call can set ctime back, since
every write, ``utime`` and rename moves it, and the inode tells a file replaced by another apart. What
stays unseen is a rewrite at the same size that keeps the inode and lands within the clock tick of the
stat the index took (``replay.py`` trusts the same stamp, with the same limit).

An entry says which tokens the file was searched for and which it contains. The token sets are shared by
many files (every file scanned in the same fixpoint round was searched for the same tokens), so each
distinct set is stored once and entries point at it: the index grows with files plus rounds, not files
times tokens.

Saving rewrites the whole index, which on a 5,000-file tree costs about as much as scanning 200 files
again. So a run that learned little (an edit to one file, then a check) does not save: the next run scans
those few files once more, and the index is written when what it would forget is worth the write.
"""

from __future__ import annotations

import os
import struct
from typing import Any

# Scanning a file again costs about as much as writing this many entries: on the SGLang tree (warm page
# cache) 87 us a file against 3.5 us an entry, its share of encoding and writing the index.
RESCAN_COST = 25
# size, mtime_ns, ctime_ns, inode, packed: one 32-byte object per file costs what the two ints of
# (mtime, size) cost, where a tuple of four would add a tenth to the index's memory
STAMP = struct.Struct("<QqqQ")
Stamp = bytes


def stamp(stat: os.stat_result) -> Stamp:
    """What the caches trust a file's stat for (see the module docstring); an inode wider than 64 bits, as
    ReFS has, is cut to its low ones: it only has to differ when it changes."""
    return STAMP.pack(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino & 0xFFFF_FFFF_FFFF_FFFF)


class ScanIndex:
    def __init__(self, data: Any = None) -> None:
        self._sets: list[frozenset[str]] = []
        self._set_ids: dict[frozenset[str], int] = {}
        # (set searched now, set an unchanged file was searched for before) -> their union's id: every file
        # of a round brings the same pair, and building and hashing the union once per file is quadratic.
        # (A round passes one frozenset object for all its files, whose hash Python keeps: the key is cheap.)
        self._unions: dict[tuple[frozenset[str], int], int] = {}
        self._files: dict[str, tuple[Stamp, int, frozenset[str]]] = {}  # path -> (stamp, searched set, found)
        self.changes = 0  # entries learned since loading: what not saving would cost the next run to scan again
        self._load(data)

    def _load(self, data: Any) -> None:
        """Take what is well-formed; anything else (corrupt, foreign, truncated) is simply not known."""
        if not isinstance(data, dict):
            return
        sets, files = data.get("sets"), data.get("files")
        if not isinstance(sets, list) or not isinstance(files, dict):
            return
        for tokens in sets:
            if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
                return
        for tokens in sets:
            self._intern(frozenset(tokens))
        for path, entry in files.items():  # [mtime_ns, size, ctime_ns, inode, searched set, found]
            if (isinstance(entry, list) and len(entry) == 6 and all(type(v) is int for v in entry[:5])
                    and 0 <= entry[4] < len(self._sets) and isinstance(entry[5], list)
                    and all(isinstance(t, str) for t in entry[5])):
                try:
                    packed = STAMP.pack(entry[1], entry[0], entry[2], entry[3])
                except struct.error:  # a number no stat gives
                    continue
                self._files[path] = (packed, entry[4], frozenset(entry[5]))

    def _intern(self, tokens: frozenset[str]) -> int:
        if tokens not in self._set_ids:
            self._set_ids[tokens] = len(self._sets)
            self._sets.append(tokens)
        return self._set_ids[tokens]

    @property
    def empty(self) -> bool:
        """Whether no file is known: every lookup would miss."""
        return not self._files

    def lookup(self, path: str, stamp: Stamp, tokens: frozenset[str]) -> bool | None:
        """Whether the unchanged file contains any of ``tokens``; None when that is not known."""
        entry = self._known(path, stamp)
        if entry is None or not tokens <= self._sets[entry[1]]:
            return None
        return bool(entry[2] & tokens)

    def _known(self, path: str, stamp: Stamp) -> tuple[Stamp, int, frozenset[str]] | None:
        entry = self._files.get(path)
        if entry is None or entry[0] != stamp:
            return None
        return entry

    def remember(self, path: str, stamp: Stamp, tokens: frozenset[str], found: frozenset[str]) -> None:
        previous = self._known(path, stamp)
        if previous is None:
            searched = self._intern(tokens)
        else:  # the file is unchanged: what older scans found still holds
            found = found | (previous[2] - tokens)
            pair = (tokens, previous[1])
            if pair not in self._unions:
                self._unions[pair] = self._intern(tokens | self._sets[previous[1]])
            searched = self._unions[pair]
        self._files[path] = (stamp, searched, found)
        self.changes += 1

    def worth_saving(self) -> bool:
        """Whether rewriting the index costs less than scanning again what it learned (see the module's
        docstring)."""
        return self.changes > 0 and self.changes * RESCAN_COST >= len(self._files)

    def to_json(self, live_paths: set[str] | dict) -> dict[str, Any]:
        files = {}
        for path, (packed, searched, found) in self._files.items():
            if path in live_paths:
                size, mtime, ctime, inode = STAMP.unpack(packed)
                files[path] = [mtime, size, ctime, inode, searched, sorted(found)]
        return {"sets": [sorted(s) for s in self._sets], "files": files}
