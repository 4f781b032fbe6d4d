"""A small tree's files are read once per run, however many rounds the prefilter's fixpoint takes: a scan in
this process keeps the bytes of the files it found nothing in (up to ``store.KEEP_BYTES``), and the next
rounds search those bytes. What a round finds in them is remembered in the scan index as a read would be.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

import ppaux_lint.cache.store as store

from ._support import AUX, by_file, run, write_tree


def _project(root: Path) -> Path:
    """Three rounds: the base names the protocol, its subclass names only the base, and the leaf only the
    subclass; plus files that never match."""
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": f"from {AUX} import DeviceAuxiliaryOutput\n\n\nclass Base(DeviceAuxiliaryOutput):\n    pass\n",
        "pkg/middle.py": "from pkg.base import Base\n\n\nclass Middle(Base):\n    pass\n",
        "pkg/leaf.py": "from pkg.middle import Middle\n\n\nclass Leaf(Middle):\n    pass\n",
    }
    files.update({f"pkg/plain{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)})
    return write_tree(root, files)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()
    read = store._read

    def counted(path: str):
        counts[Path(path).name] += 1
        return read(path)

    monkeypatch.setattr(store, "_read", counted)
    return counts


EXPECTED = {"pkg/leaf.py": {"PPA001"}}  # the bases only ever make the leaf: judged through it


@pytest.mark.parametrize("no_cache", [True, False])
def test_each_file_of_a_small_tree_is_read_once(tmp_path: Path, reads: Counter[str], no_cache: bool) -> None:
    root = _project(tmp_path / "proj")
    assert by_file(run(root, no_cache=no_cache).findings, root) == EXPECTED
    assert max(reads.values()) == 1, reads
    assert reads["plain0.py"] == 1 and reads["leaf.py"] == 1


def test_what_later_rounds_find_in_kept_bytes_is_remembered(tmp_path: Path, reads: Counter[str]) -> None:
    """After a cold run, a run with one file edited reads that file and the files it summarizes (to key their
    cached summaries) alone: every other file's scan for every round's tokens is in the scan index, though the
    later rounds searched kept bytes."""
    root = _project(tmp_path / "proj")
    run(root)
    with (root / "pkg/plain3.py").open("a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    reads.clear()
    assert by_file(run(root).findings, root) == EXPECTED
    assert set(reads) - {"base.py", "middle.py", "leaf.py"} <= {"plain3.py"}, reads  # the hits are summarized


def test_no_bytes_are_kept_past_the_budget(tmp_path: Path, reads: Counter[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "KEEP_BYTES", 0)
    root = _project(tmp_path / "proj")
    assert by_file(run(root, no_cache=True).findings, root) == EXPECTED
    assert reads["plain0.py"] > 1  # read again by each round: what the budget spares


def test_workers_read_a_file_for_two_rounds_at_most(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large tree's rounds are scanned in workers. From the second round on each keeps the misses it read
    (``store._Held``) and the store sends it those files again, so the third round (the lookahead's search)
    and later ones read nothing; the first keeps nothing, since most trees need no second. The reads are logged
    to a file, since they happen in the workers (forked after the patch)."""
    monkeypatch.setattr(store, "PARALLEL_MIN_SCAN", 1)
    log = tmp_path / "reads.log"
    read = store._read

    def logged(path: str):
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{Path(path).name}\n")
        return read(path)

    monkeypatch.setattr(store, "_read", logged)
    root = _project(tmp_path / "proj")
    assert by_file(run(root, no_cache=True).findings, root) == EXPECTED
    reads = Counter(log.read_text(encoding="utf-8").split())
    assert reads["plain0.py"] == 2 and reads["leaf.py"] == 2, reads  # three rounds searched them
    assert max(reads.values()) == 2, reads


def test_the_process_that_owns_the_run_holds_nothing(tmp_path: Path, reads: Counter[str]) -> None:
    """``_scan_paths`` holds what it reads only in a worker: in the process that sent the task (the fallback
    when no worker can start) nothing outlives the call."""
    root = _project(tmp_path / "proj")
    paths = [str(root / f"pkg/plain{i}.py") for i in range(5)]
    for _ in range(2):
        store._scan_paths(paths, frozenset({"Base"}), False, None, hold=os.getpid())
    assert reads["plain0.py"] == 2 and not store._HELD.files
