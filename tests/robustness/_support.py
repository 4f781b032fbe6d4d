"""Shared helpers for the robustness tests: throwaway projects, engine runs, CLI runs, comparable findings."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from ppaux_lint.check.engine import Analysis, Options, analyze
from ppaux_lint.facts.findings import Finding

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"

AUX = "sglang.srt.managers.auxiliary_output"
OLD_AUX = "sglang.srt.sampling.sampling_observer"
PP = "sglang.srt.sampling.sampling_observer_pp"
# PPA000 is reported only for files that could matter, i.e. that hold a prefilter token
# (docs: rules/PPA000.md); every deliberately broken file below carries this line.
TOKEN_LINE = "# mentions DeviceAuxiliaryOutput\n"

BROKEN_OUTPUT = f"""\
from {AUX} import DeviceAuxiliaryOutput


class Broken(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
"""
"""A valid module with exactly one finding: PPA001 on ``Broken`` (line 4)."""


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    """contextlib.chdir, which Python 3.10 lacks; usable inside hypothesis tests (no function fixtures)."""
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def write_tree(root: Path, files: Mapping[str, str | bytes], pyproject: str = "") -> Path:
    """Write ``files`` under ``root`` with a pyproject.toml (the project-root marker)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\n' + pyproject, encoding="utf-8")
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def run(root: Path, paths: Sequence[str | Path] = (".",), **options) -> Analysis:
    with chdir(root):
        return analyze(list(paths), Options(**options))


def key(findings: Iterable[Finding]) -> list[tuple]:
    """Everything a user sees of a finding, in a stable order."""
    return sorted((f.code, f.path, f.span.line, f.span.column, f.span.end_line, f.span.end_column, f.symbol,
                   f.message) for f in findings)


def by_file(findings: Iterable[Finding], root: Path) -> dict[str, set[str]]:
    """{path relative to root: {codes}}."""
    out: dict[str, set[str]] = {}
    for f in findings:
        out.setdefault(os.path.relpath(f.path, root), set()).add(f.code)
    return out


def console() -> list[str]:
    """The installed console script (its sys.path[0] is its bin directory, never the project)."""
    script = shutil.which("ppaux-lint")
    return [script] if script else [sys.executable, "-c", "from ppaux_lint.cli.main import main; main()"]


def cli(args: Sequence[str], cwd: Path, timeout: float = 120, env: Mapping[str, str] | None = None,
        prefix: Sequence[str] = ()) -> subprocess.CompletedProcess:
    """The command line in a subprocess; ``prefix`` runs it under another command (``unprivileged()``)."""
    merged = {**os.environ, "NO_COLOR": "1", **(env or {})}
    merged.pop("CI", None)
    return subprocess.run([*prefix, *console(), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=merged, errors="replace")


def unprivileged() -> list[str]:
    """A command prefix under which ``chmod`` denies reading and writing, as it does to any user but root
    (root's run drops the capabilities that override file modes); skips the test where that cannot be done."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and setpriv cannot drop the capability to read anything")
    dropped = "-dac_override,-dac_read_search"
    probe = subprocess.run([setpriv, f"--bounding-set={dropped}", f"--inh-caps={dropped}", "true"], check=False)
    if probe.returncode != 0:
        pytest.skip("setpriv cannot drop capabilities here")
    return [setpriv, f"--bounding-set={dropped}", f"--inh-caps={dropped}"]


def copy_fixture(name: str, destination: Path) -> Path:
    target = destination / name
    shutil.copytree(FIXTURES / name, target, symlinks=True,
                    ignore=shutil.ignore_patterns(".ppaux_lint_cache", "__pycache__"))
    return target


class Blocked(BaseException):
    """Raised by ``deadline``; not TimeoutError, which is an OSError that the code under test may swallow."""


@contextlib.contextmanager
def deadline(seconds: int = 60) -> Iterator[None]:
    """Fail instead of hanging: a read that blocks forever is exactly the bug some tests guard against."""

    def expire(signum, frame):
        raise Blocked(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def one_error_line(stderr: str) -> str:
    """The one line an error prints (``ppaux-lint: error: ...``), checking that it is the only one and no bug's."""
    lines = [line for line in stderr.splitlines() if line.startswith("ppaux-lint: error:")]
    assert len(lines) == 1 and "internal error" not in stderr and "Traceback" not in stderr, stderr
    return lines[0]
