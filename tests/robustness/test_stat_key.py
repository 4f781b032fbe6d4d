"""The cache trusts a file's stat only where a changed file cannot keep it (issue 24, item 8).

``cp -p``, ``rsync -t``, ``touch -r`` and tarballs put an old mtime back on new content, often at the same
size. Each case checks a project with the cache on, makes a same-size edit that adds a finding to a file
that held no prefilter token, puts the old mtime back, and checks again: the finding must be there, through
the command (whose replayed run and scan index both see the edit) and through the engine alone (the scan
index on its own). An untouched file must still be answered from the index, or the key would cost every
warm run a read of the whole tree.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import ppaux_lint.cache.store as store
from ppaux_lint.cache.directory import CACHE_DIR_NAME

from ._support import by_file, cli, run, write_tree

# The same number of bytes: a misspelt method (no prefilter token, so the file is never parsed) becomes
# SGLang's call, which makes the class a structural output without `to_pp_tensors`: a PPA001.
BEFORE = "class Probe:\n    def copy_to_hist(self, copy_tensor):\n        return self\n"
AFTER = BEFORE.replace("copy_to_hist", "copy_to_host")
UNTOUCHED = "class Plain:\n    pass\n"


def _rewrite_in_place(path: Path, text: str) -> None:
    """An editor's save, then ``touch -r``: the same inode, the old mtime."""
    before = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _renamed_over(path: Path, text: str) -> None:
    """``rsync -t`` and tar: a new file with the old mtime, renamed over the old one."""
    before = path.stat()
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.utime(temporary, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(temporary, path)


def _copied_with_metadata(path: Path, text: str) -> None:
    """``cp -p`` from a copy that kept the old mtime: the same inode, its mtime copied."""
    source = path.with_name(f".{path.name}.orig")
    shutil.copy2(path, source)
    source.write_text(text, encoding="utf-8")
    os.utime(source, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    shutil.copy2(source, path)
    source.unlink()


EDITS: dict[str, Callable[[Path, str], None]] = {
    "rewritten in place": _rewrite_in_place,
    "renamed over": _renamed_over,
    "copied with cp -p": _copied_with_metadata,
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "proj", {"probe.py": BEFORE, "plain.py": UNTOUCHED})


def _edit(root: Path, how: str) -> None:
    path = root / "probe.py"
    mtime, size = path.stat().st_mtime_ns, path.stat().st_size
    EDITS[how](path, AFTER)
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (mtime, size)  # what an (mtime, size) key sees


def _command_codes(root: Path) -> dict[str, set[str]]:
    result = cli(["check", "--output-format", "json", "."], cwd=root)
    assert result.returncode in (0, 1), result.stderr
    codes: dict[str, set[str]] = {}
    for finding in json.loads(result.stdout):
        codes.setdefault(finding["path"], set()).add(finding["code"])
    return codes


@pytest.mark.parametrize("how", sorted(EDITS))
def test_a_restored_mtime_does_not_hide_an_edit_from_the_command(root: Path, how: str) -> None:
    assert _command_codes(root) == {}
    assert (root / CACHE_DIR_NAME).is_dir()
    _edit(root, how)
    assert _command_codes(root) == {"probe.py": {"PPA001"}}
    assert _command_codes(root) == {"probe.py": {"PPA001"}}  # and what that run recorded holds it


@pytest.mark.parametrize("how", sorted(EDITS))
def test_a_restored_mtime_does_not_hide_an_edit_from_the_scan_index(root: Path, how: str) -> None:
    assert by_file(run(root).findings, root) == {}
    _edit(root, how)
    assert by_file(run(root).findings, root) == {"probe.py": {"PPA001"}}


def test_an_untouched_file_is_answered_from_the_index(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(root)
    read: list[str] = []
    real = store._read
    monkeypatch.setattr(store, "_read", lambda path: read.append(path) or real(path))
    assert by_file(run(root).findings, root) == {}
    assert read == []
