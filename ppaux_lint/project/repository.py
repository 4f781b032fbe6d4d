"""The version-controlled tree a project is in: what a repository's own settings and links may reach.

A checked repository is nobody's to trust, so what it chooses (a config's ``cache-dir``, a committed link) may
lead ppaux-lint's writes only within the repository itself: the cache's owner (``cache/directory.py``), ``clean``
and ``--fix`` ask here where that ends.
"""

from __future__ import annotations

import os

from ppaux_lint.project.excludes import is_within

VERSION_CONTROL = (".git", ".hg", ".svn", ".jj")  # the directories that mark a repository's top


def repository(root: str) -> str:
    """The top of the version-controlled tree ``root`` is in (the nearest directory above it, or itself, that holds
    ``.git`` or another tool's), else ``root``; ``root`` too where that top is the home directory (a repository of
    dotfiles holds everything of the user's)."""
    top = _marked(root)
    return root if top is None or (top == _home() and top != root) else top


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
        top = _marked(os.path.realpath(os.path.dirname(here)))
        if top is not None and top != _home() and not is_within(real, top):
            return True
    return False


def _marked(directory: str) -> str | None:
    """The nearest directory, ``directory`` itself or above, that holds a version-control marker; None where none
    does."""
    here = directory
    while True:
        if any(os.path.lexists(os.path.join(here, marker)) for marker in VERSION_CONTROL):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _home() -> str:
    return os.path.realpath(os.path.expanduser("~"))
