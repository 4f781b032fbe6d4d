"""Which project a run is about, and what the command line adds to its config.

Kept apart from the engine because a replayed run (``replay.py``) needs the project and its options, and
nothing of the analysis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from ppaux_lint.project.config import Config, load_config
from ppaux_lint.project.layout import PyProjects, common_root, names_something, project_roots
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.project.discover import Discovery


@dataclass(frozen=True)
class Project:
    """Where the project is, and the config at its root.

    ``root`` holds the cache and is where ``--exclude`` patterns start; ``tops`` are the directories walked
    (the root, or each path's own project when a run spans several); ``config`` is the root's, or the
    ``--config`` file's, which then replaces every other (``override``).
    """

    root: Path
    config: Config
    tops: tuple[Path, ...] = ()
    override: bool = False
    # The pyproject.toml files read finding it, which discovery reads on from (none twice, each warning once).
    pyprojects: PyProjects = field(default_factory=PyProjects, repr=False, compare=False)


@dataclass(frozen=True)
class Options:
    """What the command line adds to the config."""

    config_path: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    no_cache: bool = False
    cache_dir: Path | None = None
    prefilter: bool = True  # off only to prove, in tests, that it changes nothing
    # In-memory contents by path (standard input, an editor's unsaved buffers): read instead of the file,
    # which need not exist yet; pass an overlay's path to have it checked.
    overlays: Mapping[str, bytes] = field(default_factory=dict)
    # Start no worker processes: the language server analyses in a thread, and a process forked from a
    # threaded one can inherit a lock another thread held (stdout's, mid-write) and hang on exit.
    in_process: bool = False


def selection_sources(config: Config, options: Options) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Which codes each of select, extend-select and ignore holds, and where each came from, in ruff's
    precedence: ``--select`` replaces the config's ``select`` and ``extend-select``; ``--extend-select``, the
    config's ``ignore`` and ``extend-ignore``, ``--ignore`` and ``--extend-ignore`` add to what is there."""
    key = f"{config.where}: 'tool.ppaux-lint.{{}}'"
    sources = {
        "select": [(options.select, "--select")] if options.select else [(config.select, key.format("select"))],
        "extend_select": ([] if options.select else [(config.extend_select, key.format("extend-select"))])
        + [(options.extend_select, "--extend-select")],
        "ignore": [(config.ignore, key.format("ignore")), (config.extend_ignore, key.format("extend-ignore")),
                   (options.ignore, "--ignore"), (options.extend_ignore, "--extend-ignore")],
    }
    return {name: [(codes, where) for codes, where in pairs if codes] for name, pairs in sources.items()}


def load_project(paths: Sequence[Path], options: Options) -> Project:
    if not options.overlays:  # an overlay's path (standard input's, an editor's new buffer) need not exist yet
        for path in paths:
            names_something(path)
    pyprojects = PyProjects()
    tops = project_roots(paths, Path.cwd(), pyprojects, options.force_exclude)
    root = common_root(tops)
    config = (load_config(root, options.config_path) if options.config_path is not None
              else pyprojects.project_config(str(root)))
    return Project(root, config, tuple(map(Path, tops)), override=options.config_path is not None,
                   pyprojects=pyprojects)


def asked(paths: Sequence[str | Path]) -> list[Path]:
    """The paths a run is about: the current directory when none are given."""
    return [Path(p) for p in paths] or [Path(".")]


def discover_files(given: Sequence[Path], options: Options, project: Project) -> Discovery:
    """The project's files and those asked about, as the options and the project's config exclude them."""
    from ppaux_lint.project.discover import discover, file_key  # a replayed run walks nothing

    overlays = {file_key(Path(path)) for path in options.overlays}
    return discover(given, project.root, project.config if project.override else None, options.exclude,
                    options.force_exclude, project.tops, overlays, project.pyprojects)
