"""The on-disk cache: per-file summaries keyed by content, and the prefilter's scan results keyed by stat.

Layout under the cache directory (``.ppaux_lint_cache`` at the project root):
``<version>/summaries/<key>.json`` and ``<version>/scan.json``. Every write
goes to a temporary file that is then renamed over the target, so a reader
sees the old entry or the new one, never half of one, and two concurrent runs
at worst both write the same content. Any entry that cannot be read back
exactly (corrupt, truncated, foreign, another version) is a miss.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from ppaux_lint import __version__
from ppaux_lint.cache import codec
from ppaux_lint.cache.directory import prepare
from ppaux_lint.facts import summary as summary_module
from ppaux_lint.facts.summary import SUMMARY_FORMAT, FileSummary
from ppaux_lint.support.fileio import atomic_write, read_regular_file

SUMMARY_CODEC = codec.Codec(value for value in vars(summary_module).values()
                            if isinstance(value, type) and dataclasses.is_dataclass(value))
"""Reads back exactly the summary model's records, and nothing else."""


def content_key(data: bytes, path: str, module: str, is_package: bool, config_key: str) -> str:
    digest = hashlib.blake2b(data, digest_size=16)
    digest.update(f"\0{path}\0{module}\0{is_package}\0{config_key}\0{SUMMARY_FORMAT}".encode("utf-8",
                                                                                            "surrogateescape"))
    return digest.hexdigest()


class Cache:
    def __init__(self, directory: Path) -> None:
        self.base = directory
        self.directory = directory / f"{__version__}-{SUMMARY_FORMAT}"
        self._ready = False

    def _prepare(self) -> bool:
        """Create the directory with its .gitignore and CACHEDIR.TAG on first write; False if we cannot."""
        self._ready = self._ready or prepare(self.base, self.directory / "summaries")
        return self._ready

    def get_summary(self, key: str) -> FileSummary | None:
        try:
            raw = read_regular_file(self.directory / "summaries" / f"{key}.json")
            value = SUMMARY_CODEC.decode(json.loads(raw))
        except (OSError, ValueError, RecursionError):
            return None
        return value if isinstance(value, FileSummary) and value.format == SUMMARY_FORMAT else None

    def put_summary(self, key: str, summary: FileSummary) -> None:
        if self._prepare():
            atomic_write(self.directory / "summaries" / f"{key}.json",
                          json.dumps(codec.encode(summary), separators=(",", ":")).encode())

    def load_scan(self) -> dict[str, Any]:
        try:
            data = json.loads(read_regular_file(self.directory / "scan.json"))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_scan(self, data: dict[str, Any]) -> None:
        if self._prepare():
            atomic_write(self.directory / "scan.json", json.dumps(data, separators=(",", ":")).encode())
