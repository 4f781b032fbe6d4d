"""A run that nothing has changed since the same command last ran replays that run's findings.

Editors and pre-commit hooks check one file or a few at a time, and most of those runs meet the project as
the last run of the same command left it. Such a run finds the project and loads its config, as every run does,
and then only compares the stat of each input the last run recorded with what is on disk now: no discovery walk, no
summary model, no index, no rule. When all match, it prints the findings (their fixes attached) and the
warnings stored with them.

The record, one per command in the cache directory, names the command (the working directory, the paths, the
options that change what is found, ppaux-lint's and the interpreter's versions, the project and its root
config) and lists every input with its stamp (size, mtime, ctime, inode, or its absence; packed in 32 bytes,
since at 50,000 files a list of numbers per input held 22 MiB through the analysis), the one the prefilter's
scan cache keys on (``scan_index.py`` says why mtime and size alone are not enough):

- every directory discovery looked into, and each of their ancestors within the project: a file added,
  removed or renamed there (a new module, an ``__init__.py``, a ``.git``) changes the directory's own stat;
- the ``pyproject.toml`` and ``.gitignore`` of each of those directories that has one (one that appears
  changes its directory's stat), and ``--config``'s file: all that discovery and the configs read;
- every file discovered, and ppaux-lint's own modules and their directories (an edited checkout finds other
  things under the same version).

A file rewritten within the same clock tick at the same size, with the same inode, is missed here as in the
prefilter's scan cache. Runs with ``--no-cache`` or with overlays (standard input, an editor's buffers)
neither replay nor record; ``--fix`` and ``--diff`` need the analysis itself, so they never come here. A
record that cannot be read back exactly is a miss, and one that cannot be written leaves the run as it was.
"""

from __future__ import annotations

import binascii
import functools
import json
import os
import sys
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ppaux_lint import __version__
from ppaux_lint.cache.directory import cache_directory, prepare
from ppaux_lint.cache.scan_index import STAMP, Stamp, stamp
from ppaux_lint.project.excludes import GITIGNORE
from ppaux_lint.project.layout import PYPROJECT
from ppaux_lint.project.loading import Options, Project, asked, discover_files, load_project
from ppaux_lint.support.fileio import atomic_write, read_regular_file

if TYPE_CHECKING:
    from ppaux_lint.cache.codec import Codec
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.project.discover import Discovery

_PACKAGE = Path(__file__).resolve().parents[1]  # ppaux_lint/, all of whose modules the record stamps
_RECORD_FORMAT = 2
_MISSING = b"\xff" * STAMP.size  # no stat can pack to this: its size and inode would both be 2**64 - 1


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
    from ppaux_lint.check.engine import analyze

    discovery = discover_files(given, options, project)
    # Stat before the analysis reads anything: a file that changes while it runs then fails the next replay,
    # instead of the record pairing its new stat with findings about its old text. The cache directory is
    # made first, since making it changes the stat of the directory that holds it (the project root).
    inputs = record.stat_all(_inputs(discovery, given, options)) if record is not None and record.prepare() else []
    stamps = record.stamps() if record is not None and inputs else None
    checked = _checked(analyze(given, options, project, discovery, stamps), discovery)
    if record is not None and inputs:
        record.write(checked, inputs)  # with the analysis gone: the record's encoding adds nothing to the peak
    return checked


def _checked(analysis, discovery: Discovery) -> Checked:
    """What ``check`` reports of ``analysis``, which its caller then no longer holds."""
    return Checked(with_fixes(analysis), discovery.warnings, len(discovery.targets), dict(analysis.overlays))


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
        self._stats: dict[str, bytes] = {}
        self._root = str(project.root).rstrip(os.sep) + os.sep

    def read(self) -> Checked | None:
        """The recorded run, if it was this command's and every input is as it recorded it."""
        try:
            data = json.loads(read_regular_file(self._path))
            if not isinstance(data, dict) or data.get("command") != self._command:
                return None
            paths, warnings, count = data["paths"], data["warnings"], data["files_checked"]
            stats = memoryview(binascii.a2b_base64(data["stats"]))
            size = STAMP.size
            if not (isinstance(paths, list) and all(isinstance(p, str) for p in paths)
                    and len(stats) == size * len(paths)):
                return None
            for number, path in enumerate(paths):
                if stats[number * size:(number + 1) * size] != self.stat(self._absolute(path)):
                    return None
            findings = _decode_findings(data["findings"])
        except (OSError, ValueError, RecursionError, KeyError, TypeError, binascii.Error):
            return None
        if findings is None or not isinstance(count, int) or not (
                isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
            return None
        return Checked(findings, tuple(warnings), count, replayed=True)

    def stat(self, path: str) -> bytes:
        """``path``'s stat, taken once per run: a miss has stat the inputs it compared already, and all of
        them were taken before the analysis, which is when the record needs them (see ``check_project``)."""
        if path not in self._stats:
            self._stats[path] = _stat(path)
        return self._stats[path]

    def stat_all(self, paths: list[str]) -> list[str]:
        """``paths``, each stat now (see ``stat``)."""
        for path in paths:
            self.stat(path)
        return paths

    def stamps(self) -> Mapping[str, Stamp]:
        """The stats taken, as the scan cache knows a file."""
        return _Stamps(self._stats)

    def _relative(self, path: str) -> str:
        """Paths under the project root are kept relative to it: most of a record is paths."""
        return path[len(self._root):] if path.startswith(self._root) else path

    def _absolute(self, path: str) -> str:
        return path if os.path.isabs(path) else self._root + path

    def prepare(self) -> bool:
        """Make the record's directory (and the cache's markers); False when the cache cannot be written."""
        return prepare(self._base, self._path.parent)

    def write(self, checked: Checked, inputs: list[str]) -> None:
        """Record ``checked`` with ``inputs``, each with the stat it had before the analysis began."""
        from ppaux_lint.cache.codec import encode

        record = {"command": self._command, "paths": [self._relative(path) for path in inputs],
                  "stats": binascii.b2a_base64(b"".join(self._stats[path] for path in inputs), newline=False).decode(),
                  "warnings": list(checked.warnings), "files_checked": checked.files_checked,
                  "findings": encode(checked.findings)}
        atomic_write(self._path, json.dumps(record, separators=(",", ":")).encode())


class _Stamps(Mapping):
    """The record's stats seen as the scan cache's stamps (the same bytes), without the missing ones."""

    def __init__(self, stats: dict[str, bytes]) -> None:
        self._stats = stats

    def __getitem__(self, path: str) -> Stamp:
        packed = self._stats[path]
        if packed == _MISSING:
            raise KeyError(path)
        return packed

    def __iter__(self) -> Iterator[str]:
        return (path for path, packed in self._stats.items() if packed != _MISSING)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _inputs(discovery: Discovery, given: list[Path], options: Options) -> list[str]:
    """Every path whose stat the run's findings depend on (see the module docstring)."""
    root = str(discovery.root)
    directories: set[str] = set(discovery.looked_in)
    for start in (*discovery.looked_in, *(os.path.abspath(p) for p in given)):
        directories.update(_ancestors_within(start, root))
    # Only those that exist: one that appears changes its directory's stat, which is recorded already.
    named = [path for d in sorted(directories) for name in (PYPROJECT, GITIGNORE)
             if os.path.lexists(path := os.path.join(d, name))]
    explicit = [os.path.abspath(options.config_path)] if options.config_path else []
    # The files first: an edit is the likeliest change, and a replay stops at the first input that differs.
    return [*(f.path for f in discovery.files), *named, *explicit, *sorted(directories), *_tool_files()]


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


@functools.cache
def _tool_files() -> tuple[str, ...]:
    """ppaux-lint's own directories and modules (the same for the whole process)."""
    directories, modules = [str(_PACKAGE)], []
    for directory, subdirectories, files in os.walk(_PACKAGE):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        directories.extend(os.path.join(directory, d) for d in subdirectories)
        modules.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))
    return (*directories, *modules)


def _stat(path: str) -> bytes:
    try:
        return stamp(os.stat(path))
    except OSError:
        return _MISSING


def _decode_findings(stored: Any) -> list[Finding] | None:
    """The recorded findings, or None; a clean record decodes nothing, so a clean run loads not even the
    findings model."""
    if stored == []:
        return []
    findings = _codec().decode(stored)
    from ppaux_lint.facts.findings import Finding

    if not isinstance(findings, tuple) or not all(isinstance(f, Finding) for f in findings):
        return None
    return list(findings)


@functools.cache
def _codec() -> Codec:
    from ppaux_lint.cache.codec import Codec
    from ppaux_lint.facts.findings import Edit, Finding, Fix, Related
    from ppaux_lint.facts.spans import Span

    return Codec([Finding, Fix, Edit, Related, Span])
