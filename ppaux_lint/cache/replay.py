"""A run that nothing has changed since the same command last ran replays that run's findings.

Editors and pre-commit hooks check one file or a few at a time, and most of those runs meet the project as
the last run of the same command left it. Such a run finds the project and loads its config, as every run does,
and then only compares the stat of each input the last run recorded with what is on disk now: no discovery walk, no
summary model, no index, no rule. When all match, it prints the findings (their fixes attached) and the
warnings stored with them. This module is the record; ``check`` (``cli/checking.py``) reads and writes it
through the cache's owner (``owner.py``), which also hands the stats the record took to the scan cache.

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
import re
import sys
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ppaux_lint import __version__
from ppaux_lint.cache.scan_index import STAMP, Stamp, stamp
from ppaux_lint.project.excludes import GITIGNORE
from ppaux_lint.project.layout import PYPROJECT
from ppaux_lint.project.loading import Options, Project
from ppaux_lint.support.fileio import atomic_write, read_regular_file

if TYPE_CHECKING:
    from ppaux_lint.cache.codec import Codec
    from ppaux_lint.facts.findings import Finding
    from ppaux_lint.project.discover import Discovery

_PACKAGE = Path(__file__).resolve().parents[1]  # ppaux_lint/, all of whose modules the record stamps
_RECORD_FORMAT = 3
RUNS = "runs"  # the records' directory within the cache
RECORD = re.compile(r"[0-9a-f]{8}\.json")  # a record's name, its command's CRC-32: what clean.py removes there
_MISSING = b"\xff" * STAMP.size  # no stat can pack to this: its size and inode would both be 2**64 - 1
_UNSTATED = b"\xfe" * STAMP.size  # nor to this, nor is it _MISSING: a file recorded so never matches


class Run(NamedTuple):
    """What a run reported: its findings (with their fixes), discovery's warnings, how many files were asked
    about, and how many of their classes could not be judged (``ClassInfo.could_not_be_judged``)."""

    findings: list[Finding]
    warnings: tuple[str, ...]
    files_checked: int
    unjudged: int = 0


class Record:
    """The last run of one command in this project: its inputs with their stat, and what it reported. It lives
    in ``directory`` (``<base>/runs/``), which the cache's owner makes before the inputs are stat."""

    def __init__(self, base: Path, project: Project, options: Options, given: list[Path]) -> None:
        self._command = repr((_RECORD_FORMAT, __version__, sys.version, os.getcwd(), [str(p) for p in given],
                              options.config_path, options.select, options.ignore, options.extend_select,
                              options.extend_ignore, options.exclude,
                              options.force_exclude, options.prefilter, project))
        name = f"{zlib.crc32(self._command.encode('utf-8', 'surrogateescape')):08x}"  # a clash only costs a miss
        self.directory = base / RUNS
        self._path = self.directory / f"{name}.json"  # named as RECORD says
        self._given = given
        self._config_path = options.config_path
        self._stats: dict[str, bytes] = {}
        self._inputs: list[str] = []
        self._deferred: set[str] = set()
        self._root = str(project.root).rstrip(os.sep) + os.sep

    def read(self) -> Run | None:
        """The recorded run, if it was this command's and every input is as it recorded it. A repository may commit
        a cache: a record that lists no input would match any tree and replay its findings (none) whatever the code
        becomes, so a record must list what every record this code writes lists, ppaux-lint's own directory and the
        project root, whose stat (inode, ctime) a record made on another machine cannot match."""
        try:
            data = json.loads(read_regular_file(self._path))
            if not isinstance(data, dict) or data.get("command") != self._command:
                return None
            paths, warnings, count, unjudged = data["paths"], data["warnings"], data["files_checked"], \
                data["unjudged"]
            stats = memoryview(binascii.a2b_base64(data["stats"]))
            size = STAMP.size
            if not (isinstance(paths, list) and all(isinstance(p, str) for p in paths)
                    and len(stats) == size * len(paths)):
                return None
            if not {str(_PACKAGE), self._root.rstrip(os.sep)}.issubset(map(self._absolute, paths)):
                return None  # not a record this code wrote: every one lists these (see ``_tool_files``)
            for number, path in enumerate(paths):
                if stats[number * size:(number + 1) * size] != self._stat(self._absolute(path)):
                    return None
            findings = _decode_findings(data["findings"])
        except (OSError, ValueError, RecursionError, KeyError, TypeError, binascii.Error):
            return None
        if findings is None or type(count) is not int or type(unjudged) is not int or not (
                isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
            return None
        return Run(findings, tuple(warnings), count, unjudged)

    def stat_inputs(self, discovery: Discovery, scanned_first: bool = False) -> None:
        """Stat every input of the run now, before the analysis reads anything: a file that changes while it
        runs then fails the next replay, instead of the record pairing its new stat with findings about its
        old text. ``directory`` must exist by then, since making the cache changes the stat of the directory
        that holds it (the project root).

        ``scanned_first``: the first thing to read each discovered file is the prefilter's scan, and it stats
        the file as it opens it (``note``), before reading it: that stat serves here, and the main process
        does not take another (a third of a cold check's own work on SGLang's tree). A discovered file the
        scan could not stat is recorded as never matching, so its next run does not replay."""
        self._inputs = _inputs(discovery, self._given, self._config_path)
        self._deferred = {f.path for f in discovery.files} if scanned_first else set()
        for path in self._inputs:
            if path not in self._deferred:
                self._stat(path)

    def defers(self, path: str) -> bool:
        """Whether ``path``'s stat is left to the scan that reads it (``stat_inputs``), and not taken yet."""
        return path in self._deferred and path not in self._stats

    def note(self, path: str, packed: Stamp) -> None:
        """The stat the scan took of a file as it opened it, before reading it."""
        if self.defers(path):
            self._stats[path] = packed

    def _stat(self, path: str) -> bytes:
        """``path``'s stat, taken once per run: a miss has stat the inputs it compared already, and all of
        them were taken before the analysis, which is when the record needs them (see ``stat_inputs``)."""
        if path not in self._stats:
            self._stats[path] = _stat(path)
        return self._stats[path]

    def stamps(self) -> Mapping[str, Stamp]:
        """The stats taken, as the scan cache knows a file."""
        return _Stamps(self._stats)

    def _relative(self, path: str) -> str:
        """Paths under the project root are kept relative to it: most of a record is paths."""
        return path[len(self._root):] if path.startswith(self._root) else path

    def _absolute(self, path: str) -> str:
        return path if os.path.isabs(path) else self._root + path

    def write(self, run: Run) -> None:
        """Record ``run`` with the inputs ``stat_inputs`` stat, each with the stat it had then; nothing when
        they were not."""
        if not self._inputs:
            return
        from ppaux_lint.cache.codec import encode

        record = {"command": self._command, "paths": [self._relative(path) for path in self._inputs],
                  "stats": binascii.b2a_base64(b"".join(self._stats.get(path, _UNSTATED) for path in self._inputs),
                                               newline=False).decode(),
                  "warnings": list(run.warnings), "files_checked": run.files_checked, "unjudged": run.unjudged,
                  "findings": encode(run.findings)}
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

    def get(self, path: str, default: Stamp | None = None) -> Stamp | None:
        """Mapping's, in one call: the scan asks once per file and round (half a million times at 50,000 files)."""
        packed = self._stats.get(path)
        return default if packed is None or packed == _MISSING else packed

    def __iter__(self) -> Iterator[str]:
        return (path for path, packed in self._stats.items() if packed != _MISSING)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _inputs(discovery: Discovery, given: list[Path], config_path: Path | None) -> list[str]:
    """Every path whose stat the run's findings depend on (see the module docstring)."""
    root = str(discovery.root)
    directories: set[str] = set(discovery.looked_in)
    climbed: set[str] = set()
    for start in (*discovery.looked_in, *(os.path.abspath(p) for p in given)):
        for directory in _ancestors_within(start, root):
            if directory in climbed:
                break  # and so are its ancestors, climbed from it before
            climbed.add(directory)
    directories |= climbed
    # Only those that exist: one that appears changes its directory's stat, which is recorded already.
    named = [path for d in sorted(directories) for name in (PYPROJECT, GITIGNORE)
             if os.path.lexists(path := os.path.join(d, name))]
    explicit = [os.path.abspath(config_path)] if config_path else []
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
