"""Which config governs each directory: the nearest ``pyproject.toml`` with a ``[tool.ppaux-lint]`` table.

As in ruff's hierarchical configuration, the closest such table wins whole (tables are not merged; with no
table above it, a directory follows the defaults, as the nearest ``pyproject.toml``'s), its
relative patterns start at its own directory, and a directory's entries are excluded or not by the config
that governs that directory. The search never leaves the project root (see layout.py): a table above it
belongs to another project, so a directory with none above it follows the defaults. ``--config`` replaces
every table, as ruff's does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ppaux_lint.project.config import Config
from ppaux_lint.project.excludes import Patterns
from ppaux_lint.project.layout import PYPROJECT, PyProjects, SourceRoots
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class Scope:
    """A config, with its exclude patterns (and ``--exclude``'s) compiled once."""

    config: Config
    patterns: tuple[Patterns, ...]
    from_table: bool  # False: the defaults (as the nearest pyproject.toml's, when there is one)

    def excluded(self, path: str, is_dir: bool, name: str | None = None) -> bool:
        for patterns in self.patterns:  # noqa: SIM110 - a loop, not any(): this runs for every entry of the tree
            if patterns.match(path, is_dir, name):
                return True
        return False


class Scopes:
    def __init__(self, tops: Sequence[str], anchor: str, pyprojects: PyProjects, roots: SourceRoots,
                 override: Config | None = None, cli_excludes: Sequence[str] = ()) -> None:
        """``tops`` are the directories walked; ``anchor`` (the project root) is where ``--exclude`` patterns
        and an ``override`` config's patterns start."""
        self._cli = (Patterns.checked(anchor, cli_excludes, [(cli_excludes, "--exclude")]),) if cli_excludes else ()
        self._anchor = anchor
        self._pyprojects = pyprojects
        self._roots = roots
        self._override = override
        self._by_config: dict[Path | None, Scope] = {}
        self._by_dir: dict[str, Scope] = {}
        if override is not None and override.src:
            roots.add_project(anchor, {}, override.src)
        base = self._scope(override or Config(), anchor, from_table=override is not None)
        for top in tops:
            roots.add_directory(top)
            self.enter(top, base, os.path.isfile(os.path.join(top, PYPROJECT)))

    def enter(self, directory: str, parent: Scope, has_pyproject: bool) -> Scope:
        """The scope of ``directory``, whose parent's scope is ``parent`` (the walk goes top-down)."""
        scope = parent
        data = self._pyprojects.load(directory) if has_pyproject else None
        if data is not None and self._override is None:
            config = self._pyprojects.config(directory)
            self._roots.add_project(directory, data, config.src if config is not None else ())
            if config is not None:
                scope = self._scope(config, directory)
            elif not parent.from_table:
                scope = self._scope(Config(path=Path(directory, PYPROJECT)), directory, from_table=False)
        elif data is not None:
            self._roots.add_project(directory, data, self._override.src if directory == self._anchor else ())
        self._by_dir[directory] = scope
        return scope

    def of(self, directory: str) -> Scope:
        """The scope of any directory inside a top, also one the walk never entered (an excluded one)."""
        chain = []
        current = directory
        while current not in self._by_dir:
            chain.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                raise ValueError(f"{directory} is outside every directory walked")
            current = parent
        scope = self._by_dir[current]
        for below in reversed(chain):
            scope = self.enter(below, scope, os.path.isfile(os.path.join(below, PYPROJECT)))
        return scope

    def configs(self) -> list[Config]:
        """Every config met, in the order met."""
        return [scope.config for scope in self._by_config.values()]

    def _scope(self, config: Config, anchor: str, from_table: bool = True) -> Scope:
        if config.path not in self._by_config:
            self._by_config[config.path] = Scope(config, (Patterns.of_config(config, anchor), *self._cli),
                                                 from_table)
        return self._by_config[config.path]
