"""Fixtures for the integration tests: throwaway projects and the CLI, run the way a user runs it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from ppaux_lint.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE_PLUGIN = REPO / "fixtures" / "sample_plugin"


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> Run:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def project(lint_project: Callable[..., Path]) -> Callable[..., Path]:
    """``lint_project`` (files dedented unless bytes, a pyproject.toml, chdir there) without added
    ``__init__.py`` files: these tests run the CLI on the project exactly as written."""
    return functools.partial(lint_project, packages=False)
