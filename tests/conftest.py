"""Fixtures for the static-check tests (tests/runtime has its own conftest)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from lintkit import make_project

pytest_plugins = ["leftover_processes"]  # the suite fails if a process it started outlives it


@pytest.fixture
def lint_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Build a project in ``tmp_path/proj`` and chdir into it (``analyze`` reads the working directory)."""

    def build(files: Mapping[str, str], config: str = "", **kwargs) -> Path:
        root = make_project(tmp_path / "proj", files, config, **kwargs)
        monkeypatch.chdir(root)
        return root

    return build
