"""Packs (``cache/packs.py``): a cold run's entries in one file, read back exactly, and never trusted blindly.

A run that makes many entries writes one pack instead of a file each (file creation was half a cold run of the
monorepo on a slow hour); a few entries are still a file each; too many packs are merged by the next run to
write one. Whatever a pack's bytes say, a lookup costs at most a miss.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ppaux_lint import __version__
from ppaux_lint.cache.directory import CACHE_DIR_NAME
from ppaux_lint.cache.packs import MAGIC, MAX_PACKS, MAX_READ, PACK, PACK_MIN, Packs, pack_bytes
from ppaux_lint.facts.summary import SUMMARY_FORMAT

from ._support import BROKEN_OUTPUT, by_file, cli, key, run, write_tree

FIXED = "# nothing here now\n"


def _version_dir(root: Path) -> Path:
    return root / CACHE_DIR_NAME / f"{__version__}-{SUMMARY_FORMAT}"


def _kept(root: Path) -> tuple[list[str], list[str]]:
    """The packs' names and the entry files' names, as the cache holds them now."""
    version = _version_dir(root)
    packs = sorted(p.name for p in (version / "packs").glob("*")) if (version / "packs").is_dir() else []
    files = sorted(p.name for p in (version / "summaries").glob("*")) if (version / "summaries").is_dir() else []
    return packs, files


def _project(root: Path, outputs: int) -> Path:
    return write_tree(root, {"pkg/__init__.py": "", **{f"pkg/m{i:02d}.py": BROKEN_OUTPUT for i in range(outputs)}})


def test_a_cold_run_of_many_files_writes_one_pack_and_reads_it_back(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", PACK_MIN + 4)
    expected = key(run(root, no_cache=True).findings)
    assert len(expected) == PACK_MIN + 4
    assert key(run(root).findings) == expected
    packs, files = _kept(root)
    assert len(packs) == 1 and PACK.fullmatch(packs[0]) and files == []  # one file, not one per summary
    for record in (root / CACHE_DIR_NAME / "runs").glob("*"):
        record.unlink()  # no replay: the summaries come from the pack
    assert key(run(root).findings) == expected
    assert _kept(root) == (packs, [])  # nothing was parsed, so nothing was written


def test_a_few_edits_are_written_a_file_each_and_read_with_the_pack(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", PACK_MIN + 4)
    run(root)
    packs, _ = _kept(root)
    (root / "pkg/m00.py").write_text(FIXED, encoding="utf-8")
    (root / "pkg/m01.py").write_text(BROKEN_OUTPUT + "\n# edited\n", encoding="utf-8")
    findings = by_file(run(root).findings, root)
    assert "pkg/m00.py" not in findings and findings["pkg/m01.py"] == {"PPA001"}
    assert findings == by_file(run(root, no_cache=True).findings, root)
    after, files = _kept(root)
    assert after == packs and len(files) == 1  # m01's summary (m00 holds no token now); the rest from the pack


def test_the_run_after_max_packs_merges_them_into_one(tmp_path: Path) -> None:
    directory = tmp_path / "packs"
    directory.mkdir()
    batches = [{f"{n:02d}{i:030d}": f'{{"n":{n},"i":{i}}}'.encode() for i in range(3)} for n in range(MAX_PACKS)]
    for batch in batches:
        Packs(directory).write(batch)
    assert len(list(directory.iterdir())) == MAX_PACKS
    Packs(directory).write({"f" * 32: b"new"})
    (merged,) = directory.iterdir()
    packs = Packs(directory)
    assert packs.get("f" * 32) == b"new"
    assert all(packs.get(k) == v for batch in batches for k, v in batch.items())
    assert PACK.fullmatch(merged.name)


def test_a_merge_keeps_the_newest_entries_up_to_its_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The packs a merge reads hold more than ``MERGE_BYTES``: the newest packs' entries are carried, the
    oldest dropped with their packs, so the cache stays bounded."""
    import ppaux_lint.cache.packs as packs_module

    directory = tmp_path / "packs"
    directory.mkdir()
    for n in range(MAX_PACKS):
        Packs(directory).write({f"{n:032d}": bytes([n]) * 100})
        os.utime(next(p for p in directory.iterdir() if f"{n:032d}".encode() in p.read_bytes()), (n, n))
    monkeypatch.setattr(packs_module, "MERGE_BYTES", 350)  # the new entry and the three newest packs' entries
    Packs(directory).write({"f" * 32: b"n" * 50})
    assert len(list(directory.iterdir())) == 1
    packs = Packs(directory)
    kept = {n for n in range(MAX_PACKS) if packs.get(f"{n:032d}") == bytes([n]) * 100}
    assert kept == {MAX_PACKS - 1, MAX_PACKS - 2, MAX_PACKS - 3} and packs.get("f" * 32) == b"n" * 50


def test_two_runs_merging_at_once_both_keep_everything(tmp_path: Path) -> None:
    directory = tmp_path / "packs"
    directory.mkdir()
    for n in range(MAX_PACKS):
        Packs(directory).write({f"{n:032d}": b"old %d" % n})
    first, second = Packs(directory), Packs(directory)
    assert first.get("0" * 32) == second.get("0" * 32) == b"old 0"  # both read every index before either writes
    first.write({"a" * 32: b"first"})
    second.write({"b" * 32: b"second"})  # what it merges is gone from the directory, but it holds them open
    assert len(list(directory.iterdir())) == 2
    reader = Packs(directory)
    assert reader.get("a" * 32) == b"first" and reader.get("b" * 32) == b"second"
    assert all(reader.get(f"{n:032d}") == b"old %d" % n for n in range(MAX_PACKS))


def test_a_pack_removed_after_its_index_was_read_still_answers(tmp_path: Path) -> None:
    directory = tmp_path / "packs"
    directory.mkdir()
    Packs(directory).write({"a" * 32: b"entry"})
    packs = Packs(directory)
    assert packs.get("0" * 32) is None  # the first lookup reads every index
    for path in directory.iterdir():
        path.unlink()  # a concurrent run's merge, or clean
    assert packs.get("a" * 32) == b"entry"


def _index(entries: dict[str, list]) -> bytes:
    head = json.dumps(entries).encode()
    return MAGIC + str(len(head)).zfill(16).encode() + b"\n" + head


HOSTILE = {
    "length_past_the_end": MAGIC + b"9" * 16 + b"\n{}",
    "length_not_digits": MAGIC + b"-000000000000001\n{}",
    "length_with_spaces": MAGIC + b"             2 \n{}",
    "no_newline_after_length": MAGIC + b"0000000000000002{}",
    "foreign_magic": b"ppaux-lint pack 9\n0000000000000002\n{}",
    "index_not_json": MAGIC + b"0000000000000002\n{x",
    "index_a_list": _index([]),  # type: ignore[arg-type]
    "index_deep": MAGIC + str(400_000).zfill(16).encode() + b"\n" + b"[" * 200_000 + b"]" * 200_000,
    "range_past_the_end": _index({"a" * 32: [0, 10]}) + b"short",
    "negative_offset": _index({"a" * 32: [-1, 2]}) + b"entry",
    "float_length": _index({"a" * 32: [0, 2.0]}) + b"entry",
    "bool_length": _index({"a" * 32: [0, True]}) + b"entry",
    "three_numbers": _index({"a" * 32: [0, 1, 2]}) + b"entry",
    "string_range": _index({"a" * 32: "0:5"}) + b"entry",
    "empty": b"",
    "magic_only": MAGIC,
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_pack_that_is_not_whole_holds_nothing(tmp_path: Path, kind: str) -> None:
    directory = tmp_path / "packs"
    directory.mkdir()
    (directory / ("0" * 32 + ".pack")).write_bytes(HOSTILE[kind])
    Packs(directory).write({"b" * 32: b"good"} | {f"{i:032d}": b"x" for i in range(3)})  # beside a good one
    packs = Packs(directory)
    assert packs.get("a" * 32) is None
    assert packs.get("b" * 32) == b"good"


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink_to_a_pack", "device"])
def test_a_pack_of_the_wrong_kind_is_never_read(tmp_path: Path, kind: str) -> None:
    """A FIFO named like a pack would block a read for ever: it is not opened for reading as a pack."""
    directory = tmp_path / "packs"
    directory.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    Packs(elsewhere).write({"a" * 32: b"linked"})
    planted = directory / ("1" * 32 + ".pack")
    if kind == "fifo":
        os.mkfifo(planted)
    elif kind == "directory":
        planted.mkdir()
    elif kind == "symlink_to_a_pack":
        planted.symlink_to(next(elsewhere.iterdir()))
    else:
        planted.symlink_to("/dev/zero")
    assert Packs(directory).get("a" * 32) is None


def test_pack_bytes_round_trip() -> None:
    entries = {f"{i:032x}": os.urandom(i * 7) for i in range(40)}
    data = pack_bytes(entries)
    assert data.startswith(MAGIC)
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        (Path(name) / ("c" * 32 + ".pack")).write_bytes(data)
        packs = Packs(Path(name))
        assert all(packs.get(k) == v for k, v in entries.items())


def test_clean_removes_packs_and_then_the_directory(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", PACK_MIN + 4)
    assert cli(["check", "."], root).returncode == 1
    assert _kept(root)[0]
    result = cli(["clean", "."], root)
    assert result.returncode == 0, result.stderr
    assert not (root / CACHE_DIR_NAME).exists()


def test_clean_keeps_a_file_in_packs_that_is_not_ppaux_lints(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", PACK_MIN + 4)
    assert cli(["check", "."], root).returncode == 1
    theirs = _version_dir(root) / "packs" / "notes.pack"
    theirs.write_text("mine", encoding="utf-8")
    result = cli(["clean", "."], root)
    assert theirs.read_text(encoding="utf-8") == "mine"
    assert [p.name for p in (_version_dir(root) / "packs").iterdir()] == ["notes.pack"]
    assert "notes.pack" in result.stderr + result.stdout


def test_a_directory_of_many_packs_has_only_its_newest_read(tmp_path: Path) -> None:
    """Runs leave a few packs; thousands did not come from them, and the first lookup reads a bounded number of
    indexes, the newest."""
    directory = tmp_path / "packs"
    directory.mkdir()
    count = MAX_READ + 8
    for n in range(count):
        path = directory / f"{n:032x}.pack"
        path.write_bytes(pack_bytes({f"{n:032d}": b"entry %d" % n}))
        os.utime(path, (1000 + n, 1000 + n))
    packs = Packs(directory)
    assert packs.get(f"{count - 1:032d}") == b"entry %d" % (count - 1)
    assert packs.get(f"{count - MAX_READ:032d}") is not None
    assert packs.get(f"{count - MAX_READ - 1:032d}") is None and packs.get(f"{0:032d}") is None


def test_packs_read_where_the_platform_has_no_pread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "packs"
    directory.mkdir()
    Packs(directory).write({f"{i:032d}": b"entry %d" % i for i in range(20)})
    monkeypatch.delattr(os, "pread")
    packs = Packs(directory)
    assert [packs.get(f"{i:032d}") for i in (19, 0, 7)] == [b"entry 19", b"entry 0", b"entry 7"]
