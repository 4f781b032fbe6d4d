"""A file named like an option never becomes one.

pre-commit runs the hook's entry with the staged file names after it, as they are, and so does any script that
passes ``git diff --name-only``: a commit that adds a file named ``--exclude=*.py`` (a Python file, by its
suffix) turned every later run of the hook into ``check --force-exclude ... --exclude=*.py ...``, which excluded
every file and passed, whatever the other files held. An argument that would be read as an option but names
a file where ``check`` runs is refused (exit 2, one line naming it); after ``--``, or as ``./--name``, it is
a path like any other.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from ._support import BROKEN_OUTPUT, REPO, cli, console, one_error_line, write_tree

HOOK = next(h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
            if h["id"] == "ppaux-lint")
PLANTED = ("--exclude=*.py", "--extend-ignore=PPA.py", "--exit-zero", "--select=PPA000.py")


def _hook(*files: str) -> list[str]:
    """The arguments ``ppaux-lint`` gets from pre-commit for ``files``: the entry's, then the names."""
    return [*shlex.split(HOOK["entry"])[1:], *files]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {"pkg/__init__.py": "", "pkg/broken.py": BROKEN_OUTPUT, **dict.fromkeys(PLANTED, "x = 1\n")}
    return write_tree(tmp_path / "proj", files)


@pytest.mark.parametrize("before", [[], ["--debug"]])
@pytest.mark.parametrize("planted", PLANTED)
def test_a_staged_file_named_like_an_option_cannot_pass_the_hook(root: Path, planted: str, before: list[str]) -> None:
    done = cli([*before, *_hook("pkg/broken.py", planted)], root)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert planted in one_error_line(done.stderr) and "Traceback" not in done.stderr


@pytest.mark.parametrize("spelling", [["--", "--exclude=*.py"], ["./--exclude=*.py"]])
def test_such_a_file_is_a_path_after_the_double_dash_or_with_a_directory(root: Path, spelling: list[str]) -> None:
    done = cli(["check", "--output-format", "concise", "pkg/broken.py", *spelling], root)
    assert done.returncode == 1, done.stderr
    assert "pkg/broken.py:4:7: PPA001" in done.stdout


def test_options_that_name_no_file_are_options(root: Path) -> None:
    done = cli(["check", "--output-format", "concise", "--exclude=pkg/broken.py", "."], root)
    assert done.returncode == 0, (done.stdout, done.stderr)


def test_an_option_s_own_value_may_name_such_a_file(root: Path) -> None:
    """``--stdin-filename -x.py``: an editor's buffer of a file whose name starts with a dash."""
    (root / "-x.py").write_text(BROKEN_OUTPUT)
    done = subprocess.run([*console(), "check", "--output-format", "concise", "--stdin-filename", "-x.py", "-"],
                          cwd=root, input=BROKEN_OUTPUT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "-x.py:4:7: PPA001" in done.stdout, (done.stdout, done.stderr)
