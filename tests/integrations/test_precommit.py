"""The pre-commit hook, run by the real ``pre-commit`` against a snapshot of this repository.

``pre-commit try-repo`` needs the hook repository to be a git repository and
installs it into a fresh virtualenv with pip, so the snapshot (the package,
``pyproject.toml`` and ``.pre-commit-hooks.yaml`` as they are in the working
tree, committed or not) is committed into a temporary repository first. That
keeps the test independent of the state of the checkout it runs from. pip
needs the package index (for libcst, click, rich, pathspec), so the test is
slow; it is part of the default run all the same.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from .conftest import REPO

pytestmark = pytest.mark.slow

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}

BASE = '''
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


    class ScoreBase(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self
'''
BROKEN = '''
    from dataclasses import dataclass

    import torch

    from demo.base import ScoreBase


    @dataclass
    class ScoreOutput(ScoreBase):
        scores: torch.Tensor
'''
FIXED = BROKEN + '''
        def to_pp_tensors(self):
            return {"scores": self.scores}
'''


def test_manifest() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "ppaux-lint")
    assert hook["entry"] == "ppaux-lint check --force-exclude"  # pre-commit passes excluded files by name
    assert hook["language"] == "python" and hook["types"] == ["python"] and hook["require_serial"] is True


def git(*args: str, cwd: Path, env: dict) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)


def snapshot(destination: Path, env: dict) -> Path:
    """What pip needs to install the hook, copied from the working tree and committed."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z", "--", "ppaux_lint",
                             "pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "LICENSE"],
                            cwd=REPO, capture_output=True, text=True)
    if listed.returncode == 0:
        files = [f for f in listed.stdout.split("\0") if f]
    else:  # not a git checkout (an sdist, say): take the package directory as it is
        files = [str(p.relative_to(REPO)) for p in (REPO / "ppaux_lint").rglob("*") if p.is_file()]
        files += ["pyproject.toml", ".pre-commit-hooks.yaml", "README.md"]
    for relative in files:
        source = REPO / relative
        if not source.is_file() or "__pycache__" in source.parts:
            continue
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    if not (destination / "README.md").exists():  # pyproject names it as the readme
        (destination / "README.md").write_text("# ppaux-lint\n", encoding="utf-8")
    git("init", "-q", cwd=destination, env=env)
    git("add", "-A", cwd=destination, env=env)
    git("commit", "-q", "-m", "snapshot", cwd=destination, env=env)
    return destination


@pytest.fixture
def env(tmp_path: Path) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    environment.update(GIT_ENV)
    environment["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    environment["HOME"] = environment.get("HOME", str(tmp_path))
    return environment


def pre_commit(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def test_hook_fails_on_a_violation_and_passes_once_fixed(tmp_path: Path, env: dict) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    hook_repo = snapshot(tmp_path / "hook-repo", env)

    project = tmp_path / "project"
    (project / "demo").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n', encoding="utf-8")
    (project / "demo" / "__init__.py").write_text("", encoding="utf-8")
    (project / "demo" / "base.py").write_text(textwrap.dedent(BASE).lstrip(), encoding="utf-8")
    bad = project / "demo" / "outputs.py"
    bad.write_text(textwrap.dedent(BROKEN).lstrip(), encoding="utf-8")
    git("init", "-q", cwd=project, env=env)
    git("add", "-A", cwd=project, env=env)

    # only the changed file is passed, as in a commit; its base lives in an unchanged file
    failed = pre_commit("try-repo", str(hook_repo), "ppaux-lint", "--files", "demo/outputs.py", cwd=project, env=env)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "ppaux-lint" in output and "Failed" in output
    assert "demo/outputs.py:9:7: PPA001" in output
    assert "subclass of sglang.srt.managers.auxiliary_output.DeviceAuxiliaryOutput via demo.base.ScoreBase" in output

    bad.write_text(textwrap.dedent(FIXED).lstrip(), encoding="utf-8")
    git("add", "-A", cwd=project, env=env)
    passed = pre_commit("try-repo", str(hook_repo), "ppaux-lint", "--files", "demo/outputs.py", cwd=project, env=env)
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert "Passed" in output


OUTPUT = """
    import torch
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


    class TopKOutput(DeviceAuxiliaryOutput):
        def __init__(self, top_ids):
            self.top_ids = top_ids

        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensors(self):
            return {"top_ids": self.top_ids}
"""
OBSERVER = """
    from sglang.srt.sampling.sampling_observer import SamplingObserver

    from demo.a_output import TopKOutput


    class TopKObserver(SamplingObserver):
        def after_sample(self, state, token_ids):
            return TopKOutput(token_ids)

        def from_pp_tensors(self, tensors):
            return TopKOutput(tensors["token_ids"])
"""


def test_a_cross_file_finding_is_printed_once(tmp_path: Path, env: dict) -> None:
    """Issue 22, item 7: pre-commit runs a hook that is not ``require_serial`` in several processes, each on a
    slice of the files (two here: ``TRAVIS`` makes its concurrency 2 on any machine), and a PPA015 whose ends
    fall into different slices was printed by both. The hook is run as the manifest defines it, from this
    interpreter (``language: system``), so no install is needed."""
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    hook = next(h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
                if h["id"] == "ppaux-lint")
    local = {**{k: v for k, v in hook.items() if k != "minimum_pre_commit_version"}, "language": "system",
             "entry": hook["entry"].replace("ppaux-lint", f"{sys.executable} -m ppaux_lint", 1)}
    project = tmp_path / "project"
    files = {"demo/__init__.py": "", "demo/a_output.py": OUTPUT, "demo/z_observer.py": OBSERVER,
             **{f"demo/filler{n}.py": f"VALUE = {n}\n" for n in range(8)}}
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n', encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}),
                                                   encoding="utf-8")
    git("init", "-q", cwd=project, env=env)
    git("add", "-A", cwd=project, env=env)

    ran = pre_commit("run", "--all-files", cwd=project, env={**env, "TRAVIS": "1"})
    output = ran.stdout + ran.stderr
    assert ran.returncode == 1, output
    located = re.findall(r"^(\S+:\d+:\d+): PPA015", output, re.MULTILINE)
    assert sorted(located) == ["demo/a_output.py:13:17", "demo/z_observer.py:11:35"], output  # each end once
