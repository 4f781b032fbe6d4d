"""Item 4: a monorepo whose sub-projects carry their own config.

Every file follows the nearest ``pyproject.toml`` with a ``[tool.ppaux-lint]`` table, as in ruff: its
select/ignore, per-file-ignores, excludes and protocols. A file's findings are the same whether it is passed
alone, with a file of another sub-project, or reached through ``check .`` from the repository root (or from
its sub-project), and a sub-project may build on another one's classes.

- the root table adds a fork's output protocol and ignores PPA002; ``alpha`` has no table, so it follows it;
- ``beta`` has its own table: none of the root's settings apply there, and it has its own excludes and
  per-file-ignores.

The root keeps its sub-projects inside it because it says so (layout.py): it is a uv workspace listing them
as members, or its table's ``src`` names their source roots. A root that does neither does not hold them:
each sub-project is a project of its own (test_nested_project.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from integrations.conftest import run_cli

from .conftest import IMPORT_AUX, IMPORT_OBS, check, inventory_files, write

ALPHA = "packages/alpha/src/alpha"
BETA = "packages/beta/src/beta"
# the root's pyproject.toml: how it declares its sub-projects, then its table
ROOTS = {
    "uv-workspace": '[tool.uv.workspace]\nmembers = ["packages/*"]\n\n[tool.ppaux-lint]\n',
    "src-setting": '[tool.ppaux-lint]\nsrc = ["packages/alpha/src", "packages/beta/src"]\n',
}
ROOT_TABLE = 'ignore = ["PPA002"]\n\n[tool.ppaux-lint.protocols]\noutput = ["fork.aux.ForkOutput"]\n'
FILES = {
    "packages/alpha/pyproject.toml": '[project]\nname = "alpha"\nversion = "0"\n',
    f"{ALPHA}/__init__.py": "",
    f"{ALPHA}/base.py": IMPORT_AUX + """

class AlphaBase(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"alpha": self.alpha}
""",
    f"{ALPHA}/outputs.py": IMPORT_OBS + """
from fork.aux import ForkOutput


class ForkBased(ForkOutput):  # an output under the root's protocols, which alpha follows
    pass


class AlphaObserver(SamplingObserver):  # PPA002, which the root's config ignores
    def after_sample(self, state, token_ids):
        return token_ids  # may be an output, so the observer must rebuild it
""",
    "packages/beta/pyproject.toml": """
        [project]
        name = "beta"
        version = "0"

        [tool.ppaux-lint]
        extend-exclude = ["src/beta/generated"]
        per-file-ignores = { "src/beta/legacy.py" = ["PPA001"] }
        """,
    f"{BETA}/__init__.py": "",
    f"{BETA}/outputs.py": IMPORT_OBS + """
from alpha.base import AlphaBase
from fork.aux import ForkOutput


class BetaChild(AlphaBase):  # built on another sub-project's class
    to_pp_tensors = None


class BetaObserver(SamplingObserver):  # PPA002: beta's own config does not ignore it
    def after_sample(self, state, token_ids):
        return token_ids  # may be an output, so the observer must rebuild it


class ForkInBeta(ForkOutput):  # beta's config knows no fork protocol: an unknown base, so silence
    pass
""",
    f"{BETA}/legacy.py": IMPORT_AUX + """

class Legacy(DeviceAuxiliaryOutput):  # PPA001, ignored for this file by beta's per-file-ignores
    def copy_to_host(self, copy_tensor):
        return self
""",
    f"{BETA}/generated/gen.py": IMPORT_AUX + "\n\nclass Generated(DeviceAuxiliaryOutput):\n    pass\n",
}
EXPECTED = {
    f"{ALPHA}/outputs.py": {("alpha.outputs.ForkBased", "PPA001")},
    f"{BETA}/outputs.py": {("beta.outputs.BetaChild", "PPA001"), ("beta.outputs.BetaObserver", "PPA002")},
}


ROOT_PROJECT = '[project]\nname = "monorepo"\nversion = "0"\n\n'


@pytest.fixture(params=sorted(ROOTS))
def repo(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write(tmp_path / "repo", {**FILES, "pyproject.toml": ROOT_PROJECT + ROOTS[request.param] + ROOT_TABLE})
    monkeypatch.chdir(root)
    return root


def by_file(repo: Path, *args: str) -> dict[str, set[tuple[str, str]]]:
    """{path relative to the repository: {(symbol, code)}} reported by ``check ARGS`` from the cwd."""
    out: dict[str, set[tuple[str, str]]] = {}
    for f in check(*args)[1]:
        path = Path(os.path.abspath(f["path"])).relative_to(repo.resolve()).as_posix()
        out.setdefault(path, set()).add((f["symbol"], f["code"]))
    return out


@pytest.mark.parametrize("given", [
    [f"{ALPHA}/outputs.py"], [f"{BETA}/outputs.py"], [f"{ALPHA}/outputs.py", f"{BETA}/outputs.py"],
    ["."], ["packages"], ["packages/beta"], [f"{BETA}/legacy.py", f"{ALPHA}"],
], ids=["alpha-alone", "beta-alone", "together", "root", "packages", "beta-project", "mixed"])
def test_findings_do_not_depend_on_how_the_file_is_reached(repo: Path, given: list[str]) -> None:
    found = by_file(repo, *given)
    expected = {path: codes for path, codes in EXPECTED.items() if any(path.startswith(g) or g == "."
                                                                      for g in given)}
    assert found == expected


def test_from_inside_a_sub_project(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "packages" / "beta")
    assert by_file(repo, ".") == {f"{BETA}/outputs.py": EXPECTED[f"{BETA}/outputs.py"]}


def test_each_sub_projects_excludes(repo: Path) -> None:
    generated = f"{BETA}/generated/gen.py"
    assert generated not in by_file(repo, ".")
    assert by_file(repo, generated) == {generated: {("beta.generated.gen.Generated", "PPA001")}}  # passed by name
    assert by_file(repo, "--force-exclude", generated) == {}


def test_config_file_replaces_every_table(repo: Path) -> None:
    (repo / "ci.toml").write_text('select = ["PPA002"]\n', encoding="utf-8")
    assert by_file(repo, "--config", "ci.toml", ".") == {
        f"{ALPHA}/outputs.py": {("alpha.outputs.AlphaObserver", "PPA002")},
        f"{BETA}/outputs.py": {("beta.outputs.BetaObserver", "PPA002")},
    }


def test_inventory_names_the_config_each_file_follows(repo: Path) -> None:
    files = inventory_files(".")
    assert files[f"{ALPHA}/outputs.py"]["config"] == "pyproject.toml"
    assert files[f"{BETA}/outputs.py"]["config"] == "packages/beta/pyproject.toml"
    assert files[f"{BETA}/outputs.py"]["module"] == "beta.outputs"


@pytest.mark.parametrize("given", [f"{ALPHA}/outputs.py", "."])
def test_a_sub_projects_bad_setting_names_its_file_and_key(repo: Path, given: str) -> None:
    beta = repo / "packages" / "beta" / "pyproject.toml"
    beta.write_text(beta.read_text(encoding="utf-8") + 'ignore = "PPA001"\n', encoding="utf-8")
    result = run_cli("check", "--output-format", "json", given)
    assert result.exit_code == 2
    assert "packages/beta/pyproject.toml" in result.stderr and "'tool.ppaux-lint.ignore'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
