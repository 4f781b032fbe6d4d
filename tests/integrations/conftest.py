"""Fixtures for the integration tests: throwaway projects and the CLI, run the way a user runs it."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

import pytest
from click.testing import CliRunner

from ppaux_lint.cli import cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE_PLUGIN = REPO / "fixtures" / "sample_plugin"
PYPROJECT = '[project]\nname = "demo"\nversion = "0.0.0"\n'


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> Run:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Write ``files`` (dedented unless bytes) under ``tmp_path/proj``, add a pyproject.toml, chdir there."""

    def build(files: Mapping[str, str | bytes], config: str = "") -> Path:
        root = tmp_path / "proj"
        root.mkdir(exist_ok=True)
        (root / "pyproject.toml").write_text(PYPROJECT + ("\n" + textwrap.dedent(config) if config else ""),
                                             encoding="utf-8")
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        monkeypatch.chdir(root)
        return root

    return build
