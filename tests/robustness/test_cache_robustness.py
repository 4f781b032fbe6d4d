"""Whatever the cache directory holds, results equal those of ``--no-cache``; concurrent runs agree.

The project is a copy of the sample plugin, so the cache holds realistic
summaries. Every test first computes the reference without a cache, then
damages the cache in some way and checks the run against that reference,
twice: once over the damage, once over what that run wrote back. Each runs
over both ways the entries are kept (``layout``): one pack, as a cold run of
many files writes them, and a file each, as a run of a few does.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import ppaux_lint.support.fileio as fileio
from ppaux_lint import __version__
from ppaux_lint.cache import codec
from ppaux_lint.cache import summaries as summaries_module
from ppaux_lint.cache.directory import CACHE_DIR_NAME
from ppaux_lint.cache.packs import PACK, pack_bytes
from ppaux_lint.cache.scan_index import RESCAN_COST
from ppaux_lint.cache.summaries import summary_codec
from ppaux_lint.facts.summary import SUMMARY_FORMAT, FileSummary
from ppaux_lint.support.errors import UsageError

from ._support import BROKEN_OUTPUT, by_file, chdir, cli, console, copy_fixture, key, run, write_tree


@pytest.fixture(params=["pack", "files"])
def layout(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the runs in this process keep their entries: one pack (the sample plugin's are enough for one), or
    a file each (as a run that summarizes fewer files writes them)."""
    if request.param == "files":
        monkeypatch.setattr(summaries_module, "PACK_MIN", 10**9)
    return request.param


@pytest.fixture
def project(tmp_path: Path, layout: str) -> Path:
    return copy_fixture("sample_plugin", tmp_path)


def _reference(root: Path) -> list[tuple]:
    return key(run(root, no_cache=True).findings)


def _cache_dir(root: Path) -> Path:
    return root / CACHE_DIR_NAME / f"{__version__}-{SUMMARY_FORMAT}"


def _entries(root: Path) -> list[Path]:
    """The files that hold entries: a file each, and packs."""
    return sorted([*(_cache_dir(root) / "summaries").glob("*.json"),
                   *(p for p in (_cache_dir(root) / "packs").glob("*") if PACK.fullmatch(p.name))])


def _records(path: Path) -> dict[str, bytes]:
    """key -> entry, of an entry's file or of a pack (read as the test's own parser reads one)."""
    raw = path.read_bytes()
    if not path.name.endswith(".pack"):
        return {path.stem: raw}
    head_end = raw.index(b"\n", raw.index(b"\n") + 1) + 1
    length = int(raw[raw.index(b"\n") + 1:head_end - 1])
    index = json.loads(raw[head_end:head_end + length])
    base = head_end + length
    return {k: raw[base + offset:base + offset + size] for k, (offset, size) in index.items()}


def _write_records(path: Path, records: dict[str, bytes]) -> None:
    """Put ``records`` back where ``_records`` read them from, in the same form."""
    if path.name.endswith(".pack"):
        path.write_bytes(pack_bytes(records))
    else:
        (raw,) = records.values()
        path.write_bytes(raw)


def _warm(root: Path) -> list[tuple]:
    findings = key(run(root).findings)
    assert _entries(root), "the run should have written a cache"
    assert (_cache_dir(root) / "scan.json").is_file()
    return findings


def _check_after(root: Path, expected: list[tuple], damage: Callable[[], None]) -> None:
    _warm(root)
    damage()
    assert key(run(root).findings) == expected  # over the damage
    assert key(run(root).findings) == expected  # over what that run wrote back


class Marker:
    """Unpickling this would run a command: the cache must never unpickle."""

    path = ""

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def _rewrite_all(root: Path, content: Callable[[Path, bytes], bytes]) -> Callable[[], None]:
    """Every entry (each inside its pack, which stays a whole pack) and the scan index, made ``content``."""
    def damage() -> None:
        for path in _entries(root):
            _write_records(path, {k: content(Path(f"{k}.json"), raw) for k, raw in _records(path).items()})
        scan = _cache_dir(root) / "scan.json"
        scan.write_bytes(content(scan, scan.read_bytes()))
    return damage


GARBAGE: dict[str, Callable[[Path, bytes], bytes]] = {
    "empty": lambda p, b: b"",
    "truncated_half": lambda p, b: b[: len(b) // 2],
    "truncated_one_byte": lambda p, b: b[:-1],
    "random_bytes": lambda p, b: os.urandom(len(b)),
    "flipped_bytes": lambda p, b: bytes(c ^ 0x20 if i % 7 == 3 else c for i, c in enumerate(b)),
    "nul_bytes": lambda p, b: b"\x00" * len(b),
    "invalid_utf8": lambda p, b: b"\xff\xfe" + b,
    "json_null": lambda p, b: b"null",
    "json_list": lambda p, b: b"[]",
    "json_string": lambda p, b: b'"FileSummary"',
    "json_number": lambda p, b: b"1e999999",
    "json_huge_int": lambda p, b: b"9" * 100_000,
    "json_nan": lambda p, b: b"NaN",
    "json_deep": lambda p, b: b"[" * 200_000 + b"]" * 200_000,
    "json_empty_object": lambda p, b: b"{}",
    "foreign_record_type": lambda p, b: json.dumps({"!": "os.system", "command": "touch /tmp/x"}).encode(),
    "foreign_record_builtin": lambda p, b: json.dumps({"!": "__import__", "name": "os"}).encode(),
    "unknown_field": lambda p, b: json.dumps({**json.loads(b), "surprise": 1}).encode(),
    "missing_field": lambda p, b: json.dumps({k: v for k, v in json.loads(b).items() if k != "path"}).encode(),
    "other_format": lambda p, b: json.dumps({**json.loads(b), "format": SUMMARY_FORMAT + 1}).encode(),
}


def _wrong_types(raw: bytes) -> bytes:
    """Valid JSON, valid record names, wrong field types: strings for ints, records where strings belong."""
    def walk(value):
        if isinstance(value, dict):
            out = {k: walk(v) for k, v in value.items()}
            if out.get("!") == "Span":
                out["line"] = "1"
            if out.get("!") == "ClassSummary":
                out["bases"] = {"!": "Span", "line": 1, "column": 1, "end_line": 1, "end_column": 1}
            if out.get("!") == "FileSummary":
                out["classes"] = out.get("classes") or "not a tuple"
            return out
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value
    return json.dumps(walk(json.loads(raw))).encode()


@pytest.mark.parametrize("kind", sorted(GARBAGE))
def test_damaged_cache_files(project: Path, kind: str) -> None:
    expected = _reference(project)

    def content(path: Path, raw: bytes) -> bytes:
        if path.name == "scan.json" and kind in ("unknown_field", "missing_field", "other_format"):
            return raw
        return GARBAGE[kind](path, raw)

    _check_after(project, expected, _rewrite_all(project, content))


def test_well_formed_records_of_the_wrong_types(project: Path) -> None:
    expected = _reference(project)
    _check_after(project, expected, _rewrite_all(project, lambda p, b: b if p.name == "scan.json" else _wrong_types(b)))


def test_entries_swapped_between_files(project: Path) -> None:
    """Valid summaries, but each filed under another file's key (a cache mixed up by hand or by a tool)."""
    expected = _reference(project)

    def damage() -> None:
        records = {k: raw for path in _entries(project) for k, raw in _records(path).items()}
        contents = list(records.values())
        swapped = dict(zip(records, contents[1:] + contents[:1], strict=True))
        for path in _entries(project):
            _write_records(path, {k: swapped[k] for k in _records(path)})
    _check_after(project, expected, damage)


@pytest.mark.parametrize("kind", sorted(k for k in GARBAGE if k not in ("unknown_field", "missing_field",
                                                                          "other_format")))
def test_damaged_packs(tmp_path: Path, kind: str) -> None:
    """A pack's own bytes damaged, its header and index with them: every entry it held is a miss."""
    project = copy_fixture("sample_plugin", tmp_path)
    expected = _reference(project)

    def damage() -> None:
        assert [p.suffix for p in _entries(project)] == [".pack"]  # the sample plugin's entries make one pack
        for path in _entries(project):
            path.write_bytes(GARBAGE[kind](path, path.read_bytes()))
    _check_after(project, expected, damage)


def test_a_pickle_bomb_in_the_cache_is_never_unpickled(project: Path, tmp_path: Path) -> None:
    expected = _reference(project)
    marker = tmp_path / "unpickled"
    Marker.path = str(marker)
    bomb = pickle.dumps(Marker())
    _check_after(project, expected, _rewrite_all(project, lambda p, b: bomb))
    for name in ("cache.pkl", "scan.pickle", "summaries.pkl"):
        (_cache_dir(project) / name).write_bytes(bomb)
    assert key(run(project).findings) == expected
    assert not marker.exists()


@pytest.mark.parametrize("scan", [
    [], {"files": []}, {"files": "x"}, {"files": {"a": 1}}, {"files": None}, "text",
])
def test_foreign_scan_files(project: Path, scan) -> None:
    expected = _reference(project)
    _check_after(project, expected, lambda: (_cache_dir(project) / "scan.json").write_text(json.dumps(scan)))


def test_scan_records_with_the_right_stat_but_junk_inside(project: Path) -> None:
    """A record that matches a file's stat (mtime, size, ctime, inode), so it is trusted, but holds junk."""
    expected = _reference(project)

    def damage() -> None:
        path = _cache_dir(project) / "scan.json"
        data = json.loads(path.read_text())
        for name, record in data["files"].items():
            data["files"][name] = [*record[:4], [[1], {"a": 2}], [None, [3]]]
        path.write_text(json.dumps(data))
    _check_after(project, expected, damage)


def test_caches_of_other_versions_are_ignored(project: Path) -> None:
    expected = _reference(project)
    _warm(project)
    current = _cache_dir(project)
    for other in (f"0.0.1-{SUMMARY_FORMAT}", f"{__version__}-{SUMMARY_FORMAT + 1}", f"{__version__}-0", "junk"):
        target = current.parent / other
        for entry in _entries(project):  # same keys, poisoned content: read only if the version check fails
            inner = target / entry.parent.name
            inner.mkdir(parents=True, exist_ok=True)
            _write_records(inner / entry.name, {k: json.dumps({"!": "FileSummary", "path": 3}).encode()
                                                for k in _records(entry)})
        (target / "scan.json").write_text(json.dumps({"files": {}}))
    for entry in _entries(project):  # entries a future format would write, under today's directory
        _write_records(entry, {k: json.dumps({**json.loads(raw), "format": SUMMARY_FORMAT + 1}).encode()
                               for k, raw in _records(entry).items()})
    assert key(run(project).findings) == expected


@pytest.mark.parametrize("what", ["cache_root_is_a_file", "version_dir_is_a_file", "summaries_is_a_file",
                                  "packs_is_a_file",
                                  "entries_are_directories", "entries_are_fifos", "scan_is_a_fifo",
                                  "entries_are_dangling_symlinks", "entries_are_symlink_loops"])
def test_cache_paths_of_the_wrong_kind(project: Path, what: str) -> None:
    expected = _reference(project)
    _warm(project)
    current = _cache_dir(project)
    entries = _entries(project)
    if what == "cache_root_is_a_file":
        _rmtree(project / CACHE_DIR_NAME)
        (project / CACHE_DIR_NAME).write_text("not a directory")
    elif what == "version_dir_is_a_file":
        _rmtree(current)
        current.write_text("not a directory")
    elif what in ("summaries_is_a_file", "packs_is_a_file"):
        inner = current / what.removesuffix("_is_a_file")
        _rmtree(inner)
        inner.write_text("not a directory")
    for entry in entries:
        if what == "entries_are_directories":
            entry.unlink()
            entry.mkdir()
        elif what == "entries_are_fifos":
            entry.unlink()
            os.mkfifo(entry)
        elif what == "entries_are_dangling_symlinks":
            entry.unlink()
            entry.symlink_to(entry.with_suffix(".missing"))
        elif what == "entries_are_symlink_loops":
            entry.unlink()
            entry.symlink_to(entry)
    if what == "scan_is_a_fifo":
        (current / "scan.json").unlink()
        os.mkfifo(current / "scan.json")
    result = subprocess.run([*console(), "check", "--output-format", "json", "."], cwd=project, capture_output=True,
                            text=True, timeout=60)  # a blocking read would show as a timeout, not a hang
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert key(run(project).findings) == expected


def test_a_cache_dir_that_cannot_be_created(project: Path) -> None:
    expected = _reference(project)
    for directory in (Path("/proc/ppaux-lint-cache"), Path("/proc/self/ppaux/cache")):
        assert key(run(project, cache_dir=directory).findings) == expected


def test_a_cache_dir_setting_that_names_no_directory_is_refused(project: Path) -> None:
    """A file or a device named as the cache could never hold it: a usage error naming the setting, as the
    command line's own check of ``--cache-dir`` refuses a file (a file at the default place is a slow run:
    ``test_cache_paths_of_the_wrong_kind``)."""
    for directory in (project / "pyproject.toml", Path(os.devnull)):
        with pytest.raises(UsageError, match="is not a directory"):
            run(project, cache_dir=directory)


def test_a_read_only_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root ignores chmod, so the denial is simulated where the cache writes."""
    expected = _reference(project)
    _warm(project)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileio, "create_temporary", denied)  # where every write of the cache starts
    assert key(run(project).findings) == expected  # warm, read-only
    _rmtree(project / CACHE_DIR_NAME)
    assert key(run(project).findings) == expected  # cold, cannot write
    monkeypatch.undo()
    monkeypatch.setattr(fileio.os, "replace", denied)
    assert key(run(project).findings) == expected  # the rename fails: temporary files are removed
    assert not list((project / CACHE_DIR_NAME).rglob("*.tmp"))


def test_two_runs_at_once_agree_and_leave_a_readable_cache(project: Path) -> None:
    expected_json = cli(["check", "--no-cache", "--output-format", "json", "."], project)
    assert expected_json.returncode == 1
    command = [*console(), "check", "--output-format", "json", "."]
    for round_number in range(4):
        if round_number in (0, 2):
            _rmtree(project / CACHE_DIR_NAME)  # rounds 0 and 2 race on a cold cache, 1 and 3 on a warm one
        runs = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(3)]
        outputs = [r.communicate(timeout=120) for r in runs]
        for process, (stdout, stderr) in zip(runs, outputs, strict=True):
            assert process.returncode == 1, stderr
            assert json.loads(stdout) == json.loads(expected_json.stdout)
    entries = _entries(project)
    assert entries and not list((project / CACHE_DIR_NAME).rglob("*.tmp"))
    for entry in entries:
        for raw in _records(entry).values():
            summary = summary_codec().decode(json.loads(raw))
            assert isinstance(summary, FileSummary) and summary.format == SUMMARY_FORMAT, entry
    assert json.loads((_cache_dir(project) / "scan.json").read_text())["files"]
    with chdir(project):
        assert key(run(project).findings) == _reference(project)


FIXED_OUTPUT = "# the output moved out of this module\n"


def test_the_scan_index_is_rewritten_only_when_what_it_learned_is_worth_it(tmp_path: Path) -> None:
    """Edits too few to pay for rewriting the index are scanned again by the next run instead; whether it was
    written or not, every run's findings follow the files as they are."""
    count = 2 * RESCAN_COST + 2  # one edit is too few to save for; half the files, enough
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "",
                                          **{f"pkg/m{i:02d}.py": BROKEN_OUTPUT for i in range(count)}})
    index = _cache_dir(root) / "scan.json"
    expected = {f"pkg/m{i:02d}.py": {"PPA001"} for i in range(count)}
    assert by_file(run(root).findings, root) == expected  # cold: everything learned, so it is written
    written = index.read_bytes()
    (root / "pkg/m00.py").write_text(FIXED_OUTPUT, encoding="utf-8")
    del expected["pkg/m00.py"]
    for _ in range(2):  # the second run scans m00 again, since the first did not remember it
        assert by_file(run(root).findings, root) == expected
        assert index.read_bytes() == written
    for i in range(1, count // 2 + 1):
        (root / f"pkg/m{i:02d}.py").write_text(FIXED_OUTPUT, encoding="utf-8")
        del expected[f"pkg/m{i:02d}.py"]
    assert by_file(run(root).findings, root) == expected
    assert index.read_bytes() != written
    stamps = json.loads(index.read_text())["files"]
    assert stamps[str(root / "pkg/m00.py")][1] == len(FIXED_OUTPUT)  # m00's edit is remembered with the rest
    assert by_file(run(root).findings, root) == expected


def test_codec_rejects_what_it_did_not_write() -> None:
    for value in ({"!": "os.system"}, {"!": "FileSummary", "path": 1, "module": "m", "is_package": False},
                  {"!": "Span", "line": True, "column": 1, "end_line": 1, "end_column": 1},
                  {"!": "Span", "line": 1.5, "column": 1, "end_line": 1, "end_column": 1},
                  {"!": "Span", "line": 1, "column": 1, "end_line": 1}, {"a": 1}, {"!": None}, {"!": ["x"]}):
        with pytest.raises(codec.DecodeError):
            summary_codec().decode(value)


def _rmtree(path: Path) -> None:
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
