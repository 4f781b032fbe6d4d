"""Usage and configuration errors: exit 2, one line that names the culprit, never a traceback."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from ._support import BROKEN_OUTPUT, cli, write_tree

TABLE = "[tool.ppaux-lint]\n"

# name -> (pyproject.toml text or None for a valid one, extra CLI args, what the message must name)
CASES: dict[str, tuple[str | None, list[str], list[str]]] = {
    "missing_path": (None, ["does/not/exist.py"], ["does/not/exist.py"]),
    "one_missing_path_among_good": (None, ["pkg", "nothere"], ["nothere"]),
    "unknown_option": (None, ["--bogus", "."], ["--bogus"]),
    "bad_output_format": (None, ["--output-format", "xml", "."], ["xml"]),
    "unknown_select_code": (None, ["--select", "ZZZ999", "."], ["ZZZ999"]),
    "unknown_ignore_code": (None, ["--ignore", "PPA9", "."], ["PPA9"]),
    "bad_exclude_option": (None, ["--exclude", "src/[z-a]", "."], ["--exclude", "src/[z-a]"]),
    "config_file_missing": (None, ["--config", "nowhere.toml", "."], ["nowhere.toml"]),
    "unknown_key": (TABLE + "bogus = 1\n", [], ["tool.ppaux-lint.bogus", "pyproject.toml"]),
    "misspelt_key": (TABLE + "extend_exclude = []\n", [], ["extend_exclude", "pyproject.toml"]),
    "select_not_a_list": (TABLE + 'select = "PPA001"\n', [], ["tool.ppaux-lint.select", "pyproject.toml"]),
    "select_list_of_ints": (TABLE + "select = [1]\n", [], ["tool.ppaux-lint.select"]),
    "select_unknown_code": (TABLE + 'select = ["NOPE1"]\n', [], ["NOPE1", "pyproject.toml"]),
    "structural_not_bool": (TABLE + 'structural = "yes"\n', [], ["tool.ppaux-lint.structural"]),
    "cache_dir_not_string": (TABLE + "cache-dir = 3\n", [], ["tool.ppaux-lint.cache-dir"]),
    "per_file_ignores_not_table": (TABLE + 'per-file-ignores = ["x"]\n', [], ["per-file-ignores"]),
    "per_file_ignores_value": (TABLE + 'per-file-ignores = {"a.py" = 3}\n', [], ["per-file-ignores.a.py"]),
    "protocols_unknown_key": ("[tool.ppaux-lint.protocols]\nroots = []\n", [], ["protocols.roots"]),
    "protocols_wrong_type": ("[tool.ppaux-lint.protocols]\noutput = 3\n", [], ["protocols.output"]),
    "verify_unknown_key": ("[tool.ppaux-lint.verify]\nexample = {}\n", [], ["verify.example"]),
    "verify_timeout": ("[tool.ppaux-lint.verify]\ntimeout = -1\n", [], ["verify.timeout"]),
    "verify_timeout_nan": ("[tool.ppaux-lint.verify]\ntimeout = nan\n", [], ["verify.timeout", "nan"]),
    "verify_timeout_inf": ("[tool.ppaux-lint.verify]\ntimeout = inf\n", [], ["verify.timeout", "inf"]),
    "table_not_a_table": ('[tool]\nppaux-lint = "on"\n', [], ["tool.ppaux-lint"]),
    "invalid_toml": (TABLE + "select = [\n", [], ["pyproject.toml", "TOML"]),
    "duplicate_key": (TABLE + "structural = true\nstructural = false\n", [], ["pyproject.toml"]),
    "config_not_utf8": (TABLE + 'select = ["\udcff"]\n', [], ["pyproject.toml"]),
    "exclude_bad_pattern": (TABLE + 'exclude = ["src/[z-a]"]\n', [], ["tool.ppaux-lint.exclude", "src/[z-a]"]),
    "extend_exclude_bad_pattern": (TABLE + 'extend-exclude = ["a/\\\\"]\n', [], ["extend-exclude"]),
}


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith(("ppaux-lint: error:", "Error:"))]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_usage_and_config_errors(tmp_path: Path, name: str) -> None:
    config, args, named = CASES[name]
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT})
    if config is not None:
        (root / "pyproject.toml").write_bytes(config.encode("utf-8", "surrogateescape"))
    result = cli(["check", *args] if args else ["check", "."], root, timeout=60)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    line = _one_error_line(result.stderr)
    for culprit in named:
        assert culprit in line, (culprit, line)
    assert not result.stdout.strip() or name in ("unknown_option", "bad_output_format")


def test_a_top_level_tool_key_that_is_not_a_table(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": ""})
    (root / "pyproject.toml").write_text("tool = 3\n")
    result = cli(["check", "."], root)
    assert result.returncode == 2 and "internal error" not in result.stderr, result.stderr


def test_a_per_file_ignores_glob_that_is_invalid(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT},
                      TABLE + 'per-file-ignores = {"[z-a]/x" = ["PPA001"]}\n')
    result = cli(["check", "."], root)
    assert result.returncode == 2 and "internal error" not in result.stderr, result.stderr
    assert "[z-a]/x" in _one_error_line(result.stderr)


def test_an_invalid_gitignore_pattern_is_a_warning_not_an_error(tmp_path: Path) -> None:
    """git skips a pattern it cannot parse, and the project's .gitignore is not ours to reject."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT,
                                          "ignored/x.py": BROKEN_OUTPUT,
                                          ".gitignore": "src/[z-a]\n!\nignored/\nend/\\\n"})
    result = cli(["check", "--no-cache", "--output-format", "concise", "."], root)
    assert result.returncode == 1, result.stderr
    assert "pkg/good.py" in result.stdout and "ignored/x.py" not in result.stdout  # valid lines still apply
    assert "invalid pattern 'src/[z-a]' ignored" in result.stderr and "Traceback" not in result.stderr


def test_a_cache_dir_the_system_cannot_make_is_a_slow_cache_not_an_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT})
    result = cli(["check", "--cache-dir", "/proc/no/such/cache", "--output-format", "concise", "."], root)
    assert result.returncode == 1 and "pkg/good.py" in result.stdout, result.stderr


@pytest.mark.parametrize("value, why", [('"a\\u0000b"', "cannot name a directory"),
                                        ('"/proc/no/such/cache"', "lies outside the project")])
def test_a_config_cache_dir_that_can_never_be_right_is_an_error(tmp_path: Path, value: str, why: str) -> None:
    """A NUL names no directory; a repository's config does not choose a place outside itself: exit 2, one line
    naming the setting (the user's --cache-dir may put the cache anywhere)."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT},
                      f"{TABLE}cache-dir = {value}\n")
    result = cli(["check", "--output-format", "concise", "."], root)
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = _one_error_line(result.stderr)
    assert "'tool.ppaux-lint.cache-dir'" in line and why in line, line


def test_a_fifo_as_config_file_does_not_hang(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT})
    os.mkfifo(root / "ppaux.toml")
    result = cli(["check", "--config", "ppaux.toml", "."], root, timeout=60)
    assert result.returncode == 2 and "ppaux.toml" in _one_error_line(result.stderr)


# Every command follows the one error policy. The config cases that each command must reject are those
# it reads: `clean` reads the config's structure, not which rules it selects.
EVERY_COMMAND_CASES = ("invalid_toml", "unknown_key", "protocols_wrong_type", "verify_timeout", "verify_timeout_nan",
                       "exclude_bad_pattern", "per_file_ignores_value", "select_unknown_code")
COMMANDS = ("verify", "inventory", "clean")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", EVERY_COMMAND_CASES)
def test_every_command_reports_a_config_error_the_same_way(tmp_path: Path, command: str, name: str) -> None:
    config, _, named = CASES[name]
    if command == "clean" and name in ("select_unknown_code", "exclude_bad_pattern", "per_file_ignores_value"):
        pytest.skip("clean neither selects rules nor walks files")
    if command == "verify" and importlib.util.find_spec("torch") is None:
        pytest.skip("without PyTorch, verify says so before it reads the config")
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT})
    (root / "pyproject.toml").write_bytes(config.encode("utf-8", "surrogateescape"))
    result = cli([command, "."], root, timeout=120)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    line = _one_error_line(result.stderr)
    assert line.startswith("ppaux-lint: error: ")
    for culprit in named:
        assert culprit in line, (culprit, line)


@pytest.mark.parametrize(("args", "named"), [
    (["verify", "--device", "tpu", "."], ["--device", "tpu"]),
    (["verify", "--transport", "carrier-pigeon", "."], ["--transport", "carrier-pigeon"]),
    (["verify", "--timeout", "nan", "."], ["--timeout", "nan"]),
    (["verify", "--timeout", "inf", "."], ["--timeout", "inf"]),
    (["inventory", "--output-format", "xml", "."], ["--output-format", "xml"]),
    (["rule", "PPA999"], ["PPA999"]),
    (["rules", "--output-format", "yaml"], ["--output-format", "yaml"]),
    (["check", "--select", "PPA001", "--ignore", "NOPE", "."], ["--ignore", "NOPE"]),
    (["nonsense"], ["nonsense"]),
])
def test_every_command_reports_a_bad_flag_in_one_line(tmp_path: Path, args: list[str], named: list[str]) -> None:
    if args[0] == "verify" and importlib.util.find_spec("torch") is None:
        pytest.skip("without PyTorch, verify says so before it reads its flags' values")
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT})
    result = cli(args, root, timeout=120)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    line = _one_error_line(result.stderr)
    for culprit in named:
        assert culprit in line, (culprit, line)
