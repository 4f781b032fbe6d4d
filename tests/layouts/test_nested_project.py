"""Issue 22, item 6: a plugin with its own ``pyproject.toml`` inside a bigger repository.

The nearest ``pyproject.toml`` that makes a project (``[project]``, a build system, packaging config, or a
``[tool.ppaux-lint]`` table) bounds it, as ruff's nearest config does: the outer repository is not read,
however the plugin is passed. The outer one holds it only when it says so: a workspace listing it among its
members, ``src`` entries of its own table covering it (test_monorepo.py), or, for a plugin without a
``[tool.ppaux-lint]`` table, a table of its own (then the plugin's config, as in ruff). A ``pyproject.toml``
holding only another tool's settings makes no project, so the one above holds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ppaux_lint.check.engine import Options, analyze

from .conftest import IMPORT_AUX, write

UNRELATED = 50
PLUGIN = {
    "plugin/pyproject.toml": '[project]\nname = "plug"\nversion = "0"\n',
    "plugin/plug/__init__.py": "",
    "plugin/plug/outputs.py": IMPORT_AUX + """

class PlugOutput(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
""",
}
OUTER = '[project]\nname = "outer"\nversion = "0"\n'


def outer_repository(root: Path, outer: str = OUTER, plugin: str | None = None) -> Path:
    write(root, {**PLUGIN, "pyproject.toml": outer})
    if plugin is not None:
        (root / "plugin" / "pyproject.toml").write_text(plugin, encoding="utf-8")
    (root / ".git").mkdir()
    for number in range(UNRELATED):  # each mentions a protocol, so a run that walked them would read them
        write(root, {f"lib/pkg{number % 5}/__init__.py": "",
                     f"lib/pkg{number % 5}/m{number}.py": IMPORT_AUX + "\n\nclass C(DeviceAuxiliaryOutput):\n    pass\n"})
    return root


def run(cwd: Path, path: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(cwd)
    return analyze([path], Options(no_cache=True))


@pytest.mark.parametrize("cwd, given", [(".", "plugin"), (".", "plugin/plug/outputs.py"), ("plugin", "."),
                                        ("plugin/plug", "outputs.py")])
def test_the_plugins_own_pyproject_bounds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cwd: str,
                                             given: str) -> None:
    repo = outer_repository(tmp_path / "repo")
    analysis = run(repo / cwd, given, monkeypatch)
    assert analysis.project.root == (repo / "plugin").resolve()
    assert sorted(Path(f.path).name for f in analysis.discovery.files) == ["__init__.py", "outputs.py"]
    assert [(f.code, f.symbol) for f in analysis.findings] == [("PPA001", "plug.outputs.PlugOutput")]
    assert analysis.discovery.warnings == ()


@pytest.mark.parametrize("outer, plugin", [
    (OUTER + '\n[tool.uv.workspace]\nmembers = ["plug*"]\n', None),
    (OUTER + '\n[tool.uv.workspace]\nmembers = ["**"]\n', None),
    (OUTER + '\n[tool.ppaux-lint]\nsrc = ["plugin"]\n', None),
    (OUTER + '\n[tool.ppaux-lint]\nignore = ["PPA002"]\n', None),
    (OUTER, "[tool.ruff]\nline-length = 100\n"),
], ids=["workspace-member", "workspace-glob", "src-setting", "outer-config", "not-a-project"])
def test_the_outer_project_holds_it_when_it_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outer: str,
                                                     plugin: str | None) -> None:
    repo = outer_repository(tmp_path / "repo", outer, plugin)
    analysis = run(repo, "plugin", monkeypatch)
    assert analysis.project.root == repo.resolve()
    assert len(analysis.discovery.files) > UNRELATED


def test_a_plugin_with_a_table_of_its_own_is_not_held_by_the_outer_config(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    outer = OUTER + '\n[tool.ppaux-lint]\nignore = ["PPA002"]\n'
    repo = outer_repository(tmp_path / "repo", outer, PLUGIN["plugin/pyproject.toml"] + "\n[tool.ppaux-lint]\n")
    assert run(repo, "plugin", monkeypatch).project.root == (repo / "plugin").resolve()


def test_a_workspace_that_excludes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outer = OUTER + '\n[tool.uv.workspace]\nmembers = ["*"]\nexclude = ["plugin"]\n'
    repo = outer_repository(tmp_path / "repo", outer)
    assert run(repo, "plugin", monkeypatch).project.root == (repo / "plugin").resolve()


@pytest.mark.parametrize("ignored_by", ["gitignore", "exclude"])
def test_a_directory_passed_that_its_repository_leaves_out_is_a_project_of_its_own(tmp_path, monkeypatch,
                                                                                    ignored_by):
    """A virtualenv's ``site-packages`` in a repository that ignores it, passed by path: ruff checks a path it is
    given, so the directory is checked as a project of its own (its packages named from it), unless
    ``--force-exclude`` asks for the repository's exclusions, as the pre-commit hook does."""
    root = tmp_path / "repo"
    venv = "venv/lib/python3.11/site-packages"
    write(root, {"pyproject.toml": OUTER + ('[tool.ppaux-lint]\nexclude = ["venv"]\n' if ignored_by == "exclude"
                                            else ""),
                 f"{venv}/vendor/__init__.py": "",
                 f"{venv}/vendor/outputs.py": PLUGIN["plugin/plug/outputs.py"]})
    (root / ".git").mkdir()
    if ignored_by == "gitignore":
        (root / ".gitignore").write_text("/venv\n", encoding="utf-8")
    analysis = run(root, venv, monkeypatch)
    assert [(f.code, f.symbol) for f in analysis.findings] == [("PPA001", "vendor.outputs.PlugOutput")]
    assert str(analysis.project.root) == str((root / venv).resolve())
    monkeypatch.chdir(root)
    assert analyze([venv], Options(no_cache=True, force_exclude=True)).findings == []
