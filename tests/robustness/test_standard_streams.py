"""Standard output that cannot be written, and standard error that is gone (issue 32, item 17).

A shell can start any command with standard output closed (``>&-``), on a pipe whose reader has gone
(``| head``) or on a full disk; each is one line on standard error and exit code 2, never "internal error:
AttributeError" nor a traceback, and never exit 1, which says "findings" to a script. A closed or broken
standard error has nowhere to take a message: the exit code alone says what happened. Every case runs the
installed command in a real process whose descriptors the shell (or the test) really closed.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ._support import AUX, BROKEN_OUTPUT, FIXTURES, console, write_tree

SAMPLE = FIXTURES / "sample_plugin"
CLEAN = FIXTURES / "clean_plugin"
NO_STDOUT = "ppaux-lint: error: cannot write to standard output: "
FIXABLE = f"""\
from dataclasses import dataclass

import torch
from {AUX} import DeviceAuxiliaryOutput


@dataclass
class Scores(DeviceAuxiliaryOutput):
    scores: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return self
"""
"""PPA001, with an unsafe fix that sends ``scores``."""


def shell(redirects: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``ppaux-lint ARGS`` started by a shell with ``redirects`` applied (``>&-``, ``2>&-``)."""
    command = f"exec {shlex.join([*console(), *args])} {redirects}"
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=env)


def one_line(stderr: str, reason: str) -> None:
    assert stderr == f"{NO_STDOUT}{reason}\n", stderr


@pytest.mark.parametrize("args", [
    ["check", "--no-cache", str(SAMPLE)],  # findings
    ["check", "--no-cache", str(CLEAN)],  # "All checks passed!"
    ["check", "--no-cache", "--output-format", "json", str(SAMPLE)],
    ["check", "--no-cache", "--statistics", str(SAMPLE)],
    ["check", "--no-cache", "--diff", "--unsafe-fixes", str(SAMPLE)],
    ["inventory", str(CLEAN)],
    ["rules"],
    ["rule", "PPA001"],
    ["--version"],
    ["--help"],
    pytest.param(["verify", "--device", "cpu", str(CLEAN)], marks=pytest.mark.skipif(
        importlib.util.find_spec("torch") is None, reason="verify needs torch")),  # renders inside `guarded`
], ids=lambda args: " ".join(Path(a).name if a.startswith("/") else a for a in args))
def test_a_closed_standard_output_is_one_line_and_exit_2(tmp_path, args):
    done = shell(">&-", args, tmp_path)
    one_line(done.stderr, "Bad file descriptor")
    assert done.returncode == 2


def test_nothing_to_write_needs_no_standard_output(tmp_path):
    """Only a write fails, as on the closed descriptor itself: a quiet clean check has nothing to say."""
    done = shell(">&-", ["check", "--no-cache", "-q", str(CLEAN)], tmp_path)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_broken_pipe_is_one_line_and_exit_2(tmp_path):
    """The reader went away before reading anything (``ppaux-lint check | true``): exit 1 used to say
    "findings" whether there were any or not, and nothing said why the report ended."""
    for project, fmt in ((SAMPLE, "full"), (CLEAN, "concise"), (SAMPLE, "sarif")):
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run([*console(), "check", "--no-cache", "--output-format", fmt, str(project)],
                                  cwd=tmp_path, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
        finally:
            os.close(write)
        one_line(done.stderr, "Broken pipe")
        assert done.returncode == 2


@pytest.mark.parametrize("args", [["check", "--no-cache", str(SAMPLE)], ["--version"], ["--help"],
                                  ["check", "--help"], ["clean"]],
                         ids=lambda args: " ".join(Path(a).name if a.startswith("/") else a for a in args))
def test_a_full_disk_is_one_line_and_exit_2(tmp_path, args):
    """Also where click probes the stream first with an empty write inside ``except Exception`` (its help and
    version), which met the full disk, swallowed the failure, and went on writing to the null device: exit 0."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    done = shell("> /dev/full", args, tmp_path)
    one_line(done.stderr, "No space left on device")
    assert done.returncode == 2


@pytest.mark.parametrize("redirects", ["2>&-", ">/dev/null 2>&-"])
def test_a_closed_standard_error_leaves_the_exit_code(tmp_path, redirects):
    """Findings, a warning (a FIFO among the files) and a usage error, with nowhere to say anything but the
    exit code: 1, 1 and 2, as with standard error open."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/mod.py": BROKEN_OUTPUT})
    os.mkfifo(root / "pkg" / "pipe.py")
    done = shell(redirects, ["check", "--no-cache", "--output-format", "concise", "."], root)
    assert done.returncode == 1 and done.stderr == ""
    if ">" not in redirects.split("2>")[0]:
        assert "PPA001" in done.stdout
    assert shell(redirects, ["check", "--select", "NOPE", "."], root).returncode == 2


def test_both_closed_is_exit_2(tmp_path):
    assert shell(">&- 2>&-", ["check", "--no-cache", str(SAMPLE)], tmp_path).returncode == 2


def test_a_file_the_run_opens_never_takes_a_closed_descriptor(tmp_path):
    """With standard output closed, the first file a run opens would get descriptor 1, where a library or a
    worker writing to "standard output" would write into it. ``--fix`` writes the checked files: they must
    hold exactly the fixed source, and the run still says it could not print its report."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/mod.py": FIXABLE})
    assert shell("", ["check", "--no-cache", "--diff", "--unsafe-fixes", "."], root).returncode == 1
    done = shell(">&-", ["check", "--no-cache", "--fix", "--unsafe-fixes", "."], root)
    one_line(done.stderr, "Bad file descriptor")
    assert done.returncode == 2
    fixed = (root / "pkg" / "mod.py").read_text(encoding="utf-8")
    assert fixed == FIXABLE + '\n    def to_pp_tensors(self):\n        return {"scores": self.scores}\n', fixed


def test_a_closed_standard_input_is_one_line_and_exit_2(tmp_path):
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": ""})
    done = shell("<&-", ["check", "--stdin-filename", "pkg/mod.py", "-"], root)
    assert done.stderr == "ppaux-lint: error: cannot read standard input: Bad file descriptor\n"
    assert done.returncode == 2


def test_an_error_after_some_output_is_only_its_own_line(tmp_path):
    """A report that wrote, then failed (a bug, here put in on purpose), with standard output gone: the error's
    line and exit 2, and nothing more when the interpreter flushes what was left at exit (exit 120). Buffered,
    as Python is unless told otherwise: unbuffered, the write itself fails first."""
    code = ("import sys\nfrom ppaux_lint.report import concise\n\n"
            "def render(findings, out):\n    out.write('half a report')\n    raise RuntimeError('boom')\n\n"
            "concise.render = render\nfrom ppaux_lint.cli.main import main\nmain(sys.argv[1:])\n")
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-c", code, "check", "--no-cache", "--output-format", "concise",
                               str(SAMPLE)], cwd=tmp_path, stdout=write, stderr=subprocess.PIPE, text=True,
                              timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"})
    finally:
        os.close(write)
    assert done.stderr == "ppaux-lint: error: internal error: RuntimeError: boom\n"
    assert done.returncode == 2
