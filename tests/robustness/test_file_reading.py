"""``read_regular_file`` returns a file's bytes whole, whatever its stat said, and refuses what is not a file.

It reads straight from the descriptor, trusting the stat's size only when a read of one byte more returns
exactly that many; these tests hold the other cases to the file's full contents.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ppaux_lint.support import fileio
from ppaux_lint.support.fileio import read_regular_file


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, (1 << 20) + 7, 3 << 20])
def test_the_whole_file(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    (tmp_path / "f.py").write_bytes(data)
    assert read_regular_file(tmp_path / "f.py") == data


@pytest.mark.parametrize("stated", [0, 10, 99_999])  # grew since its stat, or a /proc-like file that says 0
def test_a_file_larger_than_its_stat_is_read_to_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        stated: int) -> None:
    data = os.urandom(100_000)
    (tmp_path / "f.py").write_bytes(data)
    real = os.fstat
    monkeypatch.setattr(fileio.os, "fstat", lambda fd: os.stat_result((*real(fd)[:6], stated, *real(fd)[7:])))
    assert read_regular_file(tmp_path / "f.py") == data


def test_a_limit_refuses_a_larger_file_by_its_stat_or_as_it_grows(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``limit`` is judged on the opened file: one stated larger is refused before any read, and one that
    stated less but holds more (it grew since) as soon as its bytes pass the limit."""
    data = os.urandom(100_000)
    (tmp_path / "f.py").write_bytes(data)
    assert read_regular_file(tmp_path / "f.py", limit=100_000) == data
    with pytest.raises(OSError, match="larger than 99999 bytes"):
        read_regular_file(tmp_path / "f.py", limit=99_999)
    real = os.fstat
    monkeypatch.setattr(fileio.os, "fstat", lambda fd: os.stat_result((*real(fd)[:6], 10, *real(fd)[7:])))
    with pytest.raises(OSError, match="larger than 99999 bytes"):
        read_regular_file(tmp_path / "f.py", limit=99_999)
    assert read_regular_file(tmp_path / "f.py", limit=100_000) == data


def test_short_reads_are_read_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A network file system may answer a read with fewer bytes than the file holds."""
    data = os.urandom(50_000)
    (tmp_path / "f.py").write_bytes(data)
    real = os.read
    monkeypatch.setattr(fileio.os, "read", lambda fd, n: real(fd, min(n, 777)))
    assert read_regular_file(tmp_path / "f.py") == data


@pytest.mark.skipif(sys.platform != "linux", reason="/proc")
def test_a_proc_file_that_states_no_size() -> None:
    assert b"Name:" in read_regular_file("/proc/self/status")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f.py")
    with pytest.raises(OSError, match="not a regular file"):
        read_regular_file(tmp_path / "f.py")


@pytest.mark.skipif(sys.platform != "linux", reason="/proc")
def test_no_descriptor_is_left_open(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_bytes(b"x = 1\n")
    os.mkfifo(tmp_path / "p.py")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        read_regular_file(tmp_path / "f.py")
        with pytest.raises(OSError):
            read_regular_file(tmp_path / "p.py")
    assert len(os.listdir("/proc/self/fd")) == before
