"""Which files make up the project, which of them were asked about, and each one's module name and config.

Resolution always needs the whole project (a base class may live in a file nobody passed), while findings
are reported only for the files asked about. So discovery yields both sets from one walk, together with
what layout.py (module names) and scopes.py (the config in force) decide for every file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Collection, Mapping, Sequence
from dataclasses import field
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from ppaux_lint.project.config import Config
from ppaux_lint.project.excludes import GITIGNORE, GitIgnores, is_within
from ppaux_lint.project.layout import NAMES_NOTHING, ModuleName, PyProjects, SourceRoots, is_marked, own_project
from ppaux_lint.project.repository import linked_out
from ppaux_lint.project.scopes import Scopes
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.records import dataclass


class SourceFile(NamedTuple):  # a tuple: thousands are made on every run, and a frozen dataclass's init is slow
    path: str  # absolute; a string, since thousands of Path objects cost more than the rest of a warm run
    module: str  # dotted module name, "" when not importable
    is_package: bool


@dataclass(frozen=True)
class Discovery:
    root: Path
    files: tuple[SourceFile, ...]  # every project file, for resolution; a module's owner before other claimants
    targets: frozenset[str]  # the files asked about (absolute paths), where findings are reported
    warnings: tuple[str, ...] = ()
    configs: Mapping[str, Config] = field(default_factory=dict)  # path -> the config that file follows
    shadowed: Mapping[str, str] = field(default_factory=dict)  # path -> the file that owns its module name
    all_configs: tuple[Config, ...] = ()  # every config met, for validating each one whoever is passed
    looked_in: tuple[str, ...] = ()  # every directory whose entries decided something: the walk, package checks
    copies: Mapping[str, str] = field(default_factory=dict)  # path -> its root, for files judged in a copy's pass
    pyprojects: PyProjects | None = None  # every pyproject.toml read, for what they say besides the configs
    linked: frozenset[str] = frozenset()  # targets given through a directory link that leads out of the project:
    # checked, but never written (``--fix``, ``--add-noqa``): a repository's committed link chose where they are
    _targets: dict[str, int] = field(default_factory=dict, compare=False, repr=False)  # directory -> target

    def requires_python(self, path: str) -> str | None:
        """The ``requires-python`` of the project a file belongs to: that of the nearest ``pyproject.toml`` at or
        above it, within the project root, that has a ``[project]`` table (None when it declares none)."""
        directory, root = os.path.dirname(path), str(self.root)
        while self.pyprojects is not None:
            data = self.pyprojects.load(directory)
            project = data.get("project") if data is not None else None
            if isinstance(project, dict):
                requires = project.get("requires-python")
                return requires if isinstance(requires, str) else None
            parent = os.path.dirname(directory)
            if directory == root or parent == directory or not directory.startswith(root):
                break
            directory = parent
        return None

    def target(self, path: str) -> int:
        """The Python 3 minor version whose grammar ``path`` is parsed with (``python_versions.target``): its
        config's ``target-version``, else its project's ``requires-python``. Answered once per directory: every
        summary's cache key asks."""
        config, directory = self.configs.get(path), os.path.dirname(path)
        if config is not None and config.target_version is not None:
            return config.target_version
        known = self._targets.get(directory)
        if known is None:
            from ppaux_lint.project.python_versions import target  # here: a replayed run parses nothing

            known = self._targets[directory] = target(None, self.requires_python(path))
        return known

    def owners(self, copy: str = "") -> dict[str, str]:
        """module -> the file that is that module: the first claimant, or in ``copy``'s pass, that root's own."""
        owners: dict[str, str] = {}
        for f in self.files:
            if f.module and (f.module not in owners or (self.copies.get(f.path) == copy != ""
                                                         and self.copies.get(owners[f.module]) != copy)):
                owners[f.module] = f.path
        return owners

    def config_of(self, path: str) -> Config:
        return self.configs[path]

    def module_of(self, path: str) -> str:
        return self._modules[path]

    @cached_property
    def _modules(self) -> dict[str, str]:
        return {f.path: f.module for f in self.files}


def file_key(path: Path) -> str:
    """The absolute name discovery gives a file: its directory resolved, not the file, so that a symlinked
    file keeps the name it was given. Overlays and editors' documents are matched to files by this name.
    (``realpath``, not ``Path.resolve``, which raises RuntimeError on a symlink loop before Python 3.13.)"""
    path = path if path.is_absolute() else Path.cwd() / path
    return os.path.join(os.path.realpath(path.parent), path.name)


def _kind(path: Path, given: Path) -> int | str:
    """What a path passed explicitly is: a directory's or a regular file's mode (symlinks followed), or why it
    is skipped. Like a FIFO, a path that names something this run cannot check (a symlink that loops or leads
    nowhere, a directory it may not search) is skipped with a warning, and the other paths are checked: a
    pre-commit hook passes such files along with the rest."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ENOENT and os.path.islink(path):
            return "broken symlink"
        if error.errno in NAMES_NOTHING:
            raise UsageError(f"{given}: {NAMES_NOTHING[error.errno]}") from None
        return f"cannot check it: {error.strerror}"
    return mode if stat.S_ISDIR(mode) or stat.S_ISREG(mode) else "not a regular file"


def discover(paths: Sequence[Path], root: Path, config: Config | None = None, cli_excludes: Sequence[str] = (),
             force_exclude: bool = False, tops: Sequence[Path] = (), overlays: Collection[str] = (),
             pyprojects: PyProjects | None = None) -> Discovery:
    """The files under ``tops`` (default: ``root``), which of them ``paths`` asks about, and their names.

    ``config`` replaces every ``[tool.ppaux-lint]`` table (``--config``); without it each file follows
    its nearest one (scopes.py). ``overlays`` are files (by :func:`file_key`) whose text is in memory (an
    editor's buffer, standard input): passed as a path, one is a file even when nothing is on disk yet.
    ``pyprojects`` are the files read already finding the project (``load_project``); their warnings, and
    those of the files read here, lead discovery's.
    """
    cwd = Path.cwd()
    walked_tops = [str(t) for t in tops] or [str(root)]
    warnings: list[str] = []
    roots = SourceRoots()
    pyprojects = pyprojects if pyprojects is not None else PyProjects()
    scopes = Scopes(walked_tops, str(root), pyprojects, roots, config, cli_excludes)
    gitignores = GitIgnores(warnings, [*walked_tops, *(os.path.realpath(cwd / p) for p in paths or [cwd])])
    walker = _Walker(scopes, gitignores, warnings, _BesideLooseFiles(paths or [cwd], cwd, pyprojects))
    project = [found for top in walked_tops for found in walker.walk(top)]
    walked = set(project)
    targets: set[str] = set()
    explicit: list[str] = []
    linked: set[str] = set()
    for given in paths or [cwd]:
        path = given if given.is_absolute() else cwd / given
        key = file_key(path)
        kind = stat.S_IFREG if key in overlays else _kind(path, given)
        if isinstance(kind, str):
            warnings.append(f"{given}: {kind}, skipped")
        elif stat.S_ISDIR(kind):
            prefix = os.path.realpath(path).rstrip(os.sep) + os.sep
            targets.update(f for f in project if f.startswith(prefix))
        elif not (force_exclude and _force_excluded(key, walked_tops, scopes, gitignores)):
            targets.add(key)
            explicit.append(key)
            if os.path.dirname(key) != os.path.abspath(path.parent) and linked_out(str(path.absolute())):
                linked.add(key)  # a committed directory link led out of its repository: checked, never written
    asked = set(explicit)
    outside = sorted(asked - walked)  # excluded files given explicitly, and new ones only in memory
    configs = {path: scopes.of(os.path.dirname(path)).config for path in (*project, *outside)}
    names = {path: roots.name(path, walker.is_package_dir) for path in configs}  # every pyproject.toml is known
    ordered = sorted(configs, key=_ownership(names, asked, walked))
    files = tuple(SourceFile(path, names[path].module, names[path].is_package) for path in ordered)
    shadowed = _shadowed(files)
    copies = _copies(files, names, shadowed)
    warnings.extend(f"{path}: module {names[path].module} is already {owner}"
                    f"{' (passed explicitly)' if owner in asked else ''}; its classes are not checked"
                    for path, owner in shadowed.items() if names[path].base == names[owner].base)
    return Discovery(root=root, files=files, targets=frozenset(targets), warnings=(*pyprojects.warnings, *warnings),
                     configs=configs, shadowed=shadowed, all_configs=tuple(scopes.configs()),
                     looked_in=tuple(walker.has_init), copies=copies, pyprojects=pyprojects,
                     linked=frozenset(linked))


def _ownership(names: Mapping[str, ModuleName], asked: set[str], walked: set[str]):
    """The order in which files claim module names, so that of two copies of one package (``src/myplug``
    and a vendored ``old/myplug``) the one Python would import is the module: a file passed explicitly
    first, then the other files of its copy, then names under a declared source root, then the walk."""
    copies = {_copy(names[path]) for path in asked}

    def key(path: str) -> tuple:
        name = names[path]
        # (without a file passed explicitly there is no copy to prefer: no name's copy is worked out)
        return (path not in asked, not copies or _copy(name) not in copies, not name.declared, path not in walked,
                path)

    return key


def _copy(name: ModuleName) -> tuple[str, str]:
    return name.base, name.module.partition(".")[0]


def _shadowed(files: Sequence[SourceFile]) -> dict[str, str]:
    """path -> owner for each file whose module name an earlier file claims: names resolve to the owner, and
    the other's classes are not checked, whichever files the prefilter happens to read first."""
    owner: dict[str, str] = {}
    out = {}
    for f in files:
        if not f.module:
            continue
        if f.module in owner:
            out[f.path] = owner[f.module]
        else:
            owner[f.module] = f.path
    return out


def _copies(files: Sequence[SourceFile], names: Mapping[str, ModuleName],
            shadowed: Mapping[str, str]) -> dict[str, str]:
    """path -> base for every file of a root whose names another root's files own (two sub-projects, two
    copies of a package): the engine judges those in a pass of their own, where their root owns its names.
    Only a name claimed twice within one root (``x.py`` beside a package ``x/``, which Python never imports)
    stays unchecked."""
    losing = {names[path].base for path, owner in shadowed.items() if names[path].base != names[owner].base}
    return {f.path: names[f.path].base for f in files if names[f.path].base in losing} if losing else {}


def _force_excluded(path: str, tops: Sequence[str], scopes: Scopes, gitignores: GitIgnores) -> bool:
    """Whether the walk would have left out a file given explicitly: it or a directory above it is excluded
    by the config governing the directory that holds it, or by a .gitignore."""
    top = next(t for t in tops if is_within(path, t))
    directory = top
    parts = os.path.relpath(path, top).split(os.sep)
    for depth, part in enumerate(parts, start=1):
        entry = os.path.join(directory, part)
        is_dir = depth < len(parts)
        if scopes.of(directory).excluded(entry, is_dir) or gitignores.match(entry, is_dir):
            return True
        directory = entry
    return False


def importable(module: str) -> bool:
    return bool(module) and all(part.isidentifier() for part in module.split("."))


class _BesideLooseFiles:
    """The projects of their own inside a loose directory (layout.py: a root with no marker) that no path asked
    about: a clone or a project with its own pyproject.toml beside a script. They are not part of the script's
    project (nothing claims them: ``layout.own_project``), and walking them read and parsed their whole tree
    on every run, and on every edit in the server. A path inside one, or a directory holding one, asks for it."""

    def __init__(self, given: Sequence[Path], cwd: Path, pyprojects: PyProjects) -> None:
        self.given = [path if path.is_absolute() else cwd / path for path in given]
        self.pyprojects = pyprojects

    @cached_property
    def asked(self) -> list[str]:
        """The paths asked about, as the walk names them; worked out only when a project is met (a pre-commit
        run passes hundreds of files, inside a project with a marker, where none is)."""
        return [os.path.realpath(path) if os.path.isdir(path) else file_key(path) for path in self.given]

    def left_out(self, directory: str, names: Collection[str]) -> bool:
        """Whether to leave ``directory`` (below a loose top; its entries are ``names``) out of the walk."""
        return own_project(directory, names, self.pyprojects) and not any(
            is_within(path, directory) or is_within(directory, path) for path in self.asked)


class _Walker:
    """Python files under a directory. Directory symlinks are not followed, so no loop is possible;
    which directories hold ``__init__.py`` is remembered for naming modules without more stats."""

    def __init__(self, scopes: Scopes, gitignores: GitIgnores, warnings: list[str],
                 beside: _BesideLooseFiles) -> None:
        self.scopes = scopes
        self.gitignores = gitignores
        self.warnings = warnings
        self.beside = beside
        self.has_init: dict[str, bool] = {}

    def is_package_dir(self, directory: str) -> bool:
        if directory not in self.has_init:
            self.has_init[directory] = os.path.isfile(os.path.join(directory, "__init__.py"))
        return self.has_init[directory]

    def walk(self, top: str) -> list[str]:
        found: list[str] = []
        loose = not is_marked(top)
        stack = [(top, None)]  # each directory with its parent's scope (a top's is known already)
        while stack:
            directory, parent = stack.pop()
            try:
                with os.scandir(directory) as scan:
                    entries = list(scan)
            except OSError as error:
                self.warnings.append(f"{directory}: cannot read directory: {error.strerror}")
                continue
            names = {e.name for e in entries}
            self.has_init[directory] = "__init__.py" in names  # looked in: its entries decide (replay.py)
            if loose and parent is not None and self.beside.left_out(directory, names):
                continue
            scope = (self.scopes.of(directory) if parent is None
                     else self.scopes.enter(directory, parent, "pyproject.toml" in names))
            if GITIGNORE in names:
                self.gitignores.load(directory)
            subdirectories: list[str] = []
            modules: list[os.DirEntry] = []
            for entry in entries:  # in the order the system lists them; only what is kept gets sorted
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if not (scope.excluded(entry.path, True, name) or self.gitignores.match(entry.path, True)):
                        subdirectories.append(entry.path)
                elif name.endswith(".py") and not (scope.excluded(entry.path, False, name)
                                                   or self.gitignores.match(entry.path, False)):
                    modules.append(entry)
            modules.sort(key=attrgetter("name"))
            for entry in modules:
                if entry.is_symlink() and not os.path.isfile(entry.path):
                    what = "not a regular file" if os.path.exists(entry.path) else "broken symlink"
                    self.warnings.append(f"{entry.path}: {what}, skipped")  # a link to /dev/zero is not broken
                elif not _is_regular(entry):  # a FIFO named x.py would block the read forever
                    self.warnings.append(f"{entry.path}: not a regular file, skipped")
                else:
                    found.append(entry.path)
            subdirectories.sort(reverse=True)  # a stack: the first by name is walked first
            stack.extend((path, scope) for path in subdirectories)
        return found


def _is_regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
