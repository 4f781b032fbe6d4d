"""Item 1: PEP 420 namespace packages. ``acme/`` has no ``__init__.py``, ``acme/steer/`` has one.

The modules are ``acme.steer.*``, so ``from acme.steer.base import ...`` resolves and the findings on the
classes built on those bases are reported, whichever way the tool is called and whichever way the project
names its source root: ``src/``, the packaging config, or the ``src`` setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ppaux_lint.project.layout import packaging_roots

from .conftest import IMPORT_AUX, IMPORT_OBS, inventory_files, reported, write

BASE = IMPORT_AUX + IMPORT_OBS + """

class SteerOutput(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"steer": self.steer}


class SteerObserverBase(SamplingObserver):
    def after_sample(self, state, token_ids):
        return SteerOutput()

    def from_pp_tensors(self, tensors):
        return SteerOutput()
"""
# Both classes are outputs or observers only through their bases in acme.steer.base.
IMPL = """
    from acme.steer.base import SteerObserverBase, SteerOutput


    class Steered(SteerOutput):
        to_pp_tensors = None


    class SteerObserver(SteerObserverBase):
        from_pp_tensors = None
    """
EXPECTED = {("acme.steer.impl.Steered", "PPA001"), ("acme.steer.impl.SteerObserver", "PPA002")}

LAYOUTS = {  # source root -> the pyproject.toml that names it
    "src": '[project]\nname = "acme-steer"\nversion = "0"\n',
    "lib": '[project]\nname = "acme-steer"\nversion = "0"\n\n[tool.setuptools.packages.find]\nwhere = ["lib"]\n',
    "code": '[project]\nname = "acme-steer"\nversion = "0"\n\n[tool.ppaux-lint]\nsrc = ["code"]\n',
}


@pytest.fixture(params=sorted(LAYOUTS))
def source_root(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    root = write(tmp_path / "proj", {"pyproject.toml": LAYOUTS[request.param],
                                     f"{request.param}/acme/steer/__init__.py": "",
                                     f"{request.param}/acme/steer/base.py": BASE,
                                     f"{request.param}/acme/steer/impl.py": IMPL})
    monkeypatch.chdir(root)
    return request.param


@pytest.mark.parametrize("how", [".", "root", "file"])
def test_namespace_portion_keeps_its_place_in_the_name(source_root: str, how: str) -> None:
    impl = f"{source_root}/acme/steer/impl.py"
    given = {".": ".", "root": f"{source_root}/", "file": impl}[how]  # "file": as pre-commit passes it
    found = {(symbol, code) for path, symbol, code in reported(given) if path == impl}
    assert found == EXPECTED


def test_inventory_shows_the_module_names(source_root: str) -> None:
    files = inventory_files(".")
    assert files[f"{source_root}/acme/steer/base.py"]["module"] == "acme.steer.base"
    assert files[f"{source_root}/acme/steer/__init__.py"]["module"] == "acme.steer"


def test_a_src_directory_that_is_a_package_is_no_source_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``src/__init__.py`` makes ``src`` a package that the code imports as ``src.*``."""
    root = write(tmp_path / "proj", {"pyproject.toml": LAYOUTS["src"], "src/__init__.py": "",
                                     "src/acme/steer/__init__.py": "", "src/acme/steer/base.py": BASE,
                                     "src/acme/steer/impl.py": IMPL.replace("from acme.", "from src.acme.")})
    monkeypatch.chdir(root)
    assert {(s, c) for p, s, c in reported("src/acme/steer/impl.py")} == {
        (f"src.{symbol}", code) for symbol, code in EXPECTED}


@pytest.mark.parametrize("pyproject, roots", [
    ({"tool": {"setuptools": {"package-dir": {"": "lib"}}}}, ["lib"]),
    ({"tool": {"setuptools": {"packages": {"find": {"where": ["a", "b"]}}}}}, ["a", "b"]),
    ({"tool": {"hatch": {"build": {"targets": {"wheel": {"packages": ["src/acme"]}}}}}}, ["src"]),
    ({"tool": {"hatch": {"build": {"sources": {"python": ""}}}}}, ["python"]),
    ({"tool": {"poetry": {"packages": [{"include": "acme", "from": "lib"}]}}}, ["lib"]),
    ({"tool": {"pdm": {"build": {"package-dir": "lib"}}}}, ["lib"]),
    ({"tool": {"maturin": {"python-source": "python"}}}, ["python"]),
    ({"tool": {"setuptools": {"packages": ["acme"], "package-dir": "not a table"}}}, []),
], ids=["setuptools-package-dir", "setuptools-find", "hatch-packages", "hatch-sources", "poetry", "pdm", "maturin",
        "malformed"])
def test_packaging_configs_name_source_roots(pyproject: dict, roots: list[str]) -> None:
    assert packaging_roots(pyproject) == roots
