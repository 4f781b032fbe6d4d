"""Item 7: SGLang's own repository layout, in miniature.

The repository root has a ``pyproject.toml`` (a workspace), ``python/`` has its own (setuptools, packages
found in ``python/``) with ``python/sglang/...`` below it, and ``sglang/srt`` has no ``__init__.py``; the
tests live in ``test/`` at the root. The composite output is
``sglang.srt.managers.auxiliary_output.CompositeDeviceAuxiliaryOutput`` however the tool is called.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import AUX_SOURCE, inventory_files, reported, write

AUX = "python/sglang/srt/managers/auxiliary_output.py"
COMPOSITE = "sglang.srt.managers.auxiliary_output.CompositeDeviceAuxiliaryOutput"
FILES = {
    "pyproject.toml": """
        [project]
        name = "sglang-workspace"
        version = "0"

        [tool.uv.workspace]
        members = ["python"]
        """,
    "python/pyproject.toml": """
        [project]
        name = "sglang"
        version = "0"

        [tool.setuptools.packages.find]
        exclude = ["benchmark*", "docs*", "tests*"]
        """,
    "python/sglang/__init__.py": "",
    AUX: AUX_SOURCE,
    "python/sglang/srt/sampling/sampling_observer_pp.py": "def add_auxiliary_output_to_pp_tensors(d, o):\n"
                                                          "    return d\n",
    "test/registered/unit/test_auxiliary_output.py": """
        from sglang.srt.managers.auxiliary_output import CompositeDeviceAuxiliaryOutput


        def test_composite():
            assert CompositeDeviceAuxiliaryOutput([]).outputs == []
        """,
}


@pytest.fixture(params=["workspace", "git-checkout"])
def repo(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write(tmp_path / "sglang", FILES)
    if request.param == "git-checkout":
        (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("given", [["python"], ["python", "test"], [AUX], ["."]],
                         ids=["python", "python-test", "file", "root"])
def test_the_composite_output_keeps_its_name(repo: Path, given: list[str]) -> None:
    assert reported(*given) == {(AUX, COMPOSITE, "PPA001")}


def test_from_inside_python(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "python")
    assert reported("sglang") == {("sglang/srt/managers/auxiliary_output.py", COMPOSITE, "PPA001")}


def test_inventory_shows_the_name_and_the_config(repo: Path) -> None:
    files = inventory_files("python", "test")
    assert files[AUX] == {"path": AUX, "module": "sglang.srt.managers.auxiliary_output",
                          "config": "python/pyproject.toml", "shadowed_by": None}
    assert files["test/registered/unit/test_auxiliary_output.py"]["module"] == \
        "test.registered.unit.test_auxiliary_output"
