"""Helpers for the layout tests: each test module builds one small project of a shape real plugin
repositories have, and checks that the findings do not depend on the way the tool is called."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from integrations.conftest import run_cli
from lintkit import IMPORT_AUX, IMPORT_OBS, make_project

__all__ = ["IMPORT_AUX", "IMPORT_OBS", "check", "inventory_files", "reported", "write"]


AUX_SOURCE = """
        from typing import Protocol


        class DeviceAuxiliaryOutput(Protocol):
            def copy_to_host(self, copy_tensor): ...


        class CompositeDeviceAuxiliaryOutput:
            def __init__(self, outputs):
                self.outputs = outputs

            def copy_to_host(self, copy_tensor):
                return [output.copy_to_host(copy_tensor) for output in self.outputs]
        """
"""SGLang's ``auxiliary_output`` module in miniature: the Protocol and the composite output, the one class the
SGLang layouts must report, under its full name."""


def write(root: Path, files: Mapping[str, str]) -> Path:
    """``files`` (dedented) under ``root``, exactly as given: no pyproject.toml or __init__.py is added."""
    return make_project(root, files, pyproject=False, packages=False)


def check(*args: str) -> tuple[int, list[dict], str]:
    """``ppaux-lint check --output-format json ARGS`` in-process: exit code, findings, stderr."""
    result = run_cli("check", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout), result.stderr


def reported(*args: str) -> set[tuple[str, str, str]]:
    """{(path, symbol, code)} reported by ``check ARGS``, paths relative to the working directory."""
    return {(f["path"], f["symbol"], f["code"]) for f in check(*args)[1]}


def inventory_files(*args: str) -> dict[str, dict]:
    """``inventory --output-format json ARGS``: each file asked about, by path, with its module and config."""
    result = run_cli("inventory", "--output-format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return {record["path"]: record for record in json.loads(result.stdout)["files"]}
