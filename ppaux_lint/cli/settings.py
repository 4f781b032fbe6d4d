"""``check --show-files`` and ``check --show-settings``: what a run would check, and by which settings.

Both answer from the project model alone (``load_project``, ``discover_files``): no source file is read,
no rule is loaded, nothing is checked. ``--show-settings`` names, for every value, where it came from: the
default, a config file and its table, or a flag, so that a user who wonders why a rule stays silent on a file
sees which setting decides it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import IO

from ppaux_lint.project.config import Config, Protocols
from ppaux_lint.project.loading import Options, asked, discover_files, load_project, selection_sources
from ppaux_lint.report.paths import display_path, printable

_DEFAULT = "default"


def show_files(paths: Sequence[Path], options: Options, out: IO[str]) -> tuple[str, ...]:
    """Print the files a check of ``paths`` reports on (after excludes, .gitignore and --force-exclude), sorted,
    one a line; return discovery's warnings."""
    given = asked(paths)
    project = load_project(given, options)
    discovery = discover_files(given, options, project)
    for path in sorted(discovery.targets):
        out.write(printable(display_path(path)) + "\n")
    return discovery.warnings


def show_settings(paths: Sequence[Path], options: Options, out: IO[str]) -> tuple[str, ...]:
    """Print the settings that apply to the first of ``paths`` (a directory: those of its first checked file,
    else the project's), each with where it came from; return discovery's warnings."""
    given = asked(paths)[:1]
    project = load_project(given, options)
    discovery = discover_files(given, options, project)
    key = os.path.join(os.path.realpath(given[0].absolute().parent), given[0].name)
    inside = sorted(t for t in discovery.targets if t == key or t.startswith(key.rstrip(os.sep) + os.sep))
    config = discovery.config_of(inside[0]) if inside else project.config
    shown = printable(display_path(str(given[0])))
    out.write(f"Settings for {shown}\n")
    out.write(f"  checked files: {len(inside)}" + ("" if inside else " (excluded, or not Python)") + "\n")
    out.write(f"  project root: {printable(str(project.root))}\n")
    out.write(f"  config: {_config_name(config, options)}\n")
    for name, value, where in _values(config, options, project, discovery.requires_python(inside[0])
                                       if inside else None):
        out.write(f"  {name} = {json.dumps(value)}  # {where}\n")
    if inside:
        where = (f"{config.where}: 'tool.ppaux-lint.target-version'" if config.target_version is not None
                 else "the oldest requires-python allows" if discovery.requires_python(inside[0]) is not None
                 else _DEFAULT)
        out.write(f"  target-version = {json.dumps(f'py3{discovery.target(inside[0])}')}  # {where}\n")
    return discovery.warnings


def _config_name(config: Config, options: Options) -> str:
    if config.path is None:
        return "none (the defaults)"
    shown = printable(str(config.path))
    table = "[tool.ppaux-lint]" if config.path.name == "pyproject.toml" else "its top level"
    return f"{shown}, {table}" + (" (--config)" if options.config_path is not None else "")


def _values(config: Config, options: Options, project, requires_python: str | None) -> Iterable[tuple]:
    """(key, value, where it came from) for every setting of ``check``."""
    from ppaux_lint.cache.directory import cache_directory

    own = _origin(config)
    sources = selection_sources(config, options)
    select = [code for codes, _ in sources["select"] for code in codes] or ["ALL"]
    yield "select", select, _joined(sources["select"])
    for name, key in (("extend-select", "extend_select"), ("ignore", "ignore")):
        yield name, [code for codes, _ in sources[key] for code in codes], _joined(sources[key])
    ignores = {glob: list(codes) for glob, codes in config.per_file_ignores.items()}
    yield "per-file-ignores", ignores, own(ignores, "per-file-ignores")
    for name in ("exclude", "extend-exclude", "src"):
        value = getattr(config, name.replace("-", "_"))
        yield name, list(value), own(value, name)
    yield "--exclude", list(options.exclude), "--exclude" if options.exclude else _DEFAULT
    yield "force-exclude", options.force_exclude, "--force-exclude" if options.force_exclude else _DEFAULT
    yield "structural", config.structural, own(not config.structural, "structural")
    yield "output-file", str(config.output_path) if config.output_path else None, own(config.output_file,
                                                                                      "output-file")
    cache_from = "--cache-dir" if options.cache_dir else _origin(project.config)(project.config.cache_dir, "cache-dir")
    yield "cache-dir", str(cache_directory(project, options.cache_dir)), \
        cache_from + (" (not used: --no-cache)" if options.no_cache else "")
    defaults = Protocols()
    for field in fields(Protocols):
        value = getattr(config.protocols, field.name)
        name = "protocols." + field.name.replace("_", "-")
        added = value != getattr(defaults, field.name)
        yield name, list(value), own(added, name) + (" (added to the defaults)" if added else "")
    if requires_python is not None:
        yield "requires-python", requires_python, "[project] of the nearest pyproject.toml"


def _origin(config: Config):
    """``own(value, key)``: where a value that is set came from (the config's key), or the default."""
    def own(value, key: str) -> str:
        return f"{config.where}: 'tool.ppaux-lint.{key}'" if value else _DEFAULT

    return own


def _joined(pairs: Sequence[tuple[tuple[str, ...], str]]) -> str:
    return ", ".join(where for _, where in pairs) or _DEFAULT
