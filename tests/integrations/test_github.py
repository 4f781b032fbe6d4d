"""``--output-format github``: workflow-command annotations GitHub Actions turns into inline PR comments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from actions_runner import commands

from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import Span
from ppaux_lint.report.github import annotation, escape_data, escape_property

from .conftest import SAMPLE_PLUGIN, run_cli


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """Read a workflow command back the way the Actions runner does: exactly one, the whole line."""
    assert "\n" not in line and "\r" not in line
    ((level, props, message),) = commands(line)
    return level, props, message


def test_escaping_follows_the_runner() -> None:
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%d\n") == "a%3Ab%2Cc%25d%0A"
    assert escape_data("a:b,c") == "a:b,c"  # only properties escape ':' and ','


def test_sample_plugin_annotations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLE_PLUGIN)
    result = run_cli("check", "--output-format", "github", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 8  # one line per finding, no summary
    parsed = [parse(line) for line in lines]
    for level, props, message in parsed:
        assert level == "error"
        assert set(props) == {"file", "line", "col", "endLine", "endColumn", "title"}
        assert (SAMPLE_PLUGIN / props["file"]).is_file() and "\\" not in props["file"]
        assert re.fullmatch(r"PPA\d{3} [a-z0-9-]+", props["title"])
        assert message.startswith(props["title"].split()[0] + " ")
        assert int(props["endLine"]) >= int(props["line"]) >= 1 and int(props["col"]) >= 1
    nucleus = next(p for _, p, m in parsed if p["title"].startswith("PPA015"))
    assert nucleus == {"file": "src/acme_observers/topk/nucleus.py", "line": "48", "col": "29", "endLine": "48",
                       "endColumn": "38", "title": "PPA015 pp-key-mismatch"}


def test_awkward_text_round_trips() -> None:
    finding = Finding("PPA001", "first line: 100%, done\nsecond\rline", str(Path.cwd() / "we,ird:dir" / "m.py"),
                      Span(3, 5, 4, 2), "m.A")
    line = annotation(finding)
    assert "\n" not in line and "\r" not in line
    _level, props, message = parse(line)
    assert props["file"] == "we,ird:dir/m.py"
    assert props["title"] == "PPA001 output-missing-to-pp-tensors"
    assert (props["line"], props["col"], props["endLine"], props["endColumn"]) == ("3", "5", "4", "2")
    assert message == "PPA001 first line: 100%, done\nsecond\rline"


def test_clean_project_prints_nothing(project) -> None:
    project({"pkg/__init__.py": "", "pkg/plain.py": "class A:\n    pass\n"})
    result = run_cli("check", "--output-format", "github", ".")
    assert result.exit_code == 0 and result.stdout == ""
