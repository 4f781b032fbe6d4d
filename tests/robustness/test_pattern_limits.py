"""Hostile pattern lists are bounded, and valid ones are compiled once (issue 1 of the second safety round).

Each gitignore-style pattern costs a compile of about half a millisecond and is tried on every path: 100,000
``exclude`` or ``per-file-ignores`` patterns (3 MB of pyproject.toml) held a check for more than a minute and
800 MB, a 100,000-line .gitignore 37 s. A source may hold ``fileio.MAX_PATTERNS``: a config with more is a
config error (exit 2, one line); a .gitignore with more is not read, with a warning, as git reads no .gitignore
over 100 MB (its files are then checked, which hides nothing). Up to the limit, every pattern matches as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ppaux_lint.project import globs
from ppaux_lint.project.config import Config
from ppaux_lint.project.excludes import Patterns
from ppaux_lint.support.fileio import MAX_PATTERNS

from ._support import BROKEN_OUTPUT, cli, write_tree

FILES = {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT, "pkg/other.py": BROKEN_OUTPUT}


def _toml_list(patterns: list[str]) -> str:
    return "[" + ", ".join(json.dumps(p) for p in patterns) + "]"


def _checked(stdout: str) -> set[str]:
    return {finding["path"] for finding in json.loads(stdout)}


def _many(count: int) -> list[str]:
    return [f"nowhere{i}/sub*/x{i}.py" for i in range(count)]


@pytest.mark.parametrize("setting", [
    lambda patterns: f"extend-exclude = {_toml_list(patterns)}\n",
    lambda patterns: f"exclude = {_toml_list(patterns)}\n",
    lambda patterns: "[tool.ppaux-lint.per-file-ignores]\n" + "".join(f"{json.dumps(p)} = [\"PPA001\"]\n"
                                                                      for p in patterns),
], ids=["extend-exclude", "exclude", "per-file-ignores"])
def test_a_config_with_more_patterns_than_the_limit_is_a_config_error(tmp_path: Path, setting) -> None:
    root = write_tree(tmp_path / "proj", FILES, "[tool.ppaux-lint]\n" + setting(_many(MAX_PATTERNS + 1)))
    result = cli(["check", "--no-cache", "."], root)
    assert result.returncode == 2, result.stderr
    assert f"{MAX_PATTERNS + 1} patterns; at most {MAX_PATTERNS}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("key", ["extend-exclude", "per-file-ignores"])
def test_patterns_up_to_the_limit_all_apply(tmp_path: Path, key: str) -> None:
    """The last of ``MAX_PATTERNS`` patterns still matches: the limit drops nothing below it."""
    patterns = [*_many(MAX_PATTERNS - 1), "pkg/good.py"]
    if key == "extend-exclude":
        setting = f"[tool.ppaux-lint]\nextend-exclude = {_toml_list(patterns)}\n"
    else:
        setting = "[tool.ppaux-lint.per-file-ignores]\n" + "".join(f"{json.dumps(p)} = [\"PPA\"]\n" for p in patterns)
    root = write_tree(tmp_path / "proj", FILES, setting)
    result = cli(["check", "--no-cache", "--output-format", "json", "."], root)
    assert result.returncode == 1, result.stderr
    assert _checked(result.stdout) == {"pkg/other.py"}


def test_more_exclude_options_than_the_limit_are_a_usage_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", FILES)
    options = [option for i in range(MAX_PATTERNS + 1) for option in ("--exclude", f"n{i}/*")]
    result = cli(["check", "--no-cache", *options, "."], root)
    assert result.returncode == 2, result.stderr
    assert f"--exclude: {MAX_PATTERNS + 1} patterns" in result.stderr, result.stderr


def test_a_gitignore_with_more_patterns_than_the_limit_is_not_read(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", FILES)
    (root / ".git").mkdir()
    lines = ["nowhere/*.py", "# comments and blank lines are not patterns", "", *_many(MAX_PATTERNS - 1),
             "pkg/good.py"]
    (root / ".gitignore").write_text("\n".join(lines) + "\n")
    result = cli(["check", "--no-cache", "--output-format", "json", "."], root)
    assert result.returncode == 1, result.stderr
    assert _checked(result.stdout) == {"pkg/good.py", "pkg/other.py"}
    assert f".gitignore: more than {MAX_PATTERNS} patterns, not read" in result.stderr, result.stderr
    (root / ".gitignore").write_text("\n".join(lines[1:]) + "\n")  # one fewer: read, and its last line applies
    result = cli(["check", "--no-cache", "--output-format", "json", "."], root)
    assert _checked(result.stdout) == {"pkg/other.py"}, result.stderr
    assert "not read" not in result.stderr


def test_a_config_s_patterns_are_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """They were compiled to validate them, then again to match: twice the time of a large list."""
    compiled: list[int] = []
    real = globs.Globs.__init__

    def counting(self, lines) -> None:
        compiled.append(len(lines))
        real(self, lines)

    monkeypatch.setattr(globs.Globs, "__init__", counting)
    patterns = Patterns.of_config(Config(exclude=("a/*.py",), extend_exclude=("b/**/c.py", "d")), "/anchor")
    assert compiled == [2]
    assert patterns.match("/anchor/b/x/c.py", is_dir=False) and not patterns.match("/anchor/b/x/d.py", is_dir=False)


def test_an_invalid_pattern_is_still_named_with_its_key(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", FILES, '[tool.ppaux-lint]\nextend-exclude = ["ok/*.py", "bad/[z-a]"]\n')
    result = cli(["check", "--no-cache", "."], root)
    assert result.returncode == 2, result.stderr
    assert "'tool.ppaux-lint.extend-exclude': invalid pattern 'bad/[z-a]'" in result.stderr, result.stderr
