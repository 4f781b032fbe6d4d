"""Item 3: two copies of one package, ``src/myplug`` and a vendored ``old/myplug``.

Both are ``myplug``. A name collision costs no class its check: each copy is judged, its names resolving
within its own copy first (the engine gives the copy that lost the name a pass of its own). Which copy owns
the name in the main pass (a file passed explicitly, else the copy under the source root, the one Python
imports) decides only where the other copy's files are judged, never whether.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import IMPORT_AUX, check, write

PYPROJECT = '[project]\nname = "myplug"\nversion = "0"\n'
COPY = {  # each copy's outputs.py holds one broken class with a name of its own
    "myplug/__init__.py": "",
    "myplug/base.py": IMPORT_AUX + """
class PlugBase(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"x": self.x}
""",
    "myplug/outputs.py": """
        from myplug.base import PlugBase


        class {name}(PlugBase):  # an output only through its own copy's base
            to_pp_tensors = None
        """,
}


def project(root: Path, config: str = "") -> Path:
    write(root, {"pyproject.toml": PYPROJECT + config})
    for top, name in (("src", "CurrentOutput"), ("old", "VendoredOutput")):
        write(root, {f"{top}/{path}": text.replace("{name}", name) for path, text in COPY.items()})
    return root


@pytest.fixture(params=["walked", "excluded"])
def vendored(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Whether old/ is part of the walk or excluded by the config (then only a file passed from it is read)."""
    config = '\n[tool.ppaux-lint]\nextend-exclude = ["old"]\n' if request.param == "excluded" else ""
    monkeypatch.chdir(project(tmp_path / "proj", config))
    return request.param


def findings_and_warnings(*args: str) -> tuple[set[tuple[str, str, str]], str]:
    _, findings, stderr = check(*args)
    return {(f["path"], f["symbol"], f["code"]) for f in findings}, stderr


def test_a_vendored_file_passed_is_checked_under_its_own_copys_names(vendored: str) -> None:
    findings, warnings = findings_and_warnings("old/myplug/outputs.py")
    assert findings == {("old/myplug/outputs.py", "myplug.outputs.VendoredOutput", "PPA001")}
    assert "not checked" not in warnings


def test_the_packages_own_file_passed_is_checked_too(vendored: str) -> None:
    findings, warnings = findings_and_warnings("src/myplug/outputs.py")
    assert findings == {("src/myplug/outputs.py", "myplug.outputs.CurrentOutput", "PPA001")}
    assert "not checked" not in warnings


def test_without_a_file_passed_each_copy_walked_is_judged(vendored: str) -> None:
    findings, warnings = findings_and_warnings(".")
    assert findings == {("src/myplug/outputs.py", "myplug.outputs.CurrentOutput", "PPA001"),
                        *([("old/myplug/outputs.py", "myplug.outputs.VendoredOutput", "PPA001")]
                          if vendored == "walked" else [])}
    assert "not checked" not in warnings


def test_a_file_passed_from_each_copy_are_both_checked(vendored: str) -> None:
    """pre-commit with a change in each copy: neither file is dropped for the other's sake."""
    findings, _ = findings_and_warnings("old/myplug/outputs.py", "src/myplug/outputs.py")
    assert findings == {("old/myplug/outputs.py", "myplug.outputs.VendoredOutput", "PPA001"),
                        ("src/myplug/outputs.py", "myplug.outputs.CurrentOutput", "PPA001")}
