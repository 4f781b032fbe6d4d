"""The entries of this version of ppaux-lint in the cache: per-file summaries keyed by content, and the
prefilter's scan index.

Layout under the cache directory (``.ppaux_lint_cache`` at the project root):
``<version>/summaries/<key>.json``, ``<version>/packs/<digest>.pack`` and ``<version>/scan.json``. A run keeps
the entries it makes until the analysis is over (``flush``), then writes them as one pack when they are many
(``packs.py`` says why) and a file each when they are few. Every write goes to a temporary file that is then
renamed over the target, so a reader sees the old entry or the new one, never half of one, and two concurrent
runs at worst both write the same content. Any entry that cannot be read back exactly (corrupt, truncated,
foreign, another version) is a miss.

An internal of the cache's owner (``owner.py``), which makes the directory before the first write.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ppaux_lint import __version__
from ppaux_lint.cache import codec
from ppaux_lint.cache.packs import PACK_MIN, PACKS, Packs
from ppaux_lint.facts import summary as summary_module
from ppaux_lint.facts.summary import SUMMARY_FORMAT, FileSummary
from ppaux_lint.support.fileio import atomic_write, read_regular_file

try:  # the module hashlib takes blake2b from: importing hashlib also loads OpenSSL, 3 ms of every run
    from _blake2 import blake2b
except ImportError:  # an interpreter without it (not CPython)
    from hashlib import blake2b

if TYPE_CHECKING:
    from ppaux_lint.project.discover import SourceFile

# The names written under the cache directory, as clean.py recognises them: a directory of any version's
# ``<version>-<summary format>`` (clean removes the entries of every version), its scan index and summaries,
# and an entry's name, its content key (a 16-byte digest, in hex).
VERSIONED = re.compile(r"[0-9][\w.+!-]*-[0-9]+")
SCAN, SUMMARIES = "scan.json", "summaries"
ENTRY = re.compile(r"[0-9a-f]{32}\.json")
_RUNNING = "{}.{}".format(*sys.version_info)



@functools.cache
def summary_codec() -> codec.Codec:
    """Reads back exactly the summary model's records, and nothing else. Made on the first read: a cold run
    reads no summary, and making it is most of this module's import."""
    return codec.Codec(value for value in vars(summary_module).values()
                       if isinstance(value, type) and dataclasses.is_dataclass(value))


def content_key(data: bytes, path: str, module: str, is_package: bool, config_key: str, target: int) -> str:
    """The key of a summary: what decides what it holds, down to the grammar the file was parsed with and the
    interpreter that parsed it (one older than the target cannot read all of its syntax)."""
    digest = blake2b(data, digest_size=16)
    digest.update(f"\0{path}\0{module}\0{is_package}\0{config_key}\0{SUMMARY_FORMAT}\0{target}\0{_RUNNING}".encode(
        "utf-8", "surrogateescape"))
    return digest.hexdigest()


def summary_entry(summary: FileSummary) -> bytes:
    """What a summary's entry holds."""
    return json.dumps(codec.encode(summary), separators=(",", ":")).encode()


class Entries:
    """The summaries and the scan index under ``<base>/<version>/``, for a project whose config's summary key
    is ``config_key``. ``flush`` needs ``summaries`` and ``packs`` (and so their parent, which holds
    ``scan.json``) to exist: the cache's owner makes them first."""

    def __init__(self, base: Path, config_key: str) -> None:
        self.directory = base / f"{__version__}-{SUMMARY_FORMAT}"
        self.summaries = self.directory / SUMMARIES
        self.packs = self.directory / PACKS
        self._config_key = config_key
        self._packs = Packs(self.packs)
        self._files: frozenset[str] | None = None  # the entries' file names, listed on the first lookup
        self.pending: dict[str, bytes] = {}  # made by this run, not written yet

    def key(self, source: SourceFile, data: bytes, target: int) -> str:
        """What the summary of ``source`` with these bytes, parsed for Python 3.``target``, is kept under."""
        return content_key(data, source.path, source.module, source.is_package, self._config_key, target)

    def get_summary(self, key: str, source: SourceFile) -> FileSummary | None:
        """The summary stored under ``key`` for ``source``; one that names another file (a copied cache) is a
        miss."""
        try:
            raw = self._packs.get(key)
            if raw is None:
                raw = read_regular_file(self.summaries / self._file(key))
            value = summary_codec().decode(json.loads(raw))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(value, FileSummary) or value.format != SUMMARY_FORMAT:
            return None
        return value if (value.path, value.module, value.is_package) == (
            source.path, source.module, source.is_package) else None

    def _file(self, key: str) -> str:
        """The name of ``key``'s entry file; FileNotFoundError when the directory, listed once, had none: a cold
        run looks up every file it parses, and each open of an absent name cost as much as a read."""
        if self._files is None:
            try:
                self._files = frozenset(os.listdir(self.summaries))
            except OSError:
                self._files = frozenset()
        name = f"{key}.json"
        if name not in self._files:
            raise FileNotFoundError(name)
        return name

    def put_summary(self, key: str, summary: FileSummary, entry: bytes | None = None) -> None:
        """Keep ``summary`` until ``flush``. ``entry``: ``summary_entry(summary)``, when the process that made the
        summary encoded it already."""
        self.pending[key] = entry if entry is not None else summary_entry(summary)

    def flush(self) -> None:
        """Write the entries kept since the last flush: many as one pack, a few as a file each."""
        pending, self.pending = self.pending, {}
        if len(pending) >= PACK_MIN:
            self._packs.write(pending)
            return
        for key, entry in pending.items():
            atomic_write(self.summaries / f"{key}.json", entry)

    def load_scan(self) -> dict[str, Any]:
        try:
            data = json.loads(read_regular_file(self.directory / SCAN))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_scan(self, data: dict[str, Any]) -> None:
        atomic_write(self.directory / SCAN, json.dumps(data, separators=(",", ":")).encode())
