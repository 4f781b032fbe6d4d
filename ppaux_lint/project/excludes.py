"""Exclude patterns (one config's, or ``--exclude``) and .gitignore files, all in gitignore syntax.

Patterns that are a bare name (``build``, ``.venv``) are by far the most common and are checked with a set
lookup on the entry's name; only the rest go through pathspec, whose per-path cost dominated discovery, and
which is imported only by trees that need it.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ppaux_lint.project.config import Config
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.fileio import MAX_PATTERN_BYTES, MAX_PATTERNS, read_regular_file

if TYPE_CHECKING:  # matched only by a tree that has such patterns: a replayed run never compiles one
    from ppaux_lint.project.globs import Globs

GITIGNORE = ".gitignore"
OWN_GITIGNORE = b"# Automatically created by ppaux-lint.\n*\n"
"""What ppaux-lint writes into its cache directory, so that git ignores the cache (``cache/directory.py``)."""

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "build", "dist",
    "__pycache__", "site-packages", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".ppaux_lint_cache", "__pypackages__", "_build", "buck-out",
)


class Patterns:
    """Exclude patterns whose path-shaped entries are relative to ``anchor`` (the config's directory)."""

    def __init__(self, anchor: str, patterns: Sequence[str]) -> None:
        self.anchor = anchor
        names = [p.rstrip("/") for p in patterns if _is_bare_name(p)]
        self.names = frozenset(n for n in names if not any(c in n for c in "*?["))
        globs = [n for n in names if any(c in n for c in "*?[")]
        self.name_globs = re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)) if globs else None
        others = [p for p in patterns if not _is_bare_name(p)]
        self.spec = _globs(others) if others else None

    @classmethod
    def of_config(cls, config: Config, anchor: str) -> Patterns:
        """As in ruff: ``exclude`` replaces the defaults, ``extend-exclude`` adds to them."""
        return cls.checked(anchor, (config.exclude or DEFAULT_EXCLUDES) + config.extend_exclude,
                           [(patterns, f"{config.path}: 'tool.ppaux-lint.{key}'") for patterns, key
                            in ((config.exclude, "exclude"), (config.extend_exclude, "extend-exclude"))])

    @classmethod
    def checked(cls, anchor: str, patterns: Sequence[str], sources: Sequence[tuple[Sequence[str], str]]) -> Patterns:
        """``patterns``, compiled once; where one is invalid, the first of ``sources`` (patterns, where they
        came from) that holds it is a UsageError naming it. No source may hold more than ``MAX_PATTERNS``."""
        for source, where in sources:
            if len(source) > MAX_PATTERNS:
                raise UsageError(f"{where}: {len(source)} patterns; at most {MAX_PATTERNS} are read")
        try:
            return cls(anchor, patterns)
        except ValueError:
            for source, where in sources:
                validate(source, where)
            raise

    def match(self, path: str, is_dir: bool, name: str | None = None) -> bool:
        """Whether ``path`` is excluded; ``name``, its last part when the caller has it (a walk's entry)."""
        name = os.path.basename(path) if name is None else name
        if name in self.names or (self.name_globs is not None and self.name_globs.match(name)):
            return True
        if self.spec is None or not is_within(path, self.anchor):
            return False
        return self.spec.match_file(_relative(path, self.anchor) + ("/" if is_dir else ""))


class GitIgnores:
    """Every .gitignore met so far, each applying below its own directory."""

    def __init__(self, warnings: list[str], checked: Sequence[str] = ()) -> None:
        """``checked``: the paths a run walks or asks about, which ppaux-lint's own cache markers never hide."""
        self.specs: list[tuple[str, Globs]] = []
        self.warnings = warnings
        self.checked = checked
        self._loaded: set[str] = set()

    def load(self, directory: str) -> None:
        if directory in self._loaded:
            return
        self._loaded.add(directory)
        path = os.path.join(directory, GITIGNORE)
        try:  # a FIFO named .gitignore must not block the walk
            data = read_regular_file(path, MAX_PATTERN_BYTES, follow=False)
        except OSError as error:
            # git (2.32 on) reads no .gitignore that is a symbolic link: one committed may lead out of the
            # repository, to a file that is not the repository's, whose lines a warning would quote
            if error.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW's answer (EMLINK: FreeBSD's)
                self.warnings.append(f"{path}: a symbolic link, not read (as git reads none)")
            return
        if data == OWN_GITIGNORE and any(is_within(path, directory) for path in self.checked):
            # A cache-dir that named a checked directory ('.') left its markers there before such a setting was
            # refused; they would hide every file the run was asked to check, and say nothing.
            self.warnings.append(f"{path}: written by ppaux-lint for a cache directory "
                                 "that was set to this one; it hides every file here from git, so delete it (and "
                                 "CACHEDIR.TAG beside it). Its files are checked")
            return
        lines = data.decode("utf-8", "replace").splitlines()
        if sum(1 for line in lines if line.strip() and not line.startswith("#")) > MAX_PATTERNS:
            self.warnings.append(f"{path}: more than {MAX_PATTERNS} patterns, not read")
            return
        try:
            spec = _globs(lines)
        except (ValueError, re.error):  # git skips a pattern it cannot parse; so do we, and say so
            bad = invalid_patterns(lines)
            self.warnings.extend(f"{path}: invalid pattern {line!r} ignored ({why})"
                                 for line, why in bad)
            spec = _globs([line for line in lines if line not in {b for b, _ in bad}])
        if spec.patterns:
            self.specs.append((directory, spec))

    def match(self, path: str, is_dir: bool) -> bool:
        if not self.specs:
            return False
        suffix = "/" if is_dir else ""
        return any(path != directory and is_within(path, directory)
                   and spec.match_file(_relative(path, directory) + suffix) for directory, spec in self.specs)


def validate(patterns: Sequence[str], where: str) -> None:
    """A pattern pathspec cannot compile is the user's to fix: an error naming it and where it came from."""
    bad = invalid_patterns(p for p in patterns if not _is_bare_name(p))
    if bad:
        raise UsageError(f"{where}: invalid pattern {bad[0][0]!r} ({bad[0][1]})")


def _globs(patterns: Sequence[str]) -> Globs:
    from ppaux_lint.project.globs import Globs

    return Globs(patterns)


def is_within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _relative(path: str, directory: str) -> str:
    return os.path.relpath(path, directory).replace(os.sep, "/")


def invalid_patterns(patterns: Iterable[str]) -> list[tuple[str, str]]:
    """The patterns pathspec rejects, with its reason; one compile for the usual case where all are valid."""
    patterns = list(patterns)
    if not patterns:
        return []
    try:
        _globs(patterns)
        return []
    except ValueError:
        pass
    bad = []
    for pattern in patterns:
        try:
            _globs([pattern])
        except ValueError as exc:
            bad.append((pattern, str(exc)))
    return bad


def _is_bare_name(pattern: str) -> bool:
    """``build`` or ``build/`` or ``*.egg-info``: matches an entry by its name at any depth."""
    core = pattern[:-1] if pattern.endswith("/") else pattern
    return bool(core) and "/" not in core and not core.startswith("!") and "**" not in core
