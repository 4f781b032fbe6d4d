"""Precision corpus: realistic plugin projects whose expected findings were written before the tool ran.

Each directory under ``projects/`` is a plugin project in a shape plugin authors write, with an
``EXPECTED.toml`` listing every ``(code, symbol)`` that ``ppaux-lint check`` must report and the classes that
must stay silent (see README.md here). For each of the project's invocations the project is copied into a
temporary directory (so that this repository's own ``pyproject.toml`` and ``.git`` are not above it, and no
cache lands in the tree), ``check --no-cache --output-format json PATHS`` runs in-process from the copy's root,
and the reported set must equal the expected one exactly: a missed bug and a false positive both fail, with
a message that lists each.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from ppaux_lint.cli.main import cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PROJECTS = Path(__file__).resolve().parent / "projects"
MARKERS = ("pyproject.toml", ".git")


@dataclass(frozen=True)
class Expectation:
    name: str
    root: Path
    findings: frozenset[tuple[str, str]]  # (code, symbol)
    silent: frozenset[str]
    reasons: dict[tuple[str, str], str]
    invocations: tuple[tuple[str, ...], ...]
    no_marker: bool


def load(root: Path) -> Expectation:
    data = tomllib.loads((root / "EXPECTED.toml").read_text(encoding="utf-8"))
    findings = [(f["code"], f["symbol"]) for f in data.get("finding", [])]
    silent = [s["symbol"] for s in data.get("silent", [])]
    project = data.get("project", {})
    return Expectation(
        name=root.name,
        root=root,
        findings=frozenset(findings),
        silent=frozenset(silent),
        reasons={(f["code"], f["symbol"]): f.get("reason", "") for f in data.get("finding", [])},
        invocations=tuple(tuple(i) for i in project.get("invocations", [["."]])),
        no_marker=bool(project.get("no_marker", False)),
    )


EXPECTATIONS = [load(p) for p in sorted(PROJECTS.iterdir()) if (p / "EXPECTED.toml").is_file()]
CASES = [pytest.param(e, paths, id=f"{e.name}[{' '.join(paths)}]") for e in EXPECTATIONS for paths in e.invocations]


def copy_project(expectation: Expectation, tmp_path: Path) -> Path:
    target = tmp_path / expectation.name
    shutil.copytree(expectation.root, target,
                    ignore=shutil.ignore_patterns("__pycache__", ".ppaux_lint_cache", ".ruff_cache", "EXPECTED.toml"))
    if expectation.no_marker and any((d / m).exists() for d in (tmp_path, *tmp_path.parents) for m in MARKERS):
        pytest.skip("a pyproject.toml or .git above the temporary directory")
    return target


def run_check(paths: tuple[str, ...]) -> tuple[int, list[dict], str]:
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--output-format", "json", *paths],
                                catch_exceptions=False)
    assert result.exit_code in (0, 1), f"exit {result.exit_code}: {result.stderr}"
    return result.exit_code, json.loads(result.stdout), result.stderr


def reported(expectation: Expectation, paths: tuple[str, ...], tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> tuple[set[tuple[str, str]], list[dict], str]:
    root = copy_project(expectation, tmp_path)
    monkeypatch.chdir(root)
    _, findings, stderr = run_check(paths)
    return {(f["code"], f["symbol"]) for f in findings}, findings, stderr


def diff_message(expectation: Expectation, paths: tuple[str, ...], got: set[tuple[str, str]],
                 findings: list[dict], stderr: str) -> str:
    missed = sorted(expectation.findings - got)
    extra = sorted(got - expectation.findings)
    lines = [f"{expectation.name}: `ppaux-lint check {' '.join(paths)}` differs from EXPECTED.toml "
             f"({len(expectation.findings & got)} matched, {len(missed)} missed, {len(extra)} false positive(s))"]
    for code, symbol in missed:
        lines.append(f"  MISSED          {code} {symbol}: {expectation.reasons.get((code, symbol), '')}")
    for code, symbol in extra:
        note = "declared silent" if symbol in expectation.silent else "not expected"
        messages = [f["message"] for f in findings if (f["code"], f["symbol"]) == (code, symbol)]
        lines.append(f"  FALSE POSITIVE  {code} {symbol} ({note}): {messages[0] if messages else ''}")
    if stderr.strip():
        lines.append("  stderr: " + stderr.strip().replace("\n", "\n          "))
    return "\n".join(lines)


@pytest.mark.parametrize("expectation", [pytest.param(e, id=e.name) for e in EXPECTATIONS])
def test_expectations_are_consistent(expectation: Expectation) -> None:
    """Each project plants bugs and correct classes, and never lists a class both ways."""
    assert expectation.findings, "a project must plant at least one bug"
    assert expectation.silent, "a project must list classes that stay silent"
    flagged = {symbol for _, symbol in expectation.findings}
    assert not flagged & expectation.silent, f"both expected and silent: {sorted(flagged & expectation.silent)}"


def test_there_are_at_least_five_projects() -> None:
    assert len(EXPECTATIONS) >= 5, [e.name for e in EXPECTATIONS]


@pytest.mark.parametrize(("expectation", "paths"), CASES)
def test_findings_equal_expectations(expectation: Expectation, paths: tuple[str, ...], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    got, findings, stderr = reported(expectation, paths, tmp_path, monkeypatch)
    if got != set(expectation.findings):
        pytest.fail(diff_message(expectation, paths, got, findings, stderr), pytrace=False)
