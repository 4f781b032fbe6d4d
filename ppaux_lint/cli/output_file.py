"""``check --output-file``: the report written to a file instead of standard output.

The file is replaced atomically (``fileio.replace_file``), so a CI step that reads it while another run writes
it sees a whole report, old or new. A report is never Python: a path that names a Python source (a checked
file, mistyped for the report's name) is refused rather than overwritten, as is a directory (click refuses
that one first).
"""

from __future__ import annotations

import os
from pathlib import Path

from ppaux_lint.support.command import ExitError
from ppaux_lint.support.fileio import replace_file

SOURCE_SUFFIXES = (".py", ".pyi")


def write_report(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``; any failure is one line and exit code 2, as standard output's is."""
    if path.suffix in SOURCE_SUFFIXES:
        raise ExitError(f"--output-file {str(path)!r}: a Python source file; the report is not written over it")
    if path.is_dir():
        raise ExitError(f"--output-file {str(path)!r}: a directory, not a file")
    try:
        old = _stat(path)
        replace_file(path, text.encode("utf-8"), like=old)
        if old is None:  # a new report is readable as any new file is, not only by its owner as the temporary was
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(path, 0o666 & ~mask)
    except OSError as error:
        raise ExitError(f"--output-file {str(path)!r}: cannot write: {error.strerror or error}") from None


def _stat(path: Path):
    """The replaced report's stat, whose mode the new one keeps; None for a new file."""
    try:
        return path.stat()
    except OSError:
        return None
