"""Item 2: no ``pyproject.toml`` or ``.git`` above the path.

``check loose/one.py`` from a directory of thousands of unrelated files must not read them all: as in ruff,
the path's own directory bounds the project, not the working directory. So it reads what a run from inside
``loose/`` reads, and reports the same. And a project inside ``loose/`` (a clone, a project with its own
``pyproject.toml``) is a project of its own, not part of the loose file's (issue 32, item 11): it is read only
when a path asked about is in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ppaux_lint.check.engine import Options, analyze
from ppaux_lint.server.linting import Document, lint

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


NESTED = 300  # files of each project beside the loose file, each defining an output: all would be parsed
OUTPUT = IMPORT_AUX + """
class Other{0}(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self


SAMPLE = Other{0}()
"""


@pytest.fixture
def crowded(big: Path) -> Path:
    """``big/loose`` with two projects inside it, a package of its own and a directory whose pyproject.toml
    only configures another tool (no project: it stays part of the loose directory)."""
    loose = big / "loose"
    (loose / "helpers").mkdir()
    (loose / "helpers" / "__init__.py").write_text("")
    (loose / "helpers" / "extra.py").write_text(OUTPUT.format("Helper"))
    (loose / "tools").mkdir()
    (loose / "tools" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (loose / "tools" / "tool.py").write_text(OUTPUT.format("Tool"))
    write(loose / "otherproj", {"pyproject.toml": '[project]\nname = "other"\nversion = "0"\n'})
    (loose / "clone" / ".git").mkdir(parents=True)
    for number in range(NESTED):
        for nested in (loose / "otherproj" / "src" / "other", loose / "clone" / "pkg"):
            nested.mkdir(parents=True, exist_ok=True)
            (nested / f"m{number}.py").write_text(OUTPUT.format(number))
    return loose


def _names(analysis) -> set[str]:
    return {str(Path(f.path).relative_to((analysis.project.root).resolve())) for f in analysis.discovery.files}


def test_a_loose_file_leaves_the_projects_beside_it_alone(crowded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = run(crowded, "one.py", monkeypatch)
    assert _names(alone) == {"base.py", "one.py", "helpers/__init__.py", "helpers/extra.py", "tools/tool.py"}
    assert len(alone.summaries) <= 5  # the work is bounded by the loose directory's own files, not the clone's
    assert [(f.code, f.symbol) for f in alone.findings] == [("PPA001", "one.One")]
    server = lint({str(crowded.resolve() / "one.py"): Document("file:///one.py", 1, (crowded / "one.py").read_text())})
    assert server.analysis is not None and len(server.analysis.summaries) <= 5
    assert [(f.code, f.symbol) for f in server.analysis.findings] == [("PPA001", "one.One")]


def test_a_broken_config_beside_a_loose_file_is_left_alone(crowded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project beside the loose file whose ppaux-lint table is half edited (invalid TOML) is a project of its own,
    not read for the loose file's run: its error hid the loose file's finding behind exit 2."""
    (crowded / "otherproj" / "pyproject.toml").write_text('[project]\nname = "other"\n[tool.ppaux-lint]\nselect = [\n')
    alone = run(crowded, "one.py", monkeypatch)
    assert [(f.code, f.symbol) for f in alone.findings] == [("PPA001", "one.One")]


@pytest.mark.parametrize("asked", [["one.py", "otherproj/src/other/m7.py"], ["."]])
def test_a_project_beside_a_loose_file_is_read_when_asked(crowded: Path, monkeypatch: pytest.MonkeyPatch,
                                                          asked: list[str]) -> None:
    monkeypatch.chdir(crowded)
    analysis = analyze(asked, Options(no_cache=True))
    assert "otherproj/src/other/m7.py" in _names(analysis)
    assert ("PPA001", "other.m7.Other7") in {(f.code, f.symbol) for f in analysis.findings}
    assert ("clone/pkg/m7.py" in _names(analysis)) == (asked == ["."])
