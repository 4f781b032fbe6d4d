"""Issue 35, item 2: the pre-commit set-up of docs/ci.md works as written.

Its snippet named ``rev: v0.1.0``, a tag that does not exist. The snippet now pins a commit of this
repository's history, and the tests take it and the manual's commands from docs/ci.md verbatim but for the
repository URL, which becomes this checkout: the machine running the tests may not reach GitHub, and the
history it would fetch there is this one once pushed. So the hook pre-commit installs is the one at the pinned
commit, as a user's would be, not the working tree's (tests/integrations/test_precommit.py tests that one).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml
from test_install_commands import URL

from .conftest import REPO
from .test_precommit import BASE, BROKEN, FIXED, env, git, pre_commit  # noqa: F401 - env is a fixture

pytestmark = pytest.mark.slow

MANUAL = REPO / "docs" / "ci.md"


def manual() -> tuple[str, list[str]]:
    """The first YAML block of docs/ci.md (the pre-commit config) and its console commands."""
    text = MANUAL.read_text(encoding="utf-8")
    snippet = re.search(r"```yaml\n(.*?)```", text, re.DOTALL)[1]
    commands = [line[2:] for line in text.splitlines() if line.startswith("$ pre-commit ")]
    return snippet, commands


def in_repo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)


def test_the_snippet_pins_a_commit_of_this_repository() -> None:
    """``rev`` is a full commit id in this repository's history whose manifest has the hook, and ``repo`` is
    pyproject's repository URL."""
    snippet, _ = manual()
    (entry,) = yaml.safe_load(snippet)["repos"]
    assert entry["repo"] == URL and [h["id"] for h in entry["hooks"]] == ["ppaux-lint"], entry
    rev = str(entry["rev"])
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"rev {rev!r} is not a commit id: there are no release tags"
    if shutil.which("git") is None or in_repo("rev-parse", "HEAD").returncode != 0:
        pytest.skip("not a git checkout")
    if in_repo("cat-file", "-e", f"{rev}^{{commit}}").returncode != 0:
        if in_repo("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
            pytest.skip(f"a shallow clone: the history that holds {rev} is not here")
        pytest.fail(f"docs/ci.md pins {rev}, which is no commit of this repository")
    assert in_repo("merge-base", "--is-ancestor", rev, "HEAD").returncode == 0, f"{rev} is not in HEAD's history"
    manifest = yaml.safe_load(in_repo("show", f"{rev}:.pre-commit-hooks.yaml").stdout)
    assert "ppaux-lint" in [hook["id"] for hook in manifest]


def pinned_by_autoupdate() -> str:
    """The commit ``pre-commit autoupdate --freeze`` pins for this repository: its newest tag's, else HEAD."""
    tag = in_repo("describe", "--tags", "--abbrev=0", "HEAD")
    return in_repo("rev-parse", f"{tag.stdout.strip()}^{{commit}}" if tag.returncode == 0 else "HEAD").stdout.strip()


def test_the_manual_s_config_and_commands_work_as_written(tmp_path: Path, env: dict) -> None:  # noqa: F811
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None or in_repo("rev-parse", "HEAD").returncode != 0:
        pytest.skip("git is not installed, or this is not a git checkout")
    snippet, commands = manual()
    rev = yaml.safe_load(snippet)["repos"][0]["rev"]
    if in_repo("cat-file", "-e", f"{rev}^{{commit}}").returncode != 0:
        pytest.skip(f"{rev} is not here (a shallow clone?): test_the_snippet_pins_a_commit_of_this_repository")
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # the hook must run the pinned commit's code
    project = tmp_path / "project"
    for relative, text in {"pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n', "demo/__init__.py": "",
                           "demo/base.py": BASE, "demo/outputs.py": BROKEN}.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    git("init", "-q", cwd=project, env=env)
    git("add", "-A", cwd=project, env=env)

    def as_written(command: str) -> list[str]:
        words = shlex.split(command.replace(URL, str(REPO)))
        assert words[0] == "pre-commit", command
        return words[1:]

    (try_repo,) = [c for c in commands if c.startswith("pre-commit try-repo ")]
    tried = pre_commit(*as_written(try_repo), cwd=project, env=env)
    assert tried.returncode == 1 and "demo/outputs.py:9:7: PPA001" in tried.stdout, tried.stdout + tried.stderr

    (project / ".pre-commit-config.yaml").write_text(snippet.replace(URL, str(REPO)), encoding="utf-8")
    installed = pre_commit("install", cwd=project, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    git("add", "-A", cwd=project, env=env)
    blocked = subprocess.run(["git", "commit", "-m", "bad"], cwd=project, env=env, capture_output=True, text=True)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode == 1 and "ppaux-lint" in output and "Failed" in output, output
    assert "demo/outputs.py:9:7: PPA001" in output
    (project / "demo" / "outputs.py").write_text(textwrap.dedent(FIXED).lstrip(), encoding="utf-8")
    git("add", "-A", cwd=project, env=env)
    passed = subprocess.run(["git", "commit", "-m", "good"], cwd=project, env=env, capture_output=True, text=True)
    assert passed.returncode == 0 and "Passed" in passed.stdout + passed.stderr, passed.stdout + passed.stderr

    (autoupdate,) = [c for c in commands if c.startswith("pre-commit autoupdate ")]
    updated = pre_commit(*as_written(autoupdate), cwd=project, env=env)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert config["repos"][0]["rev"] == pinned_by_autoupdate()
