"""How paths appear in every report: relative to the working directory, with forward slashes."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        relative = path
    return Path(relative).as_posix()
