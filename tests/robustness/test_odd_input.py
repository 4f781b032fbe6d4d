"""One bad file never hides another file's findings; odd values are usage errors, not bugs (issue 24, 9-11).

- A ``pyproject.toml`` that cannot be read or parsed is a warning when it does not configure ppaux-lint (a
  test fixture's, another tool's) and a config error (exit 2, one line) when it does, or when ``--config``
  names it.
- A file passed by name that cannot be read is its own PPA000; one that cannot even be looked at (a symlink
  loop, a directory the run may not search) is a warning. The other files' findings are reported.
- A value that names no file (``""``, a NUL byte, a directory for ``--stdin-filename``), a name too long, or a
  config nested deeper than the TOML parser recurses is exit 2 and one line naming it, never an internal error.
- A file whose coding cookie names another codec is searched and parsed as Python decodes it.

Tests run as root here, where ``chmod 000`` denies nothing: the unreadable cases run the command without the
capabilities that let root read anyway (``setpriv``), and are skipped where that cannot be done.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ._support import BROKEN_OUTPUT, by_file, chdir, cli, console, deadline, run, unprivileged, write_tree

CONFIGURED = "[tool.ppaux-lint]\n"
# pyproject.toml texts that cannot be parsed, and do not configure ppaux-lint
FOREIGN_BROKEN = {
    "invalid TOML": b"[broken\n",
    "not UTF-8": b'[project]\nname = "\xff"\n',
    "nested too deeply": b"[project]\nx = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "the package among its dependencies": b'[project]\ndependencies = ["ppaux-lint"]\nname = \n',
}
# ... and ones that do: their mistakes are the user's to fix before any check
OWN_BROKEN = {
    "an unclosed table": b"[tool.ppaux-lint\nselect = []\n",
    "an unclosed list": CONFIGURED.encode() + b"select = [\n",
    "a dotted key": b'tool.ppaux-lint.select = ["PPA001"\n',
    "nested too deeply": CONFIGURED.encode() + b"select = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
}


def _codes(stdout: str) -> dict[str, set[str]]:
    """{path: {codes}} from JSON output."""
    codes: dict[str, set[str]] = {}
    for finding in json.loads(stdout):
        codes.setdefault(finding["path"], set()).add(finding["code"])
    return codes


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("ppaux-lint: error:")]
    assert len(lines) == 1 and "internal error" not in stderr and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT,
                                          "tests/fixture/sample.py": BROKEN_OUTPUT})


# -- a broken pyproject.toml -------------------------------------------------------------------------------


@pytest.mark.parametrize("broken", sorted(FOREIGN_BROKEN))
@pytest.mark.parametrize("paths", [["."], ["pkg/good.py", "tests/fixture/sample.py"]])
def test_a_broken_pyproject_that_configures_nothing_is_a_warning(root: Path, broken: str, paths: list[str]) -> None:
    fixture = root / "tests" / "fixture" / "pyproject.toml"
    fixture.write_bytes(FOREIGN_BROKEN[broken])
    result = cli(["check", "--output-format", "json", *paths], root)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/good.py": {"PPA001"}, "tests/fixture/sample.py": {"PPA001"}}
    warnings = [line for line in result.stderr.splitlines() if str(fixture) in line]
    assert len(warnings) == 1 and warnings[0].startswith("ppaux-lint: warning:"), result.stderr
    assert "internal error" not in result.stderr


def test_a_broken_root_pyproject_that_configures_nothing_is_a_warning(root: Path) -> None:
    (root / "pyproject.toml").write_bytes(FOREIGN_BROKEN["invalid TOML"])
    result = cli(["check", "--output-format", "json", "pkg"], root)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/good.py": {"PPA001"}}
    assert "pyproject.toml: invalid TOML" in result.stderr and "ppaux-lint: error" not in result.stderr


@pytest.mark.parametrize("broken", sorted(OWN_BROKEN))
@pytest.mark.parametrize("where", ["tests/fixture", "."])
def test_a_broken_pyproject_that_configures_ppaux_lint_is_a_config_error(root: Path, broken: str, where: str) -> None:
    config = root / where / "pyproject.toml"
    config.write_bytes(OWN_BROKEN[broken])
    result = cli(["check", "."], root)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert str(config.resolve()) in _one_error_line(result.stderr)


def test_a_broken_config_file_given_explicitly_is_a_config_error(root: Path) -> None:
    (root / "other.toml").write_bytes(FOREIGN_BROKEN["invalid TOML"])
    result = cli(["check", "--config", "other.toml", "."], root)
    assert result.returncode == 2
    assert "other.toml: invalid TOML" in _one_error_line(result.stderr)


def test_a_config_file_given_explicitly_nested_too_deeply_is_a_config_error(root: Path) -> None:
    (root / "deep.toml").write_bytes(b"select = " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    result = cli(["check", "--config", "deep.toml", "."], root)
    assert result.returncode == 2
    assert "deep.toml: invalid TOML: nested too deeply" in _one_error_line(result.stderr)


# -- files passed by name that cannot be read --------------------------------------------------------------


def _check_unprivileged(root: Path, args: Sequence[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    return subprocess.run([*unprivileged(), *console(), "check", "--output-format", "json", *args], cwd=root,
                          capture_output=True, text=True, timeout=120, env=env, errors="replace")


def test_a_pyproject_that_cannot_be_read_is_a_warning(root: Path) -> None:
    """Whether it configures ppaux-lint cannot be told, so the run goes on without it, and says so."""
    fixture = root / "tests" / "fixture" / "pyproject.toml"
    fixture.write_text(CONFIGURED, encoding="utf-8")
    fixture.chmod(0)
    try:
        result = _check_unprivileged(root, ["."])
    finally:
        fixture.chmod(0o644)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/good.py": {"PPA001"}, "tests/fixture/sample.py": {"PPA001"}}
    assert f"warning: {fixture}: cannot read: Permission denied; read as empty" in result.stderr


FIXABLE = """from dataclasses import dataclass
import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


@dataclass
class LogitOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return LogitOutput(copy_tensor(self.ids))
"""


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_pyproject_that_links_to_a_device_is_not_read(root: Path, device: str) -> None:
    """A repository can commit ``pyproject.toml -> /dev/zero``: reading it whole never ends (memory grows until the
    process is killed). Neither the config nor the fix's line length reads it; the findings come as usual."""
    (root / "pyproject.toml").unlink(missing_ok=True)
    (root / "pyproject.toml").symlink_to(device)
    (root / "pkg" / "fixable.py").write_text(FIXABLE, encoding="utf-8")  # a fix to count: the line length is read
    result = cli(["check", "--output-format", "concise", "."], root, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "pkg/fixable.py:7:7: PPA001" in result.stdout and "hidden fix" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_config_file_given_explicitly_that_cannot_be_read_is_a_config_error(root: Path) -> None:
    locked = root / "locked"
    locked.mkdir()
    (locked / "ppaux.toml").write_text(CONFIGURED, encoding="utf-8")
    locked.chmod(0)
    try:
        result = _check_unprivileged(root, ["--config", "locked/ppaux.toml", "."])
    finally:
        locked.chmod(0o755)
    assert result.returncode == 2
    assert "locked/ppaux.toml: cannot read: Permission denied" in _one_error_line(result.stderr)


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_an_unreadable_file_passed_by_name_is_its_own_ppa000(root: Path, cache: list[str]) -> None:
    secret = root / "pkg" / "secret.py"
    secret.write_text("x = 1\n", encoding="utf-8")
    secret.chmod(0)
    try:
        result = _check_unprivileged(root, [*cache, "pkg/good.py", "pkg/secret.py"])
    finally:
        secret.chmod(0o644)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/good.py": {"PPA001"}, "pkg/secret.py": {"PPA000"}}
    assert "Permission denied" in next(f["message"] for f in json.loads(result.stdout) if f["code"] == "PPA000")


def test_a_file_in_a_directory_that_cannot_be_searched_is_a_warning(root: Path) -> None:
    locked = root / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text(BROKEN_OUTPUT, encoding="utf-8")
    locked.chmod(0)
    try:
        result = _check_unprivileged(root, ["pkg/good.py", "locked/hidden.py"])
    finally:
        locked.chmod(0o755)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/good.py": {"PPA001"}}
    assert "locked/hidden.py: cannot check it: Permission denied, skipped" in result.stderr


def test_a_path_through_a_symlink_loop_is_a_warning(root: Path) -> None:
    os.symlink("loop", root / "loop")
    result = cli(["check", "--output-format", "json", "pkg/good.py", "loop/x.py"], root)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/good.py": {"PPA001"}}
    assert "loop/x.py: cannot check it: Too many levels of symbolic links, skipped" in result.stderr


# -- values that name no file ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "named"), [
    (["--stdin-filename", "", "-"], ["--stdin-filename", "''"]),
    (["--stdin-filename", ".", "-"], ["--stdin-filename", "'.'"]),
    (["--stdin-filename", "/", "-"], ["--stdin-filename", "'/'"]),
    (["--stdin-filename", "..", "-"], ["--stdin-filename", "'..'"]),
    (["--stdin-filename", "pkg/..", "-"], ["--stdin-filename", "'pkg/..'"]),
    (["--stdin-filename", "nowhere/..", "-"], ["--stdin-filename", "'nowhere/..'"]),
    (["--stdin-filename", "a\0b.py", "-"], ["--stdin-filename", "'a\\x00b.py'"]),
    (["--config", "", "."], ["--config", "''"]),
    (["--cache-dir", "", "."], ["--cache-dir", "''"]),
    (["", "pkg"], ["PATHS", "''"]),
    (["pkg/good.py", "x" * 300 + ".py"], ["x" * 300 + ".py", "file name too long"]),
])
def test_a_value_that_names_no_file_is_a_usage_error(root: Path, args: list[str], named: list[str]) -> None:
    # (through main() in a child process: an argv cannot hold the NUL byte that an editor's call can)
    code = f"import sys; from ppaux_lint.cli.main import main; sys.argv[0] = 'ppaux-lint'; main({['check', *args]!r})"
    result = subprocess.run([sys.executable, "-c", code], cwd=root, input="x = 1\n", capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = _one_error_line(result.stderr)
    for culprit in named:
        assert culprit in line, (culprit, line)
    assert sorted(p.name for p in root.iterdir()) == ["pkg", "pyproject.toml", "tests"]  # no cache made


def test_clean_with_an_empty_cache_dir_removes_nothing(root: Path) -> None:
    result = cli(["clean", "--cache-dir", ""], root)
    assert result.returncode == 2
    assert "--cache-dir" in _one_error_line(result.stderr)
    assert (root / "pkg" / "good.py").is_file()


# -- coding cookies -----------------------------------------------------------------------------------------

# In UTF-7 "+ACA-" is a space, "+AF8-" an underscore and "+ACM-" a number sign: the bytes hold no token.
UTF7 = """\
# coding: utf-7
class+ACA-Probe:
    def copy+AF8-to+AF8-host(self, copy+AF8-tensor):
        return self


class Quiet:  +ACM- noqa: PPA001
    def copy+AF8-to+AF8-host(self, copy+AF8-tensor):
        return self
""".encode("ascii")


def test_a_utf7_file_is_checked_as_python_reads_it(tmp_path: Path) -> None:
    """Found (the prefilter searched the decoded text), at the decoded column, and its decoded noqa holds."""
    root = write_tree(tmp_path / "proj", {"probe.py": UTF7})
    assert b"copy_to_host" not in UTF7
    for _ in range(2):  # cold, then from the cache's scan index
        findings = run(root).findings
        assert [(f.code, f.symbol, f.span.line, f.span.column) for f in findings] == [("PPA001", "probe.Probe", 2, 7)]
    for _ in range(2):  # the command, cold, then replayed
        result = cli(["check", "--output-format", "json", "."], root)
        assert result.returncode == 1 and _codes(result.stdout) == {"probe.py": {"PPA001"}}, result.stderr


def test_a_utf7_buffer_on_standard_input_is_checked_as_python_reads_it(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {})
    with chdir(root):
        result = subprocess.run([*console(), "check", "--output-format", "json", "--stdin-filename", "probe.py", "-"],
                                input=UTF7, capture_output=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout.decode()) == {"probe.py": {"PPA001"}}


AUX_BASE = """\
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class Sortié(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
"""
# Its only link to an output is the base's non-ASCII name, which latin-1 spells in other bytes than UTF-8.
LATIN1_LEAF = "# -*- coding: latin-1 -*-\nfrom base import Sortié\n\n\nclass Feuille(Sortié):\n    pass\n"


def test_a_latin1_file_is_found_by_a_non_ascii_name(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"base.py": AUX_BASE, "leaf.py": LATIN1_LEAF.encode("latin-1")})
    with_prefilter = run(root, no_cache=True).findings
    assert by_file(with_prefilter, root) == {"leaf.py": {"PPA001"}}
    assert [f.symbol for f in with_prefilter] == ["leaf.Feuille"]
    assert by_file(run(root, no_cache=True, prefilter=False).findings, root) == by_file(with_prefilter, root)


# A near miss that --fix renames, in a latin-1 file with old Mac line endings (a lone \r ends each line).
CR_LATIN1 = ("# -*- coding: latin-1 -*-\rfrom sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\r\r\r"
             "class Sortie(DeviceAuxiliaryOutput):\r    \"\"\"Le d\xe9tail.\"\"\"\r\r"
             "    def copy_to_host(self, copy_tensor):\r        return self\r\r"
             "    def to_pp_tensor(self):\r        return {'x\xe9': self.x}\r")


def test_a_cr_only_file_with_a_cookie_is_read_fixed_and_shown_as_python_reads_it(tmp_path: Path) -> None:
    """tokenize's readline ends lines at \\n only, so it once took such a file for one line and refused it."""
    data = CR_LATIN1.encode("latin-1")
    compile(data, "m.py", "exec")
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/m.py": data})
    shown = cli(["check", "--no-cache", "--output-format", "full", "."], root)
    assert shown.returncode == 1 and "PPA017" in shown.stdout and "PPA000" not in shown.stdout, shown.stdout
    assert "return {'x\xe9': self.x}" in shown.stdout  # the frame, decoded as latin-1
    fixed = cli(["check", "--no-cache", "--fix", "."], root)
    assert (root / "pkg" / "m.py").read_bytes() == data.replace(b"def to_pp_tensor(", b"def to_pp_tensors("), (
        fixed.stdout + fixed.stderr)


@pytest.mark.parametrize("method", ["    pass\n", "    def to_pp_tensors(self):\n        return {'a': self.a}\n"])
def test_a_module_of_many_classes_searches_its_text_once_per_question(method: str, monkeypatch) -> None:
    """The summarizer asks the module's whole text whether it holds a ``setattr``, a ``:=``, a ``yield`` or an
    ``exec`` anywhere, for every class, method and statement it visits: a module of many small classes cost the
    square of its size (8,000 classes with a ``to_pp_tensors`` each, 500 KB: a minute; 20,000 ran past the
    parser's time limit, a false 'the parser crashed on this file' after a minute more). Each question is answered
    once per file: counted, not timed, so the test holds on any machine."""
    from collections import Counter

    from ppaux_lint.facts.summarize import source as summarizing
    from ppaux_lint.facts.summarize.text import SourceText

    searched: Counter[str] = Counter()

    class Counting(SourceText):
        def __contains__(self, needle: object) -> bool:
            if needle not in self.__dict__.get("_found", {}):
                searched[str(needle)] += 1
            return super().__contains__(needle)

        def count(self, needle: str, *where: int | None) -> int:  # type: ignore[override]
            if not where and needle not in self.__dict__.get("_counts", {}):
                searched[f"count {needle}"] += 1
            return super().count(needle, *where)

    monkeypatch.setattr(summarizing, "SourceText", Counting)
    source = ("class Out:\n    def copy_to_host(self, c):\n        return self\n"
              + "".join(f"class C{i}(C{i - 1} if {i} > 1 else object):\n{method}" for i in range(1, 2_000)))
    with deadline(60):
        summary = summarizing.summarize_source(source.encode(), "many.py", "many", False, 10)
    assert summary.error is None
    assert len(summary.classes) == 2_000
    assert searched and max(searched.values()) == 1, searched.most_common(3)


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)  # no blocks: as a Git pack of zeros would check out, without the disk


def test_a_file_too_large_for_any_source_is_its_own_ppa000_unread(root: Path) -> None:
    """A sparse 3 GB file named .py (a few MB in a Git pack) took a check 50 s and 6 GB of memory, to find
    nothing in it: a file larger than any Python source is not read (its size is the opened file's) and is its
    own PPA000 saying so; a pyproject.toml or .gitignore larger than any real one is not read either (the
    pyproject's warning says why), and the other files' findings are reported."""
    from ppaux_lint.support.fileio import MAX_PATTERN_BYTES, MAX_SETTINGS_BYTES, MAX_SOURCE_BYTES

    _sparse(root / "pkg" / "huge.py", MAX_SOURCE_BYTES + 1)
    _sparse(root / "pyproject.toml", MAX_SETTINGS_BYTES + 1)
    _sparse(root / ".gitignore", MAX_PATTERN_BYTES + 1)
    with deadline(60):
        result = cli(["check", "--no-cache", "--output-format", "json", "."], root)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    assert _codes(result.stdout) == {"pkg/huge.py": {"PPA000"}, "pkg/good.py": {"PPA001"},
                                     "tests/fixture/sample.py": {"PPA001"}}
    (huge,) = [f for f in json.loads(result.stdout) if f["path"] == "pkg/huge.py"]
    assert f"larger than {MAX_SOURCE_BYTES} bytes" in huge["message"]
    assert f"pyproject.toml: cannot read: larger than {MAX_SETTINGS_BYTES} bytes" in result.stderr, result.stderr
    with deadline(60):  # the default format quotes each finding's line: it read the file whole to quote line 1
        shown = cli(["check", "--no-cache", "--output-format", "full", "."], root)
    assert shown.returncode == 1 and "pkg/huge.py:1:1: PPA000" in shown.stdout, shown.stderr
    assert len(shown.stdout) < 100_000 and "\x00" not in shown.stdout


@pytest.mark.parametrize("output_format", ["concise", "sarif"])
def test_a_buffer_named_by_a_path_longer_than_the_system_takes_is_checked(root: Path, output_format: str) -> None:
    """``--stdin-filename`` (and an editor's buffer in the server) may name a path longer than PATH_MAX, each name in
    it short enough: looking for its pyproject.toml (and SARIF's source root) asked ``Path.is_file``, which Python
    before 3.14 raises ENAMETOOLONG from, an internal error. Such a path has no file, and its buffer is checked."""
    name = "d/" * 3000 + "x.py"
    result = subprocess.run([*console(), "check", "--no-cache", "--output-format", output_format, "--stdin-filename",
                             name, "-"], cwd=root, input=BROKEN_OUTPUT, capture_output=True, text=True, timeout=120)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr[:500]
    assert result.returncode == 1, result.stderr[:500]
    assert "PPA001" in result.stdout


@pytest.mark.parametrize("output_format", ["full", "concise", "json", "sarif", "github"])
def test_a_file_name_that_is_not_utf8_is_written_to_an_output_file_as_to_standard_output(
        tmp_path: Path, output_format: str) -> None:
    """A name the file system holds in bytes that are not UTF-8 (``bad\\xff.py``) reaches the report as Python
    decodes it, with a lone surrogate: standard output writes it escaped (``streams.py``), and ``--output-file``
    failed on it, an internal error that lost every other file's findings."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT})
    (root / "pkg").joinpath(os.fsdecode(b"bad\xff.py")).write_text(BROKEN_OUTPUT)
    args = ["check", "--no-cache", "--output-format", output_format, "."]
    shown = cli(args, root)
    written = cli([*args, "--output-file", "report.txt"], root)
    assert (shown.returncode, written.returncode) == (1, 1), written.stderr
    shown_name = shown.stdout.replace("%FF", "\\udcff").replace("\\\\", "\\")  # SARIF's URI, JSON's escape
    assert written.stdout == "" and "bad\\udcff.py" in shown_name
    assert (root / "report.txt").read_text(encoding="utf-8") == shown.stdout
