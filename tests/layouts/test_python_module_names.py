"""Issue 22, item 5: module names follow Python's import system, marker or not.

- A package passed as a path keeps its own name: with no ``pyproject.toml`` or ``.git`` above, the project is
  the outermost regular package holding the path, named from its parent, where Python imports it from.
- A directory without ``__init__.py`` inside a regular package is a namespace portion of it (SGLang's
  ``sglang/srt``), and so is a project directory that is itself a package (the ``pyproject.toml`` SGLang's
  wheel ships in ``sglang/kernels/.../cute``): no file below ``sglang/`` is named outside ``sglang``.
- Two roots that both define a module (two sub-projects with ``utils.common``) are each judged, each
  resolving its names within its own root first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import AUX_SOURCE, IMPORT_AUX, check, inventory_files, reported, write

OUTPUTS = IMPORT_AUX + """

class Base(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"x": self.x}
"""
DERIVED = """
    from plug.outputs import Base


    class Derived(Base):  # an output only through plug.outputs.Base
        to_pp_tensors = None
    """


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory of loose downloads, no marker anywhere above, holding the package ``plug``."""
    if any((d / m).exists() for d in (tmp_path, *tmp_path.parents) for m in ("pyproject.toml", ".git", "__init__.py")):
        pytest.skip("a pyproject.toml, .git or __init__.py above the temporary directory")
    root = write(tmp_path / "corpus", {"plug/__init__.py": "", "plug/outputs.py": OUTPUTS,
                                       "plug/derived.py": DERIVED, "elsewhere/other.py": IMPORT_AUX})
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("given, cwd", [("plug/derived.py", "."), ("plug", "."), ("derived.py", "plug"),
                                        (".", "plug"), ("corpus/plug", "..")])
def test_a_package_passed_keeps_its_name(corpus: Path, monkeypatch: pytest.MonkeyPatch, given: str,
                                         cwd: str) -> None:
    monkeypatch.chdir(corpus / cwd)
    assert {(symbol, code) for _, symbol, code in reported(given)} == {("plug.derived.Derived", "PPA001")}


SGLANG = {  # an unpacked wheel in miniature: no marker around sglang/, which holds one pyproject.toml of its own
    "sglang/__init__.py": "",
    "sglang/utils.py": "",
    "sglang/srt/managers/auxiliary_output.py": AUX_SOURCE,
    "sglang/srt/utils/__init__.py": "",
    "sglang/srt/utils/common.py": "",
    "sglang/srt/layers/moe/__init__.py": "",
    "sglang/srt/lora/moe/__init__.py": "",  # moe again, in another namespace portion of sglang.srt
    "sglang/kernels/__init__.py": "",
    "sglang/kernels/cute/__init__.py": "",
    "sglang/kernels/cute/pyproject.toml": '[project]\nname = "flash-attn-cute"\nversion = "0"\n',
    "sglang/kernels/cute/utils.py": "",
}
COMPOSITE = "sglang.srt.managers.auxiliary_output.CompositeDeviceAuxiliaryOutput"


@pytest.fixture
def wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if any((d / m).exists() for d in (tmp_path, *tmp_path.parents) for m in ("pyproject.toml", ".git", "__init__.py")):
        pytest.skip("a pyproject.toml, .git or __init__.py above the temporary directory")
    root = write(tmp_path / "unpacked", SGLANG)
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("given, cwd", [("sglang", "."), (".", "."), ("unpacked/sglang", ".."),
                                        ("sglang/srt/managers/auxiliary_output.py", "."), ("sglang/srt", ".")])
def test_an_unpacked_wheel_keeps_sglangs_names(wheel: Path, monkeypatch: pytest.MonkeyPatch, given: str,
                                               cwd: str) -> None:
    monkeypatch.chdir(wheel / cwd)
    _, findings, stderr = check(given)
    assert [(f["symbol"], f["code"]) for f in findings] == [(COMPOSITE, "PPA001")]
    assert "not checked" not in stderr


def test_every_module_of_the_wheel_is_under_sglang(wheel: Path) -> None:
    modules = {path: record["module"] for path, record in inventory_files("sglang").items()}
    assert modules["sglang/srt/lora/moe/__init__.py"] == "sglang.srt.lora.moe"
    assert modules["sglang/srt/layers/moe/__init__.py"] == "sglang.srt.layers.moe"
    assert modules["sglang/kernels/cute/utils.py"] == "sglang.kernels.cute.utils"
    assert modules["sglang/srt/utils/common.py"] == "sglang.srt.utils.common"
    assert all(module.startswith("sglang") for module in modules.values())


COMMON_ONE = OUTPUTS  # one's utils.common.Base is a whole output
COMMON_TWO = "class Base:\n    pass\n"  # two's is a plain class
SUB_PROJECTS = {
    "pyproject.toml": '[project]\nname = "mono"\nversion = "0"\n\n[tool.uv.workspace]\nmembers = ["one", "two"]\n',
    "one/pyproject.toml": '[project]\nname = "one"\nversion = "0"\n',
    "one/utils/__init__.py": "",
    "one/utils/common.py": COMMON_ONE,
    "one/one_plugin.py": """
        from utils.common import Base


        class OneOutput(Base):  # an output through one's Base, which it breaks
            to_pp_tensors = None
        """,
    "two/pyproject.toml": '[project]\nname = "two"\nversion = "0"\n',
    "two/utils/__init__.py": "",
    "two/utils/common.py": COMMON_TWO,
    "two/two_plugin.py": """
        from utils.common import Base


        class TwoOutput(Base):  # an output of its own; one's Base would lend it to_pp_tensors
            def copy_to_host(self, copy_tensor):
                return self
        """,
}
BOTH = {("one/one_plugin.py", "one_plugin.OneOutput", "PPA001"), ("two/two_plugin.py", "two_plugin.TwoOutput",
                                                                 "PPA001")}


@pytest.mark.parametrize("given", [["."], ["one/one_plugin.py", "two/two_plugin.py"], ["two", "one"]])
def test_two_roots_that_define_one_module_are_each_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          given: list[str]) -> None:
    monkeypatch.chdir(write(tmp_path / "mono", SUB_PROJECTS))
    _, findings, stderr = check(*given)
    assert {(f["path"], f["symbol"], f["code"]) for f in findings} == BOTH
    assert "not checked" not in stderr


@pytest.mark.parametrize("given", ["one/one_plugin.py", "two/two_plugin.py"])
def test_each_root_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    monkeypatch.chdir(write(tmp_path / "mono", SUB_PROJECTS))
    assert reported(given) == {found for found in BOTH if found[0] == given}
