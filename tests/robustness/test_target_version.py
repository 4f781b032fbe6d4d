"""Files are parsed for the Python versions the project declares, not for the interpreter that runs ppaux-lint.

Syntax newer than the oldest Python a project allows (its ``requires-python``, or ``[tool.ppaux-lint]
target-version``) is a syntax error (PPA000) whichever Python runs the check; syntax that the running Python is
too old to read says so rather than blame the file; and the cached summaries are kept per target, so changing it
re-parses. Each case holds on every interpreter from 3.10 to 3.14.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ppaux_lint.cli.main import cli
from ppaux_lint.project.config import ConfigError, parse_config
from ppaux_lint.project.python_versions import DEFAULT_TARGET, target

from ._support import BROKEN_OUTPUT, TOKEN_LINE, by_file, chdir, run, write_tree

RUNNING = sys.version_info[1]
EXCEPT_STAR = TOKEN_LINE + "try:\n    pass\nexcept* ValueError:\n    pass\n"  # Python 3.11's grammar
MATCH = TOKEN_LINE + "match x:\n    case 1:\n        pass\n"  # Python 3.10's


def _project(tmp_path: Path, code: str, pyproject: str) -> Path:
    return write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT, "pkg/new.py": code},
                      pyproject)


def _errors(root: Path, **options) -> list[str]:
    """The PPA000 messages of pkg/new.py; pkg/good.py's PPA001 shows the run went on."""
    findings = run(root, **options).findings
    assert "PPA001" in by_file(findings, root)["pkg/good.py"]
    return [f.message for f in findings if f.code == "PPA000" and f.path.endswith("new.py")]


@pytest.mark.parametrize(("pyproject", "error"), [
    ('requires-python = ">=3.10"\n', True),  # except* is 3.11 syntax: an error even when run on 3.11 or later
    ('requires-python = ">=3.11"\n', RUNNING < 11),
    ("", True),  # neither declared: the default, Python 3.10
    ('requires-python = ">=3.11"\n[tool.ppaux-lint]\ntarget-version = "py310"\n', True),  # the config overrides
    ('requires-python = ">=3.10"\n[tool.ppaux-lint]\ntarget-version = "py311"\n', RUNNING < 11),
])
def test_syntax_newer_than_the_target_is_a_syntax_error_on_every_interpreter(tmp_path: Path, pyproject: str,
                                                                              error: bool) -> None:
    messages = _errors(_project(tmp_path, EXCEPT_STAR, pyproject), no_cache=True)
    assert len(messages) == error
    assert all("syntax error: " in m for m in messages)


def test_a_project_allowing_python_older_than_match_may_not_use_it(tmp_path: Path) -> None:
    assert _errors(_project(tmp_path, MATCH, 'requires-python = ">=3.8"\n'), no_cache=True)
    assert not _errors(_project(tmp_path / "new", MATCH, 'requires-python = ">=3.10"\n'), no_cache=True)


def test_an_interpreter_older_than_the_target_is_named_not_the_file(tmp_path: Path) -> None:
    """A target newer than the running Python: what it cannot parse may be right for the target."""
    newer = RUNNING + 1
    code = TOKEN_LINE + "def f(:\n    pass\n"  # a syntax error on any Python: the interpreter cannot tell
    root = _project(tmp_path, code, f'[tool.ppaux-lint]\ntarget-version = "py3{newer}"\n')
    (message,) = _errors(root, no_cache=True)
    assert "syntax error: " in message
    assert (f"ppaux-lint runs on Python 3.{RUNNING}, older than Python 3.{newer} that the project targets"
            in message)
    at_target = _project(tmp_path / "same", code, f'[tool.ppaux-lint]\ntarget-version = "py3{RUNNING}"\n')
    assert "older than" not in _errors(at_target, no_cache=True)[0]


def test_changing_the_target_parses_the_cached_file_again(tmp_path: Path) -> None:
    root = _project(tmp_path, EXCEPT_STAR, 'requires-python = ">=3.11"\n')
    before = _errors(root)  # its summary is cached under Python 3.11's grammar
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0"\nrequires-python = ">=3.10"\n',
                                         encoding="utf-8")
    assert len(before) == (RUNNING < 11) and len(_errors(root)) == 1


def test_standard_input_is_parsed_for_the_same_target(tmp_path: Path) -> None:
    root = _project(tmp_path, "", 'requires-python = ">=3.10"\n')
    with chdir(root):
        result = CliRunner().invoke(cli, ["check", "--output-format", "json", "--stdin-filename", "pkg/new.py", "-"],
                                    input=EXCEPT_STAR.encode())
    assert [r["code"] for r in json.loads(result.stdout)] == ["PPA000"]


@pytest.mark.parametrize(("requires", "configured", "expected"), [
    (None, None, DEFAULT_TARGET), ("not a specifier", None, DEFAULT_TARGET), (">=3.12", None, 12),
    ("~=3.11.2", None, 11), (">=3.8,<3.12", None, 8), (">=3.0", None, 7), (">=3.12", 10, 10)])
def test_the_target_is_the_oldest_python_allowed(requires: str | None, configured: int | None, expected: int) -> None:
    assert target(configured, requires) == expected


@pytest.mark.parametrize("value", ["3.11", "py2", "py36", "py3", 311, ["py311"]])
def test_a_target_version_ruff_would_not_read_is_refused(value: object) -> None:
    with pytest.raises(ConfigError, match=r"'tool\.ppaux-lint\.target-version' must be a Python version"):
        parse_config({"target-version": value}, None)
    assert parse_config({"target-version": "py314"}, None).target_version == 14
