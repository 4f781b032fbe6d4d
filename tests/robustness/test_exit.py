"""``check`` from the console script ends without the interpreter's teardown (``cli.main.entry``), having
written everything: the last byte of a long report and its exit code, whatever the command's outcome.
Other commands, and ``main`` called in-process, end as Python does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ._support import AUX, write_tree

_ENTRY = ("import atexit, sys; atexit.register(lambda: sys.stderr.write('TEARDOWN\\n'));"
          "sys.argv = ['ppaux-lint', *sys.argv[1:]]; from ppaux_lint.cli.main import entry; entry()")

MANY = 300


def _project(root: Path) -> Path:
    classes = "".join(f"\n\nclass Out{i}(DeviceAuxiliaryOutput):\n    pass\n" for i in range(MANY))
    return write_tree(root, {"pkg/__init__.py": "", "pkg/outs.py": f"from {AUX} import DeviceAuxiliaryOutput\n{classes}"})


def _entry(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _ENTRY, *args], cwd=root, capture_output=True, text=True,
                          check=False, timeout=300)


@pytest.mark.parametrize("output_format", ["concise", "full", "json"])
def test_check_ends_at_once_with_its_whole_report(tmp_path: Path, output_format: str) -> None:
    root = _project(tmp_path / "proj")
    done = _entry(root, "check", "--no-cache", "--output-format", output_format, ".")
    assert done.returncode == 1, done.stderr
    assert "TEARDOWN" not in done.stderr  # the interpreter's exit hooks never ran
    if output_format == "json":
        import json

        assert len(json.loads(done.stdout)) == MANY
    else:
        assert done.stdout.count(" PPA001 ") == MANY, done.stdout[-500:]


def test_check_without_findings_exits_zero_at_once(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/plain.py": "x = 1\n"})
    done = _entry(root, "check", ".")
    assert (done.returncode, "TEARDOWN" in done.stderr) == (0, False), done.stderr


def test_a_usage_error_and_other_commands_end_as_python_does(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": ""})
    rules = _entry(root, "rules")
    assert rules.returncode == 0 and "TEARDOWN" in rules.stderr
    usage = _entry(root, "check", "--no-such-option")
    assert usage.returncode == 2 and "TEARDOWN" in usage.stderr  # check never ran


def test_check_ends_at_once_when_its_reader_went_away(tmp_path: Path) -> None:
    """A reader that stops early (``| head -1``): the exit code is still check's, and nothing is printed
    about the broken pipe."""
    root = _project(tmp_path / "proj")
    process = subprocess.Popen([sys.executable, "-c", _ENTRY, "check", "--no-cache", "--output-format", "concise",
                                "."], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=300) in (1, 2), errors
    assert "Traceback" not in errors and "TEARDOWN" not in errors


def test_a_profiled_check_ends_as_python_does(tmp_path: Path) -> None:
    """A profiler writes what it saw at the interpreter's exit: ``python -m cProfile -m ppaux_lint check``."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/plain.py": "x = 1\n"})
    out = tmp_path / "check.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "ppaux_lint", "check", "."],
                          cwd=root, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.is_file() and out.stat().st_size > 0
