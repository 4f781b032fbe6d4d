"""Which files make up the project, which of them were asked about, and their module names.

Resolution always needs the whole project (a base class may live in a file
nobody passed), while findings are reported only for the files asked about.
So discovery yields both sets from one walk.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    import pathspec

from ppaux_lint.cache import read_regular_file
from ppaux_lint.config import Config, compile_globs
from ppaux_lint.errors import UsageError

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".tox", ".nox", ".eggs", "*.egg-info", "build", "dist",
    "__pycache__", "site-packages", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".ppaux_lint_cache", "__pypackages__", "_build", "buck-out",
)
ROOT_MARKERS = ("pyproject.toml", ".git")


@dataclass(frozen=True)
class SourceFile:
    path: str  # absolute; a string, since thousands of Path objects cost more than the rest of a warm run
    module: str  # dotted module name, "" when not importable
    is_package: bool


@dataclass(frozen=True)
class Discovery:
    root: Path
    files: tuple[SourceFile, ...]  # every project file, for resolution
    targets: frozenset[str]  # the files asked about (absolute paths), where findings are reported
    warnings: tuple[str, ...] = ()


def find_root(paths: Sequence[Path], cwd: Path) -> Path:
    """The nearest directory at or above the paths' common ancestor holding pyproject.toml or .git."""
    absolute = [p if p.is_absolute() else cwd / p for p in paths] or [cwd]
    # realpath, not Path.resolve(): a symlink loop among the paths must not raise RuntimeError
    common = Path(os.path.commonpath([os.path.realpath(p) for p in absolute]))
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
    for patterns, where in ((config.exclude, f"{config.path}: 'tool.ppaux-lint.exclude'"),
                            (config.extend_exclude, f"{config.path}: 'tool.ppaux-lint.extend-exclude'"),
                            (tuple(cli_excludes), "--exclude")):
        bad = _invalid_patterns(p for p in patterns if not _is_bare_name(p))
        if bad:
            raise UsageError(f"{where}: invalid pattern {bad[0][0]!r} ({bad[0][1]})")
    excludes = _ExcludeRules(root, base + config.extend_exclude + tuple(cli_excludes))
    warnings: list[str] = excludes.warnings
    walker = _Walker(excludes, warnings)
    project = walker.walk(str(root))
    targets: set[str] = set()
    explicit: list[str] = []
    for given in paths or [cwd]:
        path = given if given.is_absolute() else cwd / given
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{given}: no such file or directory")
        # Resolve the directory, not a symlinked file, so a file keeps the name it was given.
        path = path.resolve() if path.is_dir() else path.parent.resolve() / path.name
        text = str(path)
        if path.is_dir():
            if _is_within(text, str(root)):
                prefix = text.rstrip(os.sep) + os.sep
                targets.update(f for f in project if f.startswith(prefix) or text == str(root))
            else:
                targets.update(walker.walk(text))
        elif path.is_file():
            if force_exclude and excludes.excluded_with_parents(text):
                continue
            targets.add(text)
            explicit.append(text)
        else:
            warnings.append(f"{given}: not a regular file, skipped")
    roots = _source_roots(root)
    # The project's own files first, then files outside it (excluded ones given explicitly, other trees):
    # when two files claim one module name, the first is the module (see _duplicate_modules).
    walked = set(project)
    files = tuple(SourceFile(p, *module_name(p, roots, walker.has_init))
                  for p in [*sorted(walked), *sorted((set(explicit) | targets) - walked)])
    warnings.extend(_duplicate_modules(files))
    return Discovery(root=root, files=files, targets=frozenset(targets), warnings=tuple(warnings))


def _duplicate_modules(files: Sequence[SourceFile]) -> list[str]:
    """Two files that claim one module name (``pkg/a.py`` and ``src/pkg/a.py``): names resolve to the first,
    and the other's classes are not checked, whichever files the prefilter happens to read first."""
    owner: dict[str, str] = {}
    out = []
    for f in files:
        if not f.module:
            continue
        if f.module in owner:
            out.append(f"{f.path}: module {f.module} is already {owner[f.module]}; its classes are not checked")
        else:
            owner[f.module] = f.path
    return out


def importable(module: str) -> bool:
    return bool(module) and all(part.isidentifier() for part in module.split("."))


def _is_within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _source_roots(root: Path) -> tuple[str, ...]:
    """Where top-level packages may start: ``src/`` first (the src layout), then the root itself."""
    src = root / "src"
    return (str(src), str(root)) if src.is_dir() else (str(root),)


def module_name(path: str, roots: Iterable[str], has_init: dict[str, bool] | None = None) -> tuple[str, bool]:
    """The dotted module name of a file and whether it is a package's ``__init__``.

    Under a source root, the module's top is the outermost directory with an
    ``__init__.py`` between the root and the file, so namespace portions in the
    middle (SGLang's ``sglang/srt`` has no ``__init__.py``) keep their place in
    the name; with no ``__init__.py`` at all, the name is the path from the
    root. Outside every source root, the package chain alone decides.
    """
    known = has_init if has_init is not None else {}

    def is_package_dir(directory: str) -> bool:
        if directory not in known:
            known[directory] = os.path.isfile(os.path.join(directory, "__init__.py"))
        return known[directory]

    parent_dir, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else os.path.splitext(filename)[0]
    is_package = filename == "__init__.py"
    source_root = next((r for r in roots if _is_within(parent_dir, r)), None)
    directories = []  # from the file's directory upwards, stopping below the source root
    directory = parent_dir
    while directory != source_root and os.path.dirname(directory) != directory:
        directories.append(directory)
        if source_root is None and not is_package_dir(directory):
            directories.pop()
            break
        directory = os.path.dirname(directory)
    if source_root is not None:
        packages = [d for d in directories if is_package_dir(d)]
        if packages:
            directories = directories[: directories.index(packages[-1]) + 1]
    parts = [os.path.basename(d) for d in reversed(directories)] + ([] if is_package else [stem])
    # A file like ``run-demo.py`` cannot be imported, but its classes still get checked: its name is kept
    # (no import can ever spell it, so it cannot collide), and ``importable`` tells verify not to try.
    return ".".join(parts), is_package


class _ExcludeRules:
    """Configured excludes and .gitignore files (nested ones too), both in gitignore syntax.

    Patterns that are a bare name (``build``, ``.venv``) are by far the most
    common and are checked with a set lookup on the entry's name; only the
    rest go through pathspec, whose per-path cost dominated discovery.
    """

    def __init__(self, root: Path, patterns: Sequence[str]) -> None:
        self.root = str(root)
        names = [p.rstrip("/") for p in patterns if _is_bare_name(p)]
        self.names = frozenset(n for n in names if not any(c in n for c in "*?["))
        self.name_globs = tuple(n for n in names if any(c in n for c in "*?["))
        others = [p for p in patterns if not _is_bare_name(p)]
        self.configured = _spec(others) if others else None
        self.gitignores: list[tuple[str, "pathspec.PathSpec"]] = []
        self.warnings: list[str] = []

    def load_gitignore(self, directory: str) -> None:
        try:  # a FIFO named .gitignore must not block the walk
            lines = read_regular_file(os.path.join(directory, ".gitignore")).decode("utf-8", "replace").splitlines()
        except OSError:
            return
        try:
            spec = _spec(lines)
        except (ValueError, re.error):  # git skips a pattern it cannot parse; so do we, and say so
            bad = _invalid_patterns(lines)
            self.warnings.extend(f"{os.path.join(directory, '.gitignore')}: invalid pattern {line!r} ignored ({why})"
                                 for line, why in bad)
            spec = _spec([line for line in lines if line not in {b for b, _ in bad}])
        if spec.patterns:
            self.gitignores.append((directory, spec))

    def excluded_with_parents(self, path: str) -> bool:
        """For a file given explicitly: the walk never saw its directories, so test them too."""
        directory = os.path.dirname(path)
        while _is_within(directory, self.root) and directory != self.root:
            if self.excluded(directory, is_dir=True):
                return True
            directory = os.path.dirname(directory)
        return self.excluded(path, is_dir=False)

    def excluded(self, path: Path | str, is_dir: bool) -> bool:
        text = str(path)
        name = os.path.basename(text)
        if name in self.names or (self.name_globs and any(fnmatch.fnmatchcase(name, g) for g in self.name_globs)):
            return True
        suffix = "/" if is_dir else ""
        if self.configured is not None:
            relative = os.path.relpath(text, self.root).replace(os.sep, "/") if _is_within(text, self.root) else name
            if self.configured.match_file(relative + suffix):
                return True
        for directory, spec in self.gitignores:
            if text != directory and _is_within(text, directory):
                if spec.match_file(os.path.relpath(text, directory).replace(os.sep, "/") + suffix):
                    return True
        return False


def _spec(lines: Sequence[str]) -> "pathspec.PathSpec":
    return compile_globs(lines)  # pathspec is imported only by trees with a .gitignore or path-shaped excludes


def _invalid_patterns(patterns: Iterable[str]) -> list[tuple[str, str]]:
    """The patterns pathspec rejects, with its reason; one compile for the usual case where all are valid."""
    patterns = list(patterns)
    if not patterns:
        return []
    try:
        _spec(patterns)
        return []
    except ValueError:
        pass
    bad = []
    for pattern in patterns:
        try:
            _spec([pattern])
        except ValueError as exc:
            bad.append((pattern, str(exc)))
    return bad


def _is_bare_name(pattern: str) -> bool:
    """``build`` or ``build/`` or ``*.egg-info``: matches an entry by its name at any depth."""
    core = pattern[:-1] if pattern.endswith("/") else pattern
    return bool(core) and "/" not in core and not core.startswith("!") and "**" not in core


class _Walker:
    """Python files under a directory. Directory symlinks are not followed, so no loop is possible;
    which directories hold ``__init__.py`` is remembered for naming modules without more stats."""

    def __init__(self, excludes: _ExcludeRules, warnings: list[str]) -> None:
        self.excludes = excludes
        self.warnings = warnings
        self.has_init: dict[str, bool] = {}

    def walk(self, top: str) -> list[str]:
        found: list[str] = []
        stack = [top]
        while stack:
            directory = stack.pop()
            try:
                with os.scandir(directory) as scan:
                    entries = sorted(scan, key=lambda e: e.name)
            except OSError as error:
                self.warnings.append(f"{directory}: cannot read directory: {error.strerror}")
                continue
            names = {e.name for e in entries}
            self.has_init[directory] = "__init__.py" in names
            if ".gitignore" in names:
                self.excludes.load_gitignore(directory)
            subdirectories = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if not self.excludes.excluded(entry.path, is_dir=True):
                        subdirectories.append(entry.path)
                elif entry.name.endswith(".py") and not self.excludes.excluded(entry.path, is_dir=False):
                    if entry.is_symlink() and not os.path.isfile(entry.path):
                        self.warnings.append(f"{entry.path}: broken symlink, skipped")
                        continue
                    if not _is_regular(entry):  # a FIFO named x.py would block the read forever
                        self.warnings.append(f"{entry.path}: not a regular file, skipped")
                        continue
                    found.append(entry.path)
            stack.extend(reversed(subdirectories))
        return found


def _is_regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
