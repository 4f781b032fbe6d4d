"""The version-controlled tree a project is in: what a repository's own settings and links may reach.

A checked repository is nobody's to trust, so what it chooses (a config's ``cache-dir``, a committed link) may
lead ppaux-lint's writes only within the repository itself: the cache's owner (``cache/directory.py``), ``clean``
and ``--fix`` ask here where that ends.
"""

from __future__ import annotations

import os

VERSION_CONTROL = (".git", ".hg", ".svn", ".jj")  # the directories that mark a repository's top


def repository(root: str) -> str:
    """The top of the version-controlled tree ``root`` is in (the nearest directory above it, or itself, that holds
    ``.git`` or another tool's), else ``root``; ``root`` too where that top is the home directory (a repository of
    dotfiles holds everything of the user's)."""
    home = os.path.realpath(os.path.expanduser("~"))
    here = root
    while True:
        if any(os.path.lexists(os.path.join(here, marker)) for marker in VERSION_CONTROL):
            return root if here == home and here != root else here
        parent = os.path.dirname(here)
        if parent == here:
            return root
        here = parent


def linked_out(path: str) -> bool:
    """Whether the absolute ``path`` passes through a link, committed in a repository, that leads out of that
    repository: ``vendor -> /elsewhere`` and ``vendor/x.py`` given. A link within the repository (``current ->
    v2``) does not count, nor does one outside every repository (a user's ``~/src -> /data/src``: the user's own),
    nor one in a home directory that is a repository of dotfiles."""
    parts = path.split(os.sep)
    real = os.path.realpath(path)
    for cut in range(2, len(parts)):
        here = os.sep.join(parts[:cut])
        if not os.path.islink(here):
            continue
        top = _holding(os.path.realpath(os.path.dirname(here)))
        if top is not None and not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
            return True
    return False


def _holding(directory: str) -> str | None:
    """The repository ``directory`` is in (the nearest directory, itself or above, with a version-control
    marker), None where there is none or it is the home directory."""
    home = os.path.realpath(os.path.expanduser("~"))
    here = directory
    while True:
        if any(os.path.lexists(os.path.join(here, marker)) for marker in VERSION_CONTROL):
            return None if here == home else here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
