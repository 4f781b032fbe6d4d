"""Every registered rule has a document whose examples are executable tests of the rule (Fixit-style).

The bad example must trigger exactly its own rule and the good one nothing,
so the documentation cannot drift from the analysis.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from lintkit import codes, lint

import ppaux_lint
from ppaux_lint.cli.main import cli
from ppaux_lint.rules import all_rules, by_code, rule_document

REPO = Path(__file__).resolve().parents[1]
DOC_DIR = Path(ppaux_lint.__file__).resolve().parent / "rules"
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "How to fix")
ALL_CODES = [rule.code for rule in all_rules()]


def sections(text: str) -> dict[str, str]:
    """``## Heading`` -> body, in document order."""
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def python_blocks(body: str) -> list[str]:
    """Each ```python block of a section: a rule may show several bad forms, and several good ones."""
    blocks = re.findall(r"^```python\n(.*?)^```", body, flags=re.MULTILINE | re.DOTALL)
    assert blocks, "expected at least one python block"
    return blocks


def examples(kind: str) -> list[tuple[str, int]]:
    """(code, block number) for every example of every rule, so each is its own test case."""
    return [(code, number) for code in ALL_CODES
            for number in range(len(python_blocks(sections(rule_document(code))[kind])))]


def test_registry_codes_are_unique_and_well_formed():
    assert len(ALL_CODES) == len(set(ALL_CODES))
    assert all(re.fullmatch(r"PPA\d{3}", code) for code in ALL_CODES)
    # the codes named by issues 2 and 3 are fixed: CI configs name them
    assert {"PPA000", "PPA001", "PPA002", *(f"PPA0{n}" for n in range(10, 19)), "PPA020", "PPA021"} <= set(ALL_CODES)


def test_every_document_belongs_to_a_registered_rule():
    documents = {path.stem for path in DOC_DIR.glob("*.md")}
    assert documents == set(ALL_CODES)


@pytest.mark.parametrize("code", ALL_CODES)
def test_document_shape(code):
    text = rule_document(code)
    first = text.splitlines()[0]
    assert first == f"# {code}: {by_code(code).name}"
    found = sections(text)
    for heading in SECTIONS:
        assert heading in found, f"{code}.md lacks the section '## {heading}'"
        assert found[heading].strip(), f"{code}.md has an empty '## {heading}'"
    assert [h for h in found if h in SECTIONS] == list(SECTIONS), "sections out of order"
    # the document shipped in the package is the file in the source tree
    assert (DOC_DIR / f"{code}.md").read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("code", "number"), examples("Example"))
def test_bad_example_triggers_exactly_its_rule(code, number, lint_project):
    example = python_blocks(sections(rule_document(code))["Example"])[number]
    lint_project({"pkg/mod.py": example})
    findings = lint()
    assert codes(findings) == {code}, [(f.code, f.span.line, f.message) for f in findings]


@pytest.mark.parametrize(("code", "number"), examples("Use instead"))
def test_good_example_is_clean(code, number, lint_project):
    good = python_blocks(sections(rule_document(code))["Use instead"])[number]
    lint_project({"pkg/mod.py": good})
    findings = lint()
    assert findings == [], [(f.code, f.span.line, f.message) for f in findings]


def test_readme_rule_table_has_a_row_per_rule():
    readme = REPO / "README.md"
    assert readme.is_file(), "README.md is missing"
    rows = set(re.findall(r"^\|\s*`?(PPA\d{3})`?\s*\|", readme.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert rows == set(ALL_CODES)


# -- the rule and rules commands --------------------------------------------------------------------


@pytest.mark.parametrize("argument", ["PPA001", "ppa001"])
def test_rule_command_prints_the_document(argument):
    result = CliRunner().invoke(cli, ["rule", argument])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == rule_document("PPA001").strip()


@pytest.mark.parametrize("argument", ["PPA999", "nonsense"])
def test_rule_command_unknown_code_exits_2(argument):
    result = CliRunner().invoke(cli, ["rule", argument])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert argument.upper() in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_rules_table_lists_every_rule():
    result = CliRunner().invoke(cli, ["rules"])
    assert result.exit_code == 0, result.output
    for rule in all_rules():
        line = next((ln for ln in result.stdout.splitlines() if rule.code in ln), None)
        assert line is not None, f"{rule.code} missing from `ppaux-lint rules`"
        assert rule.name in line


def test_rules_json():
    result = CliRunner().invoke(cli, ["rules", "--output-format", "json"])
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert [r["code"] for r in records] == ALL_CODES
    for record in records:
        rule = by_code(record["code"])
        assert record["name"] == rule.name
        assert record["summary"] == rule.summary
        assert record["summary"]
