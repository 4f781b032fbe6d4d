"""A run that nothing has changed since the same command last ran replays that run's findings.

Editors and pre-commit hooks check one file or a few at a time, and most of those runs meet the project as
the last run of the same command left it. Such a run finds the project and loads its config, as every run does,
and then only compares the stat of each input the last run recorded with what is on disk now: no discovery walk, no
summary model, no index, no rule. When all match, it prints the findings (their fixes attached) and the
warnings stored with them.

The record, one per command in the cache directory, names the command (the working directory, the paths, the
options that change what is found, ppaux-lint's and the interpreter's versions, the project and its root
config) and lists every input with its stat (size, mtime, ctime, inode, or its absence):

- every directory discovery looked into, and each of their ancestors within the project: a file added,
  removed or renamed there (a new module, an ``__init__.py``, a ``.git``) changes the directory's own stat;
- the ``pyproject.toml`` and ``.gitignore`` of each of those directories, present or not, and ``--config``'s
  file: all that discovery and the configs read;
- every file discovered, and ppaux-lint's own modules and their directories (an edited checkout finds other
  things under the same version).

A file rewritten within the same clock tick at the same size, with the same inode, is missed here as in the
prefilter's scan cache. Runs with ``--no-cache`` or with overlays (standard input, an editor's buffers)
neither replay nor record; ``--fix`` and ``--diff`` need the analysis itself, so they never come here. A
record that cannot be read back exactly is a miss, and one that cannot be written leaves the run as it was.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ppaux_lint import __version__
from ppaux_lint.cache_dir import cache_directory, prepare
from ppaux_lint.excludes import GITIGNORE
from ppaux_lint.fileio import atomic_write, read_regular_file
from ppaux_lint.layout import PYPROJECT
from ppaux_lint.project import Options, Project, asked, discover_files, load_project

if TYPE_CHECKING:
    from ppaux_lint.codec import Codec
    from ppaux_lint.discover import Discovery
    from ppaux_lint.findings import Finding

_PACKAGE = Path(__file__).resolve().parent
_RECORD_FORMAT = 1


@dataclass(frozen=True)
class Checked:
    """What ``check`` reports: the findings with their fixes, discovery's warnings, how many files were asked
    about, and any overlays read (whose text the full format quotes)."""

    findings: list[Finding]
    warnings: tuple[str, ...]
    files_checked: int
    overlays: dict[str, bytes] = field(default_factory=dict)
    replayed: bool = False


def check_project(paths: Sequence[str | Path], options: Options) -> Checked:
    """The findings for ``paths``: replayed when no input changed since the same command ran, else analysed
    (and recorded for the next run)."""
    given = asked(paths)
    project = load_project(given, options)
    record = None if options.no_cache or options.overlays else _Record(project, options, given)
    replayed = record.read() if record is not None else None
    if replayed is not None:
        return replayed
    from ppaux_lint.engine import analyze

    discovery = discover_files(given, options, project)
    analysis = analyze(given, options, project, discovery)
    checked = Checked(with_fixes(analysis), discovery.warnings, len(discovery.targets), dict(analysis.overlays))
    if record is not None:
        record.write(checked, _inputs(discovery, given, options))
    return checked


def with_fixes(analysis) -> list[Finding]:
    """The analysis's findings, each with the fix it offers; a run without findings loads no fix machinery."""
    if not analysis.findings:
        return []
    from ppaux_lint.fixes import attach_fixes

    return attach_fixes(analysis)


class _Record:
    """The last run of one command in this project: its inputs with their stat, and what it reported."""

    def __init__(self, project: Project, options: Options, given: list[Path]) -> None:
        self._command = repr((_RECORD_FORMAT, __version__, sys.version, os.getcwd(), [str(p) for p in given],
                              options.config_path, options.select, options.ignore, options.exclude,
                              options.force_exclude, options.prefilter, project))
        name = f"{zlib.crc32(self._command.encode('utf-8', 'surrogateescape')):08x}"  # a clash only costs a miss
        self._base = cache_directory(project, options.cache_dir)
        self._path = self._base / "runs" / f"{name}.json"

    def read(self) -> Checked | None:
        """The recorded run, if it was this command's and every input is as it recorded it."""
        try:
            data = json.loads(read_regular_file(self._path))
            if not isinstance(data, dict) or data.get("command") != self._command:
                return None
            inputs, warnings, count = data["inputs"], data["warnings"], data["files_checked"]
            if not (isinstance(inputs, list) and all(isinstance(i, list) and i and isinstance(i[0], str)
                                                     for i in inputs)):
                return None
            if any(_stat(path) != stat for path, *stat in inputs):
                return None
            findings = _decode_findings(data["findings"])
        except (OSError, ValueError, RecursionError, KeyError, TypeError):
            return None
        if findings is None or not isinstance(count, int) or not (
                isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
            return None
        return Checked(findings, tuple(warnings), count, replayed=True)

    def write(self, checked: Checked, inputs: Iterable[str]) -> None:
        from ppaux_lint.codec import encode

        if prepare(self._base, self._path.parent):
            record = {"command": self._command, "inputs": [[path, *_stat(path)] for path in inputs],
                      "warnings": list(checked.warnings), "files_checked": checked.files_checked,
                      "findings": encode(checked.findings)}
            atomic_write(self._path, json.dumps(record, separators=(",", ":")).encode())


def _inputs(discovery: Discovery, given: list[Path], options: Options) -> list[str]:
    """Every path whose stat the run's findings depend on (see the module docstring)."""
    root = str(discovery.root)
    directories: set[str] = set(discovery.looked_in)
    for start in (*discovery.looked_in, *(os.path.abspath(p) for p in given)):
        directories.update(_ancestors_within(start, root))
    named = [os.path.join(d, name) for d in sorted(directories) for name in (PYPROJECT, GITIGNORE)]
    explicit = [os.path.abspath(options.config_path)] if options.config_path else []
    return [*sorted(directories), *named, *explicit, *(f.path for f in discovery.files), *_tool_directories(),
            *_tool_modules()]


def _ancestors_within(path: str, root: str) -> Iterator[str]:
    """``path`` and its ancestors up to ``root``. Above the root, what matters is the root itself and its
    config, which every run finds afresh; and directories such as /tmp or a home directory change all the
    time for reasons of their own."""
    while path == root or path.startswith(root.rstrip(os.sep) + os.sep):
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def _tool_directories() -> Iterator[str]:
    yield str(_PACKAGE)
    for directory, subdirectories, _ in os.walk(_PACKAGE):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        yield from (os.path.join(directory, d) for d in subdirectories)


def _tool_modules() -> Iterator[str]:
    for directory in _tool_directories():
        with os.scandir(directory) as entries:
            yield from sorted(e.path for e in entries if e.name.endswith(".py"))


def _stat(path: str) -> list[Any]:
    try:
        st = os.stat(path)
    except OSError:
        return ["missing"]
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _decode_findings(stored: Any) -> list[Finding] | None:
    """The recorded findings, or None; a clean record decodes nothing, so a clean run loads not even the
    findings model."""
    if stored == []:
        return []
    findings = _codec().decode(stored)
    from ppaux_lint.findings import Finding

    if not isinstance(findings, tuple) or not all(isinstance(f, Finding) for f in findings):
        return None
    return list(findings)


@functools.cache
def _codec() -> Codec:
    from ppaux_lint.codec import Codec
    from ppaux_lint.findings import Edit, Finding, Fix, Related
    from ppaux_lint.spans import Span

    return Codec([Finding, Fix, Edit, Related, Span])
