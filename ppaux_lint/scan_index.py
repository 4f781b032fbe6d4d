"""What earlier runs learned from scanning each file's bytes, so unchanged files need not be read again.

A file is known by its path, mtime and size (as ruff's cache knows it). Its
entry says which tokens it was searched for and which it contains. The token
sets are shared by many files (every file scanned in the same fixpoint round
was searched for the same tokens), so each distinct set is stored once and
entries point at it: the index grows with files plus rounds, not files times
tokens.

Saving rewrites the whole index, which on a 5,000-file tree costs about as much as scanning 200 files
again. So a run that learned little (an edit to one file, then a check) does not save: the next run scans
those few files once more, and the index is written when what it would forget is worth the write.
"""

from __future__ import annotations

import os
from typing import Any

# Scanning a file again costs about as much as writing this many entries: on the SGLang tree (warm page
# cache) 87 us a file against 3.5 us an entry, its share of encoding and writing the index.
RESCAN_COST = 25
Stamp = tuple[int, int]  # (mtime_ns, size): all of a stat the index needs, and a tenth of its memory


def stamp(stat: os.stat_result) -> Stamp:
    return stat.st_mtime_ns, stat.st_size


class ScanIndex:
    def __init__(self, data: Any = None) -> None:
        self._sets: list[frozenset[str]] = []
        self._set_ids: dict[frozenset[str], int] = {}
        # (set searched now, set an unchanged file was searched for before) -> their union's id: every file
        # of a round brings the same pair, and building and hashing the union once per file is quadratic.
        # (A round passes one frozenset object for all its files, whose hash Python keeps: the key is cheap.)
        self._unions: dict[tuple[frozenset[str], int], int] = {}
        self._files: dict[str, tuple[int, int, int, frozenset[str]]] = {}
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
        for path, entry in files.items():
            if (isinstance(entry, list) and len(entry) == 4 and all(isinstance(v, int) for v in entry[:3])
                    and 0 <= entry[2] < len(self._sets) and isinstance(entry[3], list)
                    and all(isinstance(t, str) for t in entry[3])):
                self._files[path] = (entry[0], entry[1], entry[2], frozenset(entry[3]))

    def _intern(self, tokens: frozenset[str]) -> int:
        if tokens not in self._set_ids:
            self._set_ids[tokens] = len(self._sets)
            self._sets.append(tokens)
        return self._set_ids[tokens]

    def lookup(self, path: str, stamp: Stamp, tokens: frozenset[str]) -> bool | None:
        """Whether the unchanged file contains any of ``tokens``; None when that is not known."""
        entry = self._known(path, stamp)
        if entry is None or not tokens <= self._sets[entry[2]]:
            return None
        return bool(entry[3] & tokens)

    def _known(self, path: str, stamp: Stamp) -> tuple[int, int, int, frozenset[str]] | None:
        entry = self._files.get(path)
        if entry is None or (entry[0], entry[1]) != stamp:
            return None
        return entry

    def remember(self, path: str, stamp: Stamp, tokens: frozenset[str], found: frozenset[str]) -> None:
        previous = self._known(path, stamp)
        if previous is None:
            searched = self._intern(tokens)
        else:  # the file is unchanged: what older scans found still holds
            found = found | (previous[3] - tokens)
            pair = (tokens, previous[2])
            if pair not in self._unions:
                self._unions[pair] = self._intern(tokens | self._sets[previous[2]])
            searched = self._unions[pair]
        self._files[path] = (stamp[0], stamp[1], searched, found)
        self.changes += 1

    def worth_saving(self) -> bool:
        """Whether rewriting the index costs less than scanning again what it learned (see the module's
        docstring)."""
        return self.changes > 0 and self.changes * RESCAN_COST >= len(self._files)

    def to_json(self, live_paths: set[str] | dict) -> dict[str, Any]:
        files = {p: [e[0], e[1], e[2], sorted(e[3])] for p, e in self._files.items() if p in live_paths}
        return {"sets": [sorted(s) for s in self._sets], "files": files}
