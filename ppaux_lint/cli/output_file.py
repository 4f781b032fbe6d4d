"""``check --output-file``: the report written to a file instead of standard output.

A regular file is replaced atomically (``fileio.replace_file``), so a CI step that reads it while another run
writes it sees a whole report, old or new. A report is never Python: a path that names a Python source (a
checked file, mistyped for the report's name), or a link to one, is refused rather than overwritten, as is a
directory (click refuses that one first). Nor is it a program: a file it replaces loses its execute bits, and a
config's ``output-file`` never replaces an executable file (a git hook, an ``activate`` script: run later, the
report's text would run as shell code).

What is not a regular file is written into, never replaced: a rename over ``/dev/null``, ``/dev/stdout`` (a link
to the process's own output) or a FIFO made them plain files of the report for the whole machine, and the
report reached no one. On the command line, the user's own choice, a path is followed as a shell's ``>`` follows
it: a device, a FIFO or a socket is written into; a link to a regular file has that file replaced, and stays a
link. A config's ``output-file`` names a file of the checked repository (``project.config`` keeps it inside the
config's directory), which may be a link to anywhere: a link there is replaced, never followed, and anything
else that is not a regular file is refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ppaux_lint.support.command import ExitError
from ppaux_lint.support.fileio import replace_file

SOURCE_SUFFIXES = (".py", ".pyi")


def write_report(path: Path, text: str, follow: bool = True) -> None:
    """Write ``text`` (UTF-8) to ``path``; any failure is one line and exit code 2, as standard output's is.
    ``follow``: the path is the user's (``--output-file``), followed where it leads; False for a config's."""
    setting = "--output-file" if follow else "output-file"
    if path.suffix in SOURCE_SUFFIXES or (follow and Path(os.path.realpath(path)).suffix in SOURCE_SUFFIXES):
        raise ExitError(f"{setting} {str(path)!r}: a Python source file; the report is not written over it")
    data = text.encode("utf-8", "backslashreplace")  # as standard output writes it: a file name that is not UTF-8
    try:
        _write(path, data, follow, setting)
    except OSError as error:
        raise ExitError(f"{setting} {str(path)!r}: cannot write: {error.strerror or error}") from None


def _write(path: Path, data: bytes, follow: bool, setting: str) -> None:
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        found = None
    if found is not None and stat.S_ISLNK(found.st_mode):
        try:
            found = os.stat(path) if follow else None  # a config's link is replaced, never followed
        except FileNotFoundError:
            found = None  # a link to nothing: replaced, as a new report
        if found is None:
            _replace(path, data, None)
            return
        target = _named(path, found)
    else:
        target = path
    if found is None:
        _replace(path, data, None)
    elif stat.S_ISDIR(found.st_mode):
        raise ExitError(f"{setting} {str(path)!r}: a directory, not a file")
    elif stat.S_ISREG(found.st_mode) and target is not None:
        if not follow and found.st_mode & 0o111:
            raise ExitError(f"{setting} {str(path)!r}: an executable file; the report is not written over it")
        _replace(target, data, found)
    elif follow:
        with open(path, "wb") as handle:  # a device, a FIFO, a socket: written into, as a shell's ``>`` writes
            handle.write(data)
    else:
        raise ExitError(f"{setting} {str(path)!r}: not a regular file; the report is not written over it")


def _named(link: Path, target: os.stat_result) -> Path | None:
    """The name of the file a link leads to, replaced while the link stays a link; None where what the link leads
    to has no such name (a ``/proc`` link to a pipe or a deleted file): that is written into."""
    real = Path(os.path.realpath(link))
    try:
        found = os.stat(real)
    except OSError:
        return None
    return real if (found.st_dev, found.st_ino) == (target.st_dev, target.st_ino) else None


def _replace(path: Path, data: bytes, old: os.stat_result | None) -> None:
    """Replace the file (or a config's link) at ``path``, keeping a regular file's mode; a new report is readable
    as any new file is, not only by its owner as the temporary was."""
    replace_file(path, data, like=old)
    if old is not None and old.st_mode & 0o111:
        os.chmod(path, stat.S_IMODE(old.st_mode) & ~0o111)  # a report is never a program: no one may run it
    elif old is None:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(path, 0o666 & ~mask)
