"""Which files make up the project, which of them were asked about, and their module names.

Resolution always needs the whole project (a base class may live in a file
nobody passed), while findings are reported only for the files asked about.
So discovery yields both sets from one walk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import pathspec

from ppaux_lint.config import Config

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "build", "dist",
    "__pycache__", "site-packages", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".ppaux_lint_cache", "__pypackages__", "_build", "buck-out",
)
ROOT_MARKERS = ("pyproject.toml", ".git")


class UsageError(Exception):
    """A problem with what the user asked for (a missing path); exit code 2."""


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    module: str  # dotted module name, "" when not importable
    is_package: bool


@dataclass(frozen=True)
class Discovery:
    root: Path
    files: tuple[SourceFile, ...]  # every project file, for resolution
    targets: frozenset[Path]  # the files asked about, where findings are reported
    warnings: tuple[str, ...] = ()


def find_root(paths: Sequence[Path], cwd: Path) -> Path:
    """The nearest directory at or above the paths' common ancestor holding pyproject.toml or .git."""
    absolute = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    common = Path(os.path.commonpath([str(p.resolve()) for p in absolute]))
    start = common if common.is_dir() else common.parent
    for directory in (start, *start.parents):
        if any((directory / marker).exists() for marker in ROOT_MARKERS):
            return directory
    return cwd.resolve()


def discover(paths: Sequence[Path], root: Path, config: Config, cli_excludes: Sequence[str] = (),
             force_exclude: bool = False) -> Discovery:
    cwd = Path.cwd()
    # As in ruff: ``exclude`` replaces the defaults, ``extend-exclude`` and ``--exclude`` add to them.
    base = config.exclude or DEFAULT_EXCLUDES
    excludes = _ExcludeRules(root, base + config.extend_exclude + tuple(cli_excludes))
    warnings: list[str] = []
    project = _walk(root, excludes, warnings)
    targets: set[Path] = set()
    explicit: list[Path] = []
    for given in paths or [cwd]:
        path = given if given.is_absolute() else cwd / given
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{given}: no such file or directory")
        # Resolve the directory, not a symlinked file, so a file keeps the name it was given.
        path = path.resolve() if path.is_dir() else path.parent.resolve() / path.name
        if path.is_dir():
            inside = [f for f in project if _is_within(f, path)]
            if not _is_within(path, root):
                inside = _walk(path, excludes, warnings)
            targets.update(inside)
        elif path.is_file():
            if force_exclude and excludes.excluded(path, is_dir=False):
                continue
            targets.add(path)
            explicit.append(path)
    all_files = sorted(set(project) | set(explicit) | targets)
    roots = _source_roots(root)
    files = tuple(SourceFile(p, *module_name(p, roots)) for p in all_files)
    return Discovery(root=root, files=files, targets=frozenset(targets), warnings=tuple(warnings))


def _is_within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _source_roots(root: Path) -> tuple[Path, ...]:
    """Where top-level packages may start: ``src/`` first (the src layout), then the root itself."""
    src = root / "src"
    return (src, root) if src.is_dir() else (root,)


def module_name(path: Path, roots: Iterable[Path]) -> tuple[str, bool]:
    """The dotted module name of a file and whether it is a package's ``__init__``.

    The package chain (directories with ``__init__.py``) decides where the
    module's top is; a file outside any package is named from the nearest
    source root, which covers namespace packages.
    """
    is_package = path.name == "__init__.py"
    parts = [] if is_package else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory != directory.parent:
        parts.insert(0, directory.name)
        directory = directory.parent
    if not parts or directory == path.parent:
        for source_root in roots:
            if _is_within(path.parent, source_root):
                relative = path.parent.relative_to(source_root).parts
                parts = [*relative, *([] if is_package else [path.stem])]
                break
    if not parts or not all(p.isidentifier() for p in parts):
        return "", is_package
    return ".".join(parts), is_package


class _ExcludeRules:
    """Gitignore files (nested ones too) plus configured excludes, both in gitignore syntax."""

    def __init__(self, root: Path, patterns: Sequence[str]) -> None:
        self.root = root
        self.configured = pathspec.PathSpec.from_lines("gitwildmatch", patterns)
        self.gitignores: dict[Path, pathspec.PathSpec] = {}

    def load_gitignore(self, directory: Path) -> None:
        ignore_file = directory / ".gitignore"
        try:
            lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        self.gitignores[directory] = pathspec.PathSpec.from_lines("gitwildmatch", lines)

    def excluded(self, path: Path, is_dir: bool) -> bool:
        suffix = "/" if is_dir else ""
        try:
            relative = path.relative_to(self.root).as_posix()
        except ValueError:
            relative = path.name
        if self.configured.match_file(relative + suffix) or self.configured.match_file(path.name + suffix):
            return True
        for directory, spec in self.gitignores.items():
            if _is_within(path, directory) and path != directory:
                if spec.match_file(path.relative_to(directory).as_posix() + suffix):
                    return True
        return False


def _walk(top: Path, excludes: _ExcludeRules, warnings: list[str]) -> list[Path]:
    """Python files under ``top``; directory symlinks are not followed, so no loop is possible."""
    found: list[Path] = []

    def on_error(error: OSError) -> None:
        warnings.append(f"{error.filename}: cannot read directory: {error.strerror}")

    for dirpath, dirnames, filenames in os.walk(top, onerror=on_error, followlinks=False):
        directory = Path(dirpath)
        if ".gitignore" in filenames:
            excludes.load_gitignore(directory)
        dirnames[:] = sorted(d for d in dirnames if not excludes.excluded(directory / d, is_dir=True))
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = directory / name
            if excludes.excluded(path, is_dir=False):
                continue
            if path.is_symlink():
                target = path.resolve()
                if not target.is_file():
                    warnings.append(f"{path}: broken symlink, skipped")
                    continue
            found.append(path)
    return found
