"""Where the project's cache lives, and how that directory says what it is.

The summaries and the scan index (``summaries.py``) and the replay records (``replay.py``) share one
directory, which the cache's owner (``owner.py``) makes on its first write, marked so that git ignores it and
backup tools may skip it. Light to import: a replayed run reads its record before anything of the analysis
is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ppaux_lint.support.fileio import atomic_write

if TYPE_CHECKING:
    from ppaux_lint.project.loading import Project

CACHE_DIR_NAME = ".ppaux_lint_cache"
_MARKERS = {
    ".gitignore": "# Automatically created by ppaux-lint.\n*\n",
    "CACHEDIR.TAG": ("Signature: 8a477f597d28d172789f06886806bc55\n"
                     "# This file is a cache directory tag created by ppaux-lint.\n"),
}


def cache_directory(project: Project, cache_dir: Path | None = None) -> Path:
    """``--cache-dir``, else the config's ``cache-dir``, else ``.ppaux_lint_cache``; relative to the project
    root."""
    directory = cache_dir or (Path(project.config.cache_dir) if project.config.cache_dir else Path(CACHE_DIR_NAME))
    return directory if directory.is_absolute() else project.root / directory


def prepare(base: Path, inner: Path) -> bool:
    """Create ``inner`` (a directory within the cache ``base``) and ``base``'s markers; False if we cannot."""
    try:
        inner.mkdir(parents=True, exist_ok=True)
        for name, text in _MARKERS.items():
            marker = base / name
            if not marker.exists():
                atomic_write(marker, text.encode())
    except (OSError, ValueError):  # ValueError: a path the OS cannot take (a NUL in cache-dir)
        return False
    return True
