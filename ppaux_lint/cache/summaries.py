"""The entries of this version of ppaux-lint in the cache: per-file summaries keyed by content, and the
prefilter's scan index.

Layout under the cache directory (``.ppaux_lint_cache`` at the project root):
``<version>/summaries/<key>.json`` and ``<version>/scan.json``. Every write
goes to a temporary file that is then renamed over the target, so a reader
sees the old entry or the new one, never half of one, and two concurrent runs
at worst both write the same content. Any entry that cannot be read back
exactly (corrupt, truncated, foreign, another version) is a miss.

An internal of the cache's owner (``owner.py``), which makes the directory before the first write.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ppaux_lint import __version__
from ppaux_lint.cache import codec
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
    is ``config_key``. Writing needs ``summaries`` (and so its parent, which holds ``scan.json``) to exist:
    the cache's owner makes it on the first write."""

    def __init__(self, base: Path, config_key: str) -> None:
        self.directory = base / f"{__version__}-{SUMMARY_FORMAT}"
        self.summaries = self.directory / SUMMARIES
        self._config_key = config_key

    def key(self, source: SourceFile, data: bytes, target: int) -> str:
        """What the summary of ``source`` with these bytes, parsed for Python 3.``target``, is kept under."""
        return content_key(data, source.path, source.module, source.is_package, self._config_key, target)

    def get_summary(self, key: str, source: SourceFile) -> FileSummary | None:
        """The summary stored under ``key`` for ``source``; one that names another file (a copied cache) is a
        miss."""
        try:
            raw = read_regular_file(self.summaries / f"{key}.json")
            value = summary_codec().decode(json.loads(raw))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(value, FileSummary) or value.format != SUMMARY_FORMAT:
            return None
        return value if (value.path, value.module, value.is_package) == (
            source.path, source.module, source.is_package) else None

    def put_summary(self, key: str, summary: FileSummary, entry: bytes | None = None) -> None:
        """``entry``: ``summary_entry(summary)``, when the process that made the summary encoded it already."""
        atomic_write(self.summaries / f"{key}.json", entry if entry is not None else summary_entry(summary))

    def load_scan(self) -> dict[str, Any]:
        try:
            data = json.loads(read_regular_file(self.directory / SCAN))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_scan(self, data: dict[str, Any]) -> None:
        atomic_write(self.directory / SCAN, json.dumps(data, separators=(",", ":")).encode())
