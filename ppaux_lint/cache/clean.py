"""``clean``: remove what ppaux-lint wrote into a project's cache directory, and nothing else.

The directory must be one ppaux-lint made: it carries ppaux-lint's tag (``directory.py``), it is reached
without a symbolic link at its last step, and it neither is nor contains the project. Anything else is
refused whole, before anything is removed. Within it, only the names the cache's modules write are removed
(``replay.py``'s records, ``summaries.py``'s entries, ``packs.py``'s packs and the scan index under any
version's directory, and the temporary files a killed write leaves, ``fileio.is_temporary``), each only when
it is a regular file, and ppaux-lint's directories only once they are empty. Every step is opened relative to
the one above it without following a link, so a link planted in the cache, or one swapped in while ``clean``
runs, never leads it elsewhere. What is kept is said: a file that is not ppaux-lint's, and one of ppaux-lint's
that could not be removed. The markers go last, and only when every file of ppaux-lint's went: a partly denied
or interrupted ``clean`` leaves a directory that is still ppaux-lint's, and running it again finishes the work.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import NamedTuple

from ppaux_lint.cache.directory import (
    MARKERS,
    TAG,
    cache_directory,
    contains_checked,
    first_few,
    marked,
    outside_the_repository,
    setting,
    tagged,
)
from ppaux_lint.cache.packs import PACK, PACKS
from ppaux_lint.cache.replay import RECORD, RUNS
from ppaux_lint.cache.summaries import ENTRY, SCAN, SUMMARIES, VERSIONED
from ppaux_lint.project.loading import Options, Project
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.fileio import is_temporary
from ppaux_lint.support.records import dataclass

_OPEN_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NOT_EMPTY = (errno.ENOTEMPTY, errno.EEXIST)  # rmdir of a directory something kept is left in


class _Layout(NamedTuple):
    """The names ppaux-lint writes in one directory of its cache: its files, and its directories' layouts."""

    files: tuple[str | re.Pattern[str], ...] = ()
    directories: Mapping[str | re.Pattern[str], _Layout] = {}


_LAYOUT = _Layout(directories={RUNS: _Layout(files=(RECORD,)),
                               VERSIONED: _Layout(files=(SCAN,), directories={SUMMARIES: _Layout(files=(ENTRY,)),
                                                                              PACKS: _Layout(files=(PACK,))})})


@dataclass
class Cleaned:
    """What ``clean`` did: how many files it removed, what it kept and why, and whether the directory went."""

    directory: Path
    removed: int = 0
    kept: list[str] = field(default_factory=list)
    gone: bool = False

    def keep(self, relative: str, why: str) -> None:
        self.kept.append(f"{relative} ({why})")

    def summary(self) -> str:
        """One line for a directory that stayed: what was removed, and the first few of what was kept."""
        return (f"removed {self.removed} of ppaux-lint's files from {self.directory}, but not the directory: "
                f"kept {first_few(self.kept)}")


def clean(project: Project, cache_dir: Path | None = None) -> Cleaned | None:
    """Remove ppaux-lint's files from the cache of ``project`` (``--cache-dir``: ``cache_dir``), and the
    directory once empty; None when there is no cache. A directory that is not ppaux-lint's to remove is a
    UsageError naming the setting, with nothing removed."""
    directory = cache_directory(project, cache_dir)
    if not os.path.lexists(directory):
        return None
    named = setting(project, cache_dir)
    why = contains_checked(directory, (project.root, *project.tops))
    if why is None and os.path.islink(directory):
        why = f"{directory} is a symbolic link to {os.readlink(directory)}, and clean follows none (name the directory)"
    why = why or outside_the_repository(directory, project, Options(cache_dir=cache_dir))  # as ``check`` refuses it
    if why is not None:
        raise UsageError(f"{named}: {why}; nothing removed")
    try:
        fd = os.open(directory, _OPEN_DIRECTORY)
    except OSError as error:
        raise UsageError(f"{named}: cannot open {directory}: {error.strerror}; nothing removed") from None
    cleaned = Cleaned(directory)
    try:
        if not tagged(fd):
            raise UsageError(f"{named}: {directory} is not a cache ppaux-lint made (it has no {TAG} of ppaux-lint's); "
                             "nothing removed")
        if _remove(fd, _LAYOUT, "", cleaned):
            for name in reversed(MARKERS):  # the tag last
                _remove_marker(fd, name, cleaned)
    except OSError as error:  # the directory itself cannot be listed
        cleaned.keep(str(directory), error.strerror)
    finally:
        os.close(fd)
    try:
        os.rmdir(directory)
        cleaned.gone = True
    except OSError as error:
        if error.errno not in _NOT_EMPTY:  # else what stays is listed already
            cleaned.keep(str(directory), error.strerror)
    return cleaned


def _remove(fd: int, layout: _Layout, prefix: str, cleaned: Cleaned) -> bool:
    """Remove what ``layout`` names in the directory open on ``fd`` (``prefix``: its name within the cache),
    keeping the rest; whether every file of ppaux-lint's there went."""
    complete = True
    with os.scandir(fd) as entries:
        for entry in entries:
            name, relative = entry.name, prefix + entry.name
            if not prefix and name in MARKERS:
                continue  # the caller's, last
            below = next((inner for pattern, inner in layout.directories.items() if _is(name, pattern)), None)
            try:
                if (is_temporary(name) or any(_is(name, pattern) for pattern in layout.files)) and entry.is_file(
                        follow_symlinks=False):
                    os.unlink(name, dir_fd=fd)
                    cleaned.removed += 1
                elif below is not None and entry.is_dir(follow_symlinks=False):
                    inner = os.open(name, _OPEN_DIRECTORY, dir_fd=fd)
                    try:
                        complete &= _remove(inner, below, relative + "/", cleaned)
                    finally:
                        os.close(inner)
                    _remove_empty(fd, name)
                else:
                    cleaned.keep(relative, "not ppaux-lint's")
            except OSError as error:
                cleaned.keep(relative, error.strerror)
                complete = False
    return complete


def _is(name: str, pattern: str | re.Pattern[str]) -> bool:
    return name == pattern if isinstance(pattern, str) else pattern.fullmatch(name) is not None


def _remove_empty(fd: int, name: str) -> None:
    """Remove the directory ``name`` (in the one open on ``fd``) unless something kept is left in it."""
    try:
        os.rmdir(name, dir_fd=fd)
    except OSError as error:
        if error.errno not in _NOT_EMPTY:
            raise


def _remove_marker(fd: int, name: str, cleaned: Cleaned) -> None:
    """Remove the marker ``name`` when it is as ppaux-lint writes it (a ``.gitignore`` edited since is the
    user's, and kept)."""
    try:
        if marked(fd, name):
            os.unlink(name, dir_fd=fd)
            cleaned.removed += 1
        else:
            os.stat(name, dir_fd=fd, follow_symlinks=False)  # there, but not as ppaux-lint wrote it
            cleaned.keep(name, "not ppaux-lint's")
    except FileNotFoundError:
        return
    except OSError as error:
        cleaned.keep(name, error.strerror)
