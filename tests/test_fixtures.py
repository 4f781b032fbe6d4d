"""The sample plugin reports exactly what its EXPECTED.md says; the clean plugin reports nothing.

The expectations are parsed from EXPECTED.md itself (its findings table, its
statistics line and its inventory), so the document and the test cannot
drift. The fixture is checked in a temporary copy: the engine may write a
cache into the project root, and the git-ignored ``build/`` and
``generated/`` directories are created there by the test, because a fresh
clone does not have them.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from lintkit import lint, positions, reported, roles_of, run_analysis, run_console

from ppaux_lint.cli.main import cli

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "fixtures" / "sample_plugin"
CLEAN = REPO / "fixtures" / "clean_plugin"
EXPECTED_MD = (SAMPLE / "EXPECTED.md").read_text(encoding="utf-8")
PACKAGE_DIR = "src/acme_observers"
PACKAGE = "acme_observers"

def expected_findings() -> set[tuple[str, int, str, str]]:
    """{(path relative to the fixture root, line, symbol, code)} from the '## Expected findings' table."""
    table = EXPECTED_MD.split("## Expected findings", 1)[1].split("\n## ", 1)[0]
    rows = set()
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not cells[0].isdigit():
            continue
        path, number, symbol, code = cells[1].strip("`"), int(cells[2]), cells[3].strip("`"), cells[4]
        rows.add((f"{PACKAGE_DIR}/{path}", number, symbol, code))
    return rows


def expected_statistics() -> dict[str, int]:
    line = next(ln for ln in EXPECTED_MD.splitlines() if ln.startswith("Statistics:"))
    return {code: int(count) for code, count in re.findall(r"(PPA\d{3}) (\d+)", line)}


def must_not_be_reported() -> set[str]:
    """Qualified names of the classes listed under '## Must NOT be reported'."""
    table = EXPECTED_MD.split("## Must NOT be reported", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        first = line.strip("|").split("|")[0]
        for dotted in re.findall(r"`([\w.]+)`", first):
            module, _, cls = dotted.rpartition(".")
            names.add(f"{PACKAGE}.{module}.{cls}")
        # "topk.outputs.TopKOutput / topk.observer.TopKObserver"-style pairs, and "X, Y" lists
        for bare in re.findall(r"/ `(\w+)`", first):
            module = re.findall(r"`([\w.]+)\.\w+`", first)[0]
            names.add(f"{PACKAGE}.{module}.{bare}")
    return names


def inventory() -> tuple[set[str], dict[str, str]]:
    """The outputs (short names) and the observer -> output pairs from '## Inventory'."""
    section = EXPECTED_MD.split("## Inventory", 1)[1].split("\n## ", 1)[0]
    outputs_text = section.split("- 16 outputs:", 1)[1].split("\n- ", 1)[0].split("(`RepetitionOutput`", 1)[0]
    outputs = set(re.findall(r"`(\w+)`", outputs_text))
    pairs_text = section.split("observers and their pairs:", 1)[1]
    pairs = dict(re.findall(r"`(\w+)`\s+→\s+`(\w+)`", pairs_text))
    return outputs, pairs


def copy_sample(destination: Path) -> Path:
    """A copy of the fixture with its git-ignored ``build/`` and ``generated/`` (committed with ``git add -f``
    so that a fresh clone has them, and the exclusion tests have something to exclude)."""
    root = destination / "sample_plugin"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".ppaux_lint_cache"))
    assert (root / "build").is_dir() and (root / "generated").is_dir(), "fixture's ignored content is missing"
    return root


@pytest.fixture
def sample(tmp_path, monkeypatch) -> Path:
    root = copy_sample(tmp_path)
    monkeypatch.chdir(root)
    return root


def test_expected_md_parses():
    rows = expected_findings()
    assert len(rows) == 8
    assert sum(expected_statistics().values()) == 8
    outputs, pairs = inventory()
    assert len(outputs) == 16 and len(pairs) == 8
    assert len(must_not_be_reported()) >= 15


def test_sample_plugin_findings_match_expected_md(sample):
    findings = lint()
    got = {(p, line, f.symbol, code) for f in findings for (p, line, _, code) in positions([f], sample)}
    assert got == expected_findings()


def test_sample_plugin_statistics_match_expected_md(sample):
    result = CliRunner().invoke(cli, ["check", "--statistics", "--output-format", "json", "."])
    assert result.exit_code == 1, result.output
    counts = {row["code"]: row["count"] for row in json.loads(result.stdout)}
    assert counts == expected_statistics()


def test_sample_plugin_must_not_be_reported(sample):
    findings = lint()
    named = {f.symbol for f in findings}
    quiet = must_not_be_reported()
    assert quiet and not (quiet & named)


def test_sample_plugin_inventory_matches_expected_md(sample):
    analysis = run_analysis()
    outputs, pairs = inventory()
    classified = {}
    for fqn in analysis.index.classes:
        info = analysis.classes.get(fqn)
        if info is not None and info.is_interface:
            continue  # interfaces are not implementations, and not in the inventory
        classified[fqn.rsplit(".", 1)[-1]] = (fqn, roles_of(analysis, fqn))
    found_outputs = {name for name, (_, roles) in classified.items() if "output" in roles}
    found_observers = {name for name, (_, roles) in classified.items() if "observer" in roles}
    assert found_outputs == outputs
    assert found_observers == set(pairs)
    for observer, output in pairs.items():
        fqn = classified[observer][0]
        info = analysis.classes.get(fqn) or analysis.index.info(fqn)
        assert info.pair is not None and info.pair.rsplit(".", 1)[-1] == output, observer


def test_sample_plugin_noqa_suppresses_exactly_one_more_finding(sample):
    outputs = sample / PACKAGE_DIR / "legacy" / "outputs.py"
    text = outputs.read_text(encoding="utf-8")
    assert "class DebugDumpOutput:  # noqa: PPA001" in text
    outputs.write_text(text.replace("class DebugDumpOutput:  # noqa: PPA001", "class DebugDumpOutput:"),
                       encoding="utf-8")
    extra = reported(lint()) - {(s, c) for _, _, s, c in expected_findings()}
    assert extra == {(f"{PACKAGE}.legacy.outputs.DebugDumpOutput", "PPA001")}


def test_sample_plugin_excluded_content_is_never_reported(sample):
    findings = lint()
    paths = {Path(f.path).resolve().relative_to(sample.resolve()).parts[0] for f in findings}
    assert paths == {"src"}


def test_sample_plugin_exclusions_are_what_silences_them(tmp_path, monkeypatch):
    """Without the fixture's extend-exclude and .gitignore, the planted classes are reported: the
    exclusion test above is therefore not vacuous."""
    root = copy_sample(tmp_path)
    (root / ".gitignore").unlink()
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace('extend-exclude = ["tests"]', ""),
                         encoding="utf-8")
    monkeypatch.chdir(root)
    extra = reported(lint()) - {(s, c) for _, _, s, c in expected_findings()}
    # build/ stays excluded by the default excludes; generated/ and tests/ were excluded only by config
    assert {code for _, code in extra} == {"PPA001", "PPA010"}
    assert {symbol.rsplit(".", 1)[-1] for symbol, _ in extra} == {"FakeOutput", "GeneratedProbeOutput"}


def test_sample_plugin_via_console_script(tmp_path):
    root = copy_sample(tmp_path)
    done = run_console(["check", str(root), "--output-format", "json"], cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    records = json.loads(done.stdout)
    got = {(r["path"], r["line"], r["symbol"], r["code"]) for r in records}
    assert got == {(f"sample_plugin/{p}", line, s, c) for p, line, s, c in expected_findings()}


def test_clean_plugin_is_clean(tmp_path, monkeypatch):
    root = tmp_path / "clean_plugin"
    shutil.copytree(CLEAN, root, ignore=shutil.ignore_patterns("__pycache__", ".ppaux_lint_cache"))
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["check", "."])
    assert result.exit_code == 0, result.output
    assert "All checks passed" in result.stdout
    analysis = run_analysis()
    # clean because its classes are recognised and correct, not because nothing was recognised
    assert roles_of(analysis, "clean_plugin.margin.MarginOutput") == {"output"}
    assert roles_of(analysis, "clean_plugin.margin.MarginObserver") == {"observer"}
