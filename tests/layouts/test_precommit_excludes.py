"""Item 5: pre-commit honours the project's excludes.

pre-commit passes file names explicitly, and an explicitly passed file is checked even when excluded, so
the shipped hook passes ``--force-exclude`` (as ruff's does). Run with the real ``pre-commit run
--all-files``, an excluded file is never reported, while a broken file that is not excluded still fails
the hook.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from integrations.test_precommit import env, git, pre_commit, snapshot  # noqa: F401 - env is a fixture

from .conftest import IMPORT_AUX, check, write

pytestmark = pytest.mark.slow

BROKEN = IMPORT_AUX + """

class Broken(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
"""
FINE = BROKEN.replace("class Broken", "class Fine") + """
    def to_pp_tensors(self):
        return {"x": self.x}
"""


def test_excluded_files_are_not_reported_through_pre_commit(tmp_path: Path, env: dict,  # noqa: F811
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    hook_repo = snapshot(tmp_path / "hook-repo", env)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    project = write(tmp_path / "project", {
        "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n\n[tool.ppaux-lint]\n'
                          'extend-exclude = ["vendored"]\n',
        "demo/__init__.py": "",
        "demo/good.py": FINE,
        "vendored/thirdparty.py": BROKEN,
        ".pre-commit-config.yaml": textwrap.dedent(f"""
            repos:
              - repo: {hook_repo}
                rev: {rev}
                hooks:
                  - id: ppaux-lint
            """),
    })
    monkeypatch.chdir(project)
    assert check("vendored/thirdparty.py")[0] == 1  # passed by name without --force-exclude, it is checked
    git("init", "-q", cwd=project, env=env)
    git("add", "-A", cwd=project, env=env)

    passed = pre_commit("run", "--all-files", cwd=project, env=env)
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert "Passed" in output and "thirdparty" not in output

    write(project, {"demo/bad.py": BROKEN})
    git("add", "-A", cwd=project, env=env)
    failed = pre_commit("run", "--all-files", cwd=project, env=env)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "demo/bad.py:4:7: PPA001" in output and "thirdparty" not in output
