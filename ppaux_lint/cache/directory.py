"""Where the project's cache lives, which directory may be it, and how that directory says it is ppaux-lint's.

The summaries and the scan index (``summaries.py``) and the replay records (``replay.py``) share one
directory, which the cache's owner (``owner.py``) makes on its first write, marked so that git ignores it
(a ``.gitignore`` of ``*``) and backup tools may skip it (a ``CACHEDIR.TAG``). Those markers hide everything
beside them, so the directory must hold nothing of the user's: one that is, or contains, the project root, a
directory walked or a file asked about is refused, and so is an existing directory that holds anything but
ppaux-lint's files. ppaux-lint keeps its cache only in a directory that does not exist yet, an empty one, or
one that carries its tag: the ``CACHEDIR.TAG`` whose text names ppaux-lint, which it writes before anything
else into a directory it makes (another tool's tag, pytest's or ruff's, does not make a directory
ppaux-lint's). A repository chooses no cache directory outside itself (its config's ``cache-dir``, or a link
committed at ``.ppaux_lint_cache``): only the user's ``--cache-dir`` or ``--config`` may. A setting that names
something that is not a directory (a file, ``/dev/null``) is refused too; at the default place, such a thing only
makes the run a slow one. A refused setting is a usage error naming it (exit 2), not a run without a cache: a
run that silently stopped caching would only be slow, but one that had written its markers among the user's files would
have hidden them from git and from the next run's discovery. A directory that cannot be made or written is
still only a slow run. ``clean`` (``clean.py``) removes only a directory that carries the tag.

Light to import: a replayed run reads its record before anything of the analysis is loaded.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ppaux_lint.project.excludes import GITIGNORE, OWN_GITIGNORE, is_within
from ppaux_lint.project.repository import VERSION_CONTROL, repository
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.fileio import atomic_write, is_temporary

if TYPE_CHECKING:
    from ppaux_lint.project.loading import Options, Project

CACHE_DIR_NAME = ".ppaux_lint_cache"
TAG = "CACHEDIR.TAG"
# name -> text, the tag first: a directory of ppaux-lint's never holds one of its files before the tag.
MARKERS = {
    TAG: (b"Signature: 8a477f597d28d172789f06886806bc55\n"
          b"# This file is a cache directory tag created by ppaux-lint.\n"),
    GITIGNORE: OWN_GITIGNORE,
}
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def cache_directory(project: Project, cache_dir: Path | None = None) -> Path:
    """``--cache-dir``, else the config's ``cache-dir``, else ``.ppaux_lint_cache``; relative to the project
    root."""
    directory = cache_dir or (Path(project.config.cache_dir) if project.config.cache_dir else Path(CACHE_DIR_NAME))
    return directory if directory.is_absolute() else project.root / directory


def setting(project: Project, cache_dir: Path | None = None) -> str:
    """How messages name where the cache directory came from: the flag, the config's key, or the default."""
    if cache_dir is not None:
        return f"--cache-dir {str(cache_dir)!r}"
    if project.config.cache_dir:
        return f"{project.config.where}: 'tool.ppaux-lint.cache-dir' = {project.config.cache_dir!r}"
    return "the cache directory"


def refuse_shared(directory: Path, project: Project, options: Options) -> None:
    """Raise a UsageError naming the setting when ``directory`` may not be ppaux-lint's cache (see the module's
    docstring): it is or contains what the run checks, or it holds files that are not ppaux-lint's."""
    try:
        why = (outside_the_repository(directory, project, options)
               or contains_checked(directory, (project.root, *project.tops, *options.overlays))
               or (_not_a_directory(directory) if options.cache_dir is not None or project.config.cache_dir else None)
               or _not_ours(directory))
    except ValueError:  # a path the OS cannot take (a NUL in cache-dir): refused, as any name that cannot be one
        why = f"{str(directory)!r} cannot name a directory"
    if why is not None:
        raise UsageError(f"{setting(project, options.cache_dir)}: {why}; the cache needs a directory of its own")


def outside_the_repository(directory: Path, project: Project, options: Options) -> str | None:
    """Why a cache directory the checked repository chose (its config's ``cache-dir``, or a committed link at
    ``.ppaux_lint_cache``) may not be used: once every link is followed, it lies outside the repository (the
    version-controlled tree the project is in: a monorepo's shared cache at its root is inside it; the project
    root where there is none), where the files it would make are the user's to choose (``--cache-dir``, or a
    ``--config`` file of the user's). Inside version control's own directory (``.git``) no cache goes, whoever
    chose it: its markers and entries there break the repository (``git gc`` refuses them)."""
    real = os.path.realpath(directory)
    metadata = next((part for part in Path(real).parts if part in VERSION_CONTROL), None)
    if metadata is not None:  # whoever chose it: the cache's files there would corrupt the repository
        return f"{real} lies inside version control's own directory ({metadata})"
    if options.cache_dir is not None or project.override:
        return None
    root = repository(os.path.realpath(project.root))
    if is_within(real, root):
        return None
    return (f"{real} lies outside the project {root}, and a repository's own setting (or a link it holds) does not "
            "choose where ppaux-lint writes outside it; pass --cache-dir to put the cache there")


def _not_a_directory(directory: Path) -> str | None:
    """Why ``directory`` cannot be a cache: something that is not a directory is there (a file, ``/dev/null``)."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        return f"{directory} is not a directory"
    return None


def contains_checked(directory: Path, checked: Iterable[str | Path]) -> str | None:
    """Why ``directory`` (symlinks resolved) may not be a cache: it is or contains the first of ``checked`` (the
    project root first) that lies within it; None when none does."""
    real = os.path.realpath(directory)
    for number, path in enumerate(map(os.path.realpath, checked)):
        if is_within(path, real):
            what = "the project root" if number == 0 else "a checked path"
            return f"{real} {'is' if path == real else 'contains'} {what} {path}"
    return None


def _not_ours(directory: Path) -> str | None:
    """Why ``directory`` (followed, if a link) is not a cache ppaux-lint may use: it exists, carries no tag of
    ppaux-lint's, and holds something other than the temporary files of a run making it at this moment; None
    otherwise, and when it cannot be listed (absent, not a directory, unreadable: the first write makes it, or
    fails and the run is a slow one)."""
    listing = _listing(directory)
    if listing is None or listing[1]:
        return None
    theirs = [name for name in listing[0] if not is_temporary(name)]
    return f"{directory} holds files that are not ppaux-lint's ({first_few(theirs)})" if theirs else None


def first_few(names: Iterable[str], shown: int = 5) -> str:
    """``names`` sorted, for a one-line message: the first ``shown`` of them, and how many more."""
    names = sorted(names)
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _listing(directory: Path) -> tuple[list[str], bool] | None:
    """The names in ``directory`` and whether it carries ppaux-lint's tag; None when it cannot be listed."""
    try:
        fd = os.open(directory, _DIRECTORY)
    except OSError:
        return None
    try:
        return os.listdir(fd), tagged(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def tagged(fd: int) -> bool:
    """Whether the directory open on ``fd`` carries ppaux-lint's tag."""
    return marked(fd, TAG)


def marked(fd: int, name: str) -> bool:
    """Whether the marker ``name`` in the directory open on ``fd`` is as ppaux-lint writes it: a regular file
    (not a link to one) holding exactly its text."""
    try:
        marker = os.open(name, os.O_RDONLY | _NO_FOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=fd)
    except OSError:
        return False
    with open(marker, "rb") as handle:
        return stat.S_ISREG(os.fstat(marker).st_mode) and handle.read(len(MARKERS[name]) + 1) == MARKERS[name]


def prepare(base: Path, inner: Path) -> bool:
    """Create ``inner`` (a directory within the cache ``base``) after ``base`` and its markers, the tag first;
    False if we cannot, if ``base`` has come to hold files that are not ppaux-lint's since the run began (no
    marker is ever written among them), or if a step from ``base`` to ``inner`` is not a directory of its own:
    ppaux-lint makes each, so a symbolic link there was planted (a cache committed to a repository), and
    writing through it would put the cache's files wherever it points."""
    try:
        base.mkdir(parents=True, exist_ok=True)
        if _not_ours(base) is not None:
            return False
        for name, text in MARKERS.items():
            if not (base / name).exists():
                atomic_write(base / name, text)
        listing = _listing(base)
        if listing is None or not listing[1]:  # a directory that cannot be written: the tag never arrived
            return False
        return _make_plain(base, inner)
    except (OSError, ValueError):  # ValueError: a path the OS cannot take (a NUL in cache-dir)
        return False


def _make_plain(base: Path, inner: Path) -> bool:
    """Make each directory from ``base`` (excluded) down to ``inner``, one step at a time, and say whether each
    is a directory, not a link to one: nothing is made below a step that is not."""
    step = base
    for part in inner.relative_to(base).parts:
        step = step / part
        with contextlib.suppress(FileExistsError):
            os.mkdir(step)
        if not stat.S_ISDIR(os.lstat(step).st_mode):
            return False
    return True
