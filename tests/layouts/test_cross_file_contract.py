"""Item 6: a change that breaks another file's contract is reported when only the changed file is passed.

pre-commit passes only the changed files. Editing ``observers.py`` so that it stops reading a key makes
``outputs.py``'s ``to_pp_tensors`` send a tensor nobody reads (PPA015): ``check observers.py`` reports it,
located where it belongs (in outputs.py), with a message and SARIF ``relatedLocations`` that name both
ends. The rule: a finding is reported when any file it involves was asked about, under the config of the
file it is located in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from integrations.conftest import run_cli
from lintkit import SCORE_OBSERVERS, SCORE_OUTPUTS

from .conftest import IMPORT_AUX, check, write

OUTPUTS, OBSERVERS = SCORE_OUTPUTS, SCORE_OBSERVERS
UNREAD = OBSERVERS.replace('tensors["ranks"]', "None")  # the edit: "ranks" is still sent, never read
MISSING = OBSERVERS.replace('tensors["ranks"]', 'tensors["rank"]')  # reads a key that is never sent


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write(tmp_path / "proj", {"pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n',
                                     "pkg/__init__.py": "", "pkg/outputs.py": OUTPUTS,
                                     "pkg/observers.py": OBSERVERS})
    monkeypatch.chdir(root)
    return root


def ppa015(*args: str) -> list[dict]:
    return [f for f in check(*args)[1] if f["code"] == "PPA015"]


def test_editing_the_receiver_reports_the_senders_broken_contract(root: Path) -> None:
    assert check("pkg/observers.py")[1] == []  # warms the cache, too: the edit must still be seen
    (root / "pkg" / "observers.py").write_text(UNREAD, encoding="utf-8")
    findings = ppa015("pkg/observers.py")
    assert [(f["path"], f["symbol"]) for f in findings] == [("pkg/outputs.py", "pkg.outputs.ScoreOutput")]
    assert "'ranks'" in findings[0]["message"]
    assert "ScoreOutput.to_pp_tensors" in findings[0]["message"]
    assert "ScoreObserver.from_pp_tensors" in findings[0]["message"]
    assert findings == ppa015("pkg/outputs.py") == ppa015(".")  # the same finding however it is reached


def test_a_key_error_in_the_receiver_is_reported_through_the_sender(root: Path) -> None:
    (root / "pkg" / "observers.py").write_text(MISSING, encoding="utf-8")
    findings = {(f["path"], f["symbol"]): f["message"] for f in ppa015("pkg/outputs.py")}
    assert set(findings) == {("pkg/observers.py", "pkg.observers.ScoreObserver"),  # reads 'rank': KeyError
                             ("pkg/outputs.py", "pkg.outputs.ScoreOutput")}  # sends 'ranks', never read
    message = findings["pkg/observers.py", "pkg.observers.ScoreObserver"]
    assert "'rank'" in message and "KeyError" in message


def test_sarif_and_full_output_name_both_ends(root: Path) -> None:
    (root / "pkg" / "observers.py").write_text(UNREAD, encoding="utf-8")
    result = run_cli("check", "--output-format", "sarif", "pkg/observers.py")
    (finding,) = [r for r in json.loads(result.stdout)["runs"][0]["results"] if r["ruleId"] == "PPA015"]
    assert finding["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/outputs.py"
    (related,) = finding["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"] == {"uri": "pkg/observers.py", "uriBaseId": "%SRCROOT%"}
    assert related["physicalLocation"]["region"]["startLine"] == OBSERVERS.splitlines().index(
        "    def from_pp_tensors(self, tensors):") + 1
    assert "ScoreObserver.from_pp_tensors" in related["message"]["text"]
    full = run_cli("check", "pkg/observers.py").stdout
    assert "pkg/outputs.py:" in full and "note: pkg/observers.py:" in full


def test_the_located_files_config_decides(root: Path) -> None:
    (root / "pkg" / "observers.py").write_text(UNREAD, encoding="utf-8")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as config:
        config.write('\n[tool.ppaux-lint]\nper-file-ignores = { "pkg/outputs.py" = ["PPA015"] }\n')
    assert ppa015("pkg/observers.py") == []


def test_unrelated_files_findings_stay_out(root: Path) -> None:
    write(root, {"pkg/other.py": IMPORT_AUX + "\n\nclass Other(DeviceAuxiliaryOutput):\n    pass\n"})
    assert {f["path"] for f in check("pkg/observers.py")[1]} == set()
