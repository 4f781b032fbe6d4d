"""Where a project starts, where its top-level modules start, and so what each file's module is called.

Names are the whole game for a linter that resolves bases across files: a file named ``steer.base``
instead of ``acme.steer.base`` breaks every ``from acme.steer.base import ...``, and the findings on the
classes built on it vanish without a word. So these answers must not depend on how the tool is called.

- **The project root** bounds the files read for resolution. It is the nearest directory at or above a
  path that holds ``pyproject.toml`` or ``.git``. A ``.git`` ends the search (a repository is the outermost
  project). A ``pyproject.toml`` that makes a project (``[project]``, ``[build-system]``, packaging config,
  or a ``[tool.ppaux-lint]`` table) bounds it, as ruff's nearest config does and as a plugin's author
  expects: a plugin inside a bigger repository is not analysed with the whole repository. It is held by a
  directory above, within the same repository, only when that directory's ``pyproject.toml`` says so: a
  workspace (``[tool.uv.workspace]``, ``[tool.rye.workspace]``) whose ``members`` globs match it and whose
  ``exclude`` does not, ``src`` entries of its ``[tool.ppaux-lint]`` table at or below it (or above it), or,
  when the project has no ``[tool.ppaux-lint]`` table of its own, any such table: that table is then the
  project's config (scopes.py, ruff's nearest config), so its directory is the project. Then the claim is
  asked again of the holder. So a workspace member's file resolves against the whole
  workspace, however it is passed. A ``pyproject.toml`` with another tool's settings alone makes no project,
  so the next marker above holds it. Either way the holder must not leave the directory out (its excludes,
  a .gitignore: a fixture or an unpacked download inside another project stays a project of its own).
  With no marker above a path, the outermost regular package holding it bounds it (a package passed as a
  path is a project whose name starts at its parent, where Python imports it from), else the path's own
  directory, as in ruff. Such a loose directory holds no projects: one inside it (``own_project``) is read
  only when a path asked about is in it (discover.py), since nothing above it can claim it.
- **Source roots** are where Python would find top-level modules: ``src/`` beside a ``pyproject.toml``, the
  directories its packaging config names, or, instead of those two, the ``src`` setting of its
  ``[tool.ppaux-lint]`` table (as ruff's ``src``).
- **Module names** follow Python's import system. Below a source root every directory is a package or a
  namespace portion (PEP 420), so a name is the path from the root. Below a project directory that is not a
  declared source root, the package chain decides: the outermost directory with an ``__init__.py`` is the
  top package, and the directories without one below it are its namespace portions (a vendored
  ``old/myplug`` is ``myplug``; SGLang's ``sglang/srt``, which has no ``__init__.py``, keeps its place); a
  file in no package is named by its path from the project directory. A root that is itself a package (a
  package passed as a path, or a ``pyproject.toml`` shipped inside a package, as SGLang's wheel has one in
  ``sglang/kernels/.../cute``) does not restart the names: they continue from the root above it, or, above
  the outermost root, from the parent of the package chain holding it.
- **Collisions**: two files may still claim one name (two sub-projects that each have ``utils/common.py``,
  two copies of a package). The first claimant in discovery's order owns it in the main index pass; every
  root (``ModuleName.base``) that lost a name is judged in an extra pass of its own, where its files own
  their names, so its names resolve within itself first (discover.py ``copies``, engine.py). A project
  without collisions makes no extra pass. Only a name claimed twice within one root (``x.py`` beside a
  package ``x/``, which Python never imports) leaves a file unchecked, with a warning.
"""

from __future__ import annotations

import errno
import fnmatch
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ppaux_lint.project.config import (
    Config,
    ConfigError,
    configures_ppaux_lint,
    parse_config,
    parse_toml,
    read_toml_bytes,
    tool_table,
)
from ppaux_lint.project.excludes import GitIgnores, Patterns, is_within
from ppaux_lint.support.errors import UsageError

ROOT_MARKERS = ("pyproject.toml", ".git")
PYPROJECT = "pyproject.toml"
# [tool.X] tables that make a pyproject.toml a project's (packaging config, or ppaux-lint's own settings)
PROJECT_TOOLS = ("ppaux-lint", "poetry", "setuptools", "hatch", "flit", "pdm", "maturin", "scikit-build")
WORKSPACES = (("tool", "uv", "workspace"), ("tool", "rye", "workspace"))  # tables whose ``members`` are projects


class PyProjects:
    """Every ``pyproject.toml`` a run reads, read once; its ``[tool.ppaux-lint]`` table parsed when asked for
    (under ``--config`` nobody asks, so a broken table elsewhere is not an error).

    A file that cannot be read or parsed stops the run only when it meant to configure ppaux-lint (see
    ``configures_ppaux_lint``): another tool's broken file, a test fixture's, would otherwise hide every
    finding of the project. It is read as an empty file, which still marks a directory, and ``warnings``
    says so."""

    def __init__(self) -> None:
        self._data: dict[str, dict[str, Any] | None] = {}
        self._configs: dict[str, Config | None] = {}
        self.warnings: list[str] = []

    def load(self, directory: str) -> dict[str, Any] | None:
        """The file's data, or None when the directory has no pyproject.toml."""
        if directory not in self._data:
            path = Path(directory, PYPROJECT)
            self._data[directory] = self._read(path) if _is_file(path) else None
        return self._data[directory]

    def _read(self, path: Path) -> dict[str, Any]:
        try:
            raw = read_toml_bytes(path)
        except ConfigError as error:  # whether it configures ppaux-lint cannot be told
            return self._read_as_empty(f"{error}; read as empty")
        try:
            return parse_toml(raw, path)
        except ConfigError as error:
            if configures_ppaux_lint(raw):
                raise
            return self._read_as_empty(f"{error}; read as empty, since it does not configure ppaux-lint")

    def _read_as_empty(self, warning: str) -> dict[str, Any]:
        """No settings, and ``warning`` saying why."""
        self.warnings.append(warning)
        return {}

    def project_config(self, directory: str) -> Config:
        """The config of the project rooted at ``directory``: its table, else the defaults (as its file's)."""
        if self.load(directory) is None:
            return Config()
        return self.config(directory) or Config(path=Path(directory, PYPROJECT))

    def config(self, directory: str) -> Config | None:
        """Its config, or None when it has no ``[tool.ppaux-lint]`` table (or there is no file)."""
        if directory not in self._configs:
            data = self.load(directory)
            path = Path(directory, PYPROJECT)
            table = tool_table(data, path) if data is not None else None
            self._configs[directory] = parse_config(table, path) if table is not None else None
        return self._configs[directory]


# A path passed explicitly that names nothing is the user's mistake, exit 2 (as a mistyped option is).
NAMES_NOTHING = {errno.ENOENT: "no such file or directory", errno.ENOTDIR: "no such file or directory",
                 errno.ENAMETOOLONG: "file name too long"}


def names_something(path: Path) -> None:
    """Refuse a path given that names nothing (not even a broken symlink, which discovery skips with a warning):
    exit 2 at once, before any directory is searched for its project. Looked for later, ``/typo`` was placed
    in the project of ``/``, and every directory of the machine was walked for configs first."""
    try:
        os.lstat(path)
    except OSError as error:
        if error.errno in NAMES_NOTHING:
            raise UsageError(f"{path}: {NAMES_NOTHING[error.errno]}") from None


def project_roots(paths: Sequence[Path], cwd: Path, pyprojects: PyProjects,
                  force_exclude: bool = False) -> tuple[str, ...]:
    """The project root of each path, outermost first, without those inside another.

    A directory passed explicitly that its project leaves out (its excludes, a .gitignore: a virtualenv's
    ``site-packages`` inside a repository that ignores it, an unpacked download) is checked as a project of
    its own, as ruff checks a path it is given; with ``force_exclude`` the project's exclusion stands."""
    found: dict[str, str] = {}
    for path in paths or [cwd]:
        absolute = path if path.is_absolute() else cwd / path
        # The directory is resolved, not a symlinked file, as discovery does: a file keeps its place. And
        # realpath, not Path.resolve(): a symlink loop among the paths must not raise RuntimeError.
        is_dir = os.path.isdir(absolute)
        start = os.path.realpath(absolute if is_dir else os.path.dirname(absolute))
        if start not in found:
            root = _project_root(start, pyprojects)
            if is_dir and not force_exclude and root != start and _excludes(root, start, pyprojects):
                root = _top_package(start, root)
            found[start] = root
    roots: list[str] = []
    for root in sorted(set(found.values())):
        if not any(is_within(root, kept) for kept in roots):
            roots.append(root)
    return tuple(roots)


def common_root(roots: Sequence[str]) -> Path:
    """The one project root, or the common ancestor of several."""
    return Path(roots[0] if len(roots) == 1 else os.path.commonpath(roots))


def _project_root(start: str, pyprojects: PyProjects) -> str:
    current = _nearest_marker(start)
    if current is None:
        return _top_package(start)
    while not os.path.exists(os.path.join(current, ".git")):
        if is_project(pyprojects.load(current)):
            upper = _claimer(current, pyprojects)
        else:  # a tool's settings only (an empty [tool.ruff]): no project of its own, so the one above holds it
            parent = os.path.dirname(current)
            upper = _nearest_marker(parent) if parent != current else None
        if upper is None or _excludes(upper, current, pyprojects):
            break
        current = upper
    return current


def _top_package(start: str, outer: str | None = None) -> str:
    """The outermost regular package at or above ``start`` (Python imports it from its parent; the directories
    without ``__init__.py`` between are its namespace portions), else ``start``. With ``outer``, only below
    it: with no marker above, the whole way up; inside a project that leaves ``start`` out, below that
    project's root."""
    top = directory = start
    while directory != outer:
        if os.path.isfile(os.path.join(directory, "__init__.py")):
            top = directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return top


def is_project(data: dict[str, Any] | None) -> bool:
    """Whether a pyproject.toml makes its directory a project: it declares one (``[project]``, a build system,
    packaging config) or configures ppaux-lint; a file holding another tool's settings alone does not."""
    if data is None:
        return False
    tool = data.get("tool")
    return ("project" in data or "build-system" in data
            or (isinstance(tool, dict) and any(name in tool for name in PROJECT_TOOLS)) or bool(packaging_roots(data)))


def is_marked(directory: str) -> bool:
    """Whether ``directory`` holds a project marker: a root without one is a loose directory, the fallback for
    a path with no marker above it (``_project_root``)."""
    return any(os.path.exists(os.path.join(directory, marker)) for marker in ROOT_MARKERS)


def own_project(directory: str, names: Collection[str], pyprojects: PyProjects) -> bool:
    """Whether ``directory``, whose entries are ``names``, is a project of its own: a repository, or a
    pyproject.toml that makes a project. Inside a loose directory nothing can claim it (the directory has no
    pyproject.toml to say so, ``_claimer``), so it is not part of a loose file's project."""
    if ".git" in names:
        return True
    if PYPROJECT not in names:
        return False
    try:
        return is_project(pyprojects.load(directory))
    except ConfigError:  # it meant to configure ppaux-lint: a project of its own, which a loose file's run does
        return True  # not read (as it does not read one with an unknown key)


def _claimer(inner: str, pyprojects: PyProjects) -> str | None:
    """The nearest directory above the project ``inner``, within its repository, whose pyproject.toml takes
    it in: a workspace listing it among its members, ``src`` entries of ppaux-lint's table covering it, or,
    when ``inner`` has no table of its own, any ppaux-lint table (its config, as ruff's nearest one is)."""
    configured = _get(pyprojects.load(inner), "tool", "ppaux-lint") is not None
    directory = os.path.dirname(inner)
    while True:
        data = pyprojects.load(directory)
        if data is not None and _claims(directory, data, inner, configured):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory or os.path.exists(os.path.join(directory, ".git")):
            return None
        directory = parent


def _claims(directory: str, data: dict[str, Any], inner: str, configured: bool) -> bool:
    if not configured and _get(data, "tool", "ppaux-lint") is not None:
        return True
    below = os.path.relpath(inner, directory).replace(os.sep, "/")
    for table in WORKSPACES:
        workspace = _get(data, *table)
        if isinstance(workspace, dict) and any(_glob(below, m) for m in _strings(workspace.get("members"))) \
                and not any(_glob(below, e) for e in _strings(workspace.get("exclude"))):
            return True
    src = [os.path.normpath(os.path.join(directory, s)) for s in _strings(_get(data, "tool", "ppaux-lint", "src"))]
    return any(is_within(s, inner) or is_within(inner, s) for s in src)


def _glob(path: str, pattern: str) -> bool:
    """A workspace member pattern (``packages/*``, ``libs/**``) against a relative path, part by part."""
    parts, globs = path.split("/"), [g for g in pattern.strip("/").split("/") if g not in ("", ".")]
    if "**" in globs:  # any depth from there on
        globs = globs[:globs.index("**")]
        parts = parts[:len(globs)] if len(parts) >= len(globs) else []
    return len(parts) == len(globs) and all(fnmatch.fnmatchcase(p, g) for p, g in zip(parts, globs, strict=True))


def _nearest_marker(start: str) -> str | None:
    directory = start
    while True:
        if is_marked(directory):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _excludes(upper: str, inner: str, pyprojects: PyProjects) -> bool:
    """Whether the project at ``upper`` leaves ``inner`` out: its own excludes, or a .gitignore on the way."""
    patterns = Patterns.of_config(pyprojects.config(upper) or Config(), upper)
    ignores = GitIgnores([])
    ignores.load(upper)
    below = os.path.relpath(inner, upper).split(os.sep)
    directory = upper
    for part in below:
        directory = os.path.join(directory, part)
        if patterns.match(directory, is_dir=True) or ignores.match(directory, is_dir=True):
            return True
        ignores.load(directory)
    return False


class ModuleName(NamedTuple):
    module: str  # dotted, "" when the file has none (an __init__.py right at a root)
    is_package: bool  # the file is a package's __init__.py
    base: str  # the directory the name starts from: with the top package, it tells two copies apart
    declared: bool  # the name comes from a declared source root, where Python would find it


class SourceRoots:
    """The project directories and declared source roots of a run, and the module name of each file."""

    def __init__(self) -> None:
        self._declared: dict[str, bool] = {}  # directory -> declared source root (True) or project directory
        self._nearest: dict[str, tuple[str, bool]] = {}
        self._prefixes: dict[str, tuple[str, str, bool]] = {}

    def add_directory(self, directory: str) -> None:
        """A project directory: a project root, or a directory holding pyproject.toml."""
        self._declared.setdefault(directory, False)

    def add_project(self, directory: str, data: dict[str, Any], src: Sequence[str]) -> None:
        """A directory holding pyproject.toml, with ``src`` from its own ``[tool.ppaux-lint]`` table."""
        self.add_directory(directory)
        if src:
            declared = [os.path.normpath(os.path.join(directory, s)) for s in src]
        else:
            candidates = [*packaging_roots(data), "src"]
            declared = [os.path.normpath(os.path.join(directory, c)) for c in candidates]
            # "." is the project directory itself, and a src/ with an __init__.py is a package called src
            declared = [d for d in declared if d != directory and not os.path.isfile(os.path.join(d, "__init__.py"))]
        for root in declared:
            if os.path.isdir(root):
                self._declared[root] = True

    def name(self, path: str, is_package_dir: Callable[[str], bool]) -> ModuleName:
        parent_dir, filename = os.path.split(path)
        prefix, base, declared = self._prefixes.get(parent_dir) or self._prefix(parent_dir, is_package_dir)
        if filename == "__init__.py":
            return ModuleName(prefix, True, base, declared)
        stem = filename[:-3] if filename.endswith(".py") else os.path.splitext(filename)[0]
        # A file like ``run-demo.py`` cannot be imported, but its classes still get checked: its name is kept
        # (no import can ever spell it, so it cannot collide), and ``importable`` tells verify not to try.
        return ModuleName(f"{prefix}.{stem}" if prefix else stem, False, base, declared)

    def _prefix(self, directory: str, is_package_dir: Callable[[str], bool]) -> tuple[str, str, bool]:
        """The dotted name of a directory's package ("" at a root), where names start, and whether from a
        declared root; memoised, since the files of a directory share them."""
        if directory not in self._prefixes:
            found = self._root_of(directory)
            if found is None:
                raise ValueError(f"{directory} is below no project directory")
            root, declared = found
            directories = _between(directory, root)  # from the directory upwards, stopping below the root
            # A root that is itself a package (a project directory inside a package, a package passed as a
            # path) is named as Python names it: from the root above it, or above the outermost one, from the
            # parent of the package chain that holds it.
            while not declared and is_package_dir(root):
                outer = self._root_of(os.path.dirname(root)) if os.path.dirname(root) != root else None
                if outer is None:
                    while is_package_dir(root) and os.path.dirname(root) != root:
                        directories.append(root)
                        root = os.path.dirname(root)
                    break
                directories += [root, *_between(os.path.dirname(root), outer[0])]
                root, declared = outer
            if not declared:
                packages = [d for d in directories if is_package_dir(d)]
                if packages:
                    directories = directories[: directories.index(packages[-1]) + 1]
            base = os.path.dirname(directories[-1]) if directories else root
            self._prefixes[directory] = (".".join(os.path.basename(d) for d in reversed(directories)), base, declared)
        return self._prefixes[directory]

    def _root_of(self, directory: str) -> tuple[str, bool] | None:
        """The deepest root at or above ``directory``, None above them all (memoised per directory: thousands
        of files share few)."""
        chain = []
        current = directory
        while current not in self._nearest:
            if current in self._declared:
                self._nearest[current] = (current, self._declared[current])
                break
            chain.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                return None
            current = parent
        found = self._nearest[current]
        for visited in chain:
            self._nearest[visited] = found
        return found


def _between(directory: str, root: str) -> list[str]:
    """``directory`` and its ancestors below ``root``, innermost first."""
    directories = []
    while directory != root and os.path.dirname(directory) != directory:
        directories.append(directory)
        directory = os.path.dirname(directory)
    return directories


def packaging_roots(data: dict[str, Any]) -> list[str]:
    """The package directories a pyproject.toml's packaging config names, relative to it.

    Read leniently: this is another tool's config, whose mistakes are that tool's to report.
    """
    roots: list[str] = []
    package_dir = _get(data, "tool", "setuptools", "package-dir")
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        roots.append(package_dir[""])
    roots.extend(_strings(_get(data, "tool", "setuptools", "packages", "find", "where")))
    for table in (("tool", "hatch", "build"), ("tool", "hatch", "build", "targets", "wheel")):
        roots.extend(os.path.dirname(p.rstrip("/")) or "." for p in _strings(_get(data, *table, "packages")))
        sources = _get(data, *table, "sources")
        roots.extend(_strings(sources) if isinstance(sources, list)
                     else [k for k, v in sources.items() if v == ""] if isinstance(sources, dict) else [])
    roots.extend(os.path.dirname(p.rstrip("/")) or "." for p in _strings(_get(data, "tool", "scikit-build",
                                                                             "wheel", "packages")))
    poetry = _get(data, "tool", "poetry", "packages")
    if isinstance(poetry, list):
        roots.extend(p["from"] for p in poetry if isinstance(p, dict) and isinstance(p.get("from"), str))
    for single in (("tool", "pdm", "build", "package-dir"), ("tool", "maturin", "python-source")):
        value = _get(data, *single)
        if isinstance(value, str):
            roots.append(value)
    return roots


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _strings(value: Any) -> Iterable[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False for a path the system cannot look up at all (longer than PATH_MAX: a
    ``--stdin-filename`` or an editor's buffer may name one), which Python before 3.14 raises for."""
    try:
        return path.is_file()
    except OSError:
        return False
