"""Item 2: no ``pyproject.toml`` or ``.git`` above the path.

``check loose/one.py`` from a directory of thousands of unrelated files must not read them all: as in ruff,
the path's own directory bounds the project, not the working directory. So it reads what a run from inside
``loose/`` reads, and reports the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ppaux_lint.check.engine import Options, analyze

from .conftest import IMPORT_AUX, write

UNRELATED = 2000
FILES = {
    "loose/base.py": IMPORT_AUX + """
class LooseBase(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
""",
    "loose/one.py": """
        from base import LooseBase


        class One(LooseBase):
            pass


        DEFAULT = LooseBase()  # constructed: the base is judged itself, not only through One
        """,
}


@pytest.fixture
def big(tmp_path: Path) -> Path:
    if any((d / m).exists() for d in (tmp_path, *tmp_path.parents) for m in ("pyproject.toml", ".git")):
        pytest.skip("a pyproject.toml or .git above the temporary directory")
    root = write(tmp_path / "big", FILES)
    for number in range(UNRELATED):  # each one mentions a protocol, so a run that walked them would read them
        path = root / f"unrelated{number % 20}" / f"m{number}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# DeviceAuxiliaryOutput\nVALUE = {number}\n", encoding="utf-8")
    return root


def run(cwd: Path, path: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(cwd)
    return analyze([path], Options(no_cache=True))


def test_the_paths_own_directory_bounds_the_project(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = run(big, "loose/one.py", monkeypatch)
    inside = run(big / "loose", "one.py", monkeypatch)
    assert outside.project.root == inside.project.root == (big / "loose").resolve()
    assert sorted(Path(f.path).name for f in outside.discovery.files) == ["base.py", "one.py"]
    assert [(f.code, f.symbol, f.path, f.span) for f in outside.findings] == \
        [(f.code, f.symbol, f.path, f.span) for f in inside.findings] == \
        [("PPA001", "one.One", str((big / "loose" / "one.py").resolve()), inside.findings[0].span)]


def test_a_directory_passed_bounds_itself(big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    analysis = run(big, "loose", monkeypatch)
    assert len(analysis.discovery.files) == 2
    assert {f.symbol for f in analysis.findings} == {"base.LooseBase", "one.One"}
