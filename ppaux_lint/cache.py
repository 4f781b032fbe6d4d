"""The on-disk cache: per-file summaries keyed by content, and the prefilter's scan results keyed by stat.

Layout under the cache directory (``.ppaux_lint_cache`` at the project root):
``<version>/summaries/<key>.json`` and ``<version>/scan.json``. Every write
goes to a temporary file that is then renamed over the target, so a reader
sees the old entry or the new one, never half of one, and two concurrent runs
at worst both write the same content. Any entry that cannot be read back
exactly (corrupt, truncated, foreign, another version) is a miss.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from ppaux_lint import __version__, codec
from ppaux_lint.summary import SUMMARY_FORMAT, FileSummary

CACHE_DIR_NAME = ".ppaux_lint_cache"
_GITIGNORE = "# Automatically created by ppaux-lint.\n*\n"
_CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                 "# This file is a cache directory tag created by ppaux-lint.\n")


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
        if self._ready:
            return True
        try:
            (self.directory / "summaries").mkdir(parents=True, exist_ok=True)
            for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
                marker = self.base / name
                if not marker.exists():
                    _atomic_write(marker, text.encode())
        except (OSError, ValueError):  # ValueError: a path the OS cannot take (a NUL in cache-dir)
            return False
        self._ready = True
        return True

    def get_summary(self, key: str) -> FileSummary | None:
        try:
            raw = read_regular_file(self.directory / "summaries" / f"{key}.json")
            value = codec.decode(json.loads(raw))
        except (OSError, ValueError, RecursionError):
            return None
        return value if isinstance(value, FileSummary) and value.format == SUMMARY_FORMAT else None

    def put_summary(self, key: str, summary: FileSummary) -> None:
        if self._prepare():
            _atomic_write(self.directory / "summaries" / f"{key}.json",
                          json.dumps(codec.encode(summary), separators=(",", ":")).encode())

    def load_scan(self) -> dict[str, Any]:
        try:
            data = json.loads(read_regular_file(self.directory / "scan.json"))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_scan(self, data: dict[str, Any]) -> None:
        if self._prepare():
            _atomic_write(self.directory / "scan.json", json.dumps(data, separators=(",", ":")).encode())


def read_regular_file(path: str | Path) -> bytes:
    """A regular file's bytes. Anything else (a FIFO, a device) is an OSError rather than a read that may
    never end; O_NONBLOCK keeps even the open from waiting for a FIFO's writer."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return handle.read()


def _atomic_write(path: Path, data: bytes) -> None:
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError:
        return  # a read-only cache is a slow cache, not an error
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
