"""``check --stdin-filename PATH -``: an unsaved buffer checked as PATH against the rest of the project on disk.

What matters: the buffer, not the file on disk, is what gets checked (its findings, its code frame, its
``# noqa``); its names resolve against files nobody passed; it needs no file on disk at all; and nothing of it
leaks into the cache or onto disk, so the next ordinary ``check`` sees the disk as it is.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner
from lintkit import IMPORT_AUX, IMPORT_OBS, locate, make_project

from ppaux_lint.cli.main import cli

BASE = IMPORT_AUX + textwrap.dedent("""

    class Base(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self
    """)
CLEAN_LEAF = textwrap.dedent("""\
    from pkg.base import Base


    class Leaf(Base):
        def to_pp_tensors(self):
            return {"x": self.x}
    """)
BROKEN_LEAF = CLEAN_LEAF.replace("to_pp_tensors", "to_pp_tensor")  # PPA017, with a safe fix
LEAF_AT = locate(BROKEN_LEAF, "to_pp_tensor")


@pytest.fixture
def project(lint_project):
    """``pkg.base.Base`` on disk, and a clean ``pkg/leaf.py`` on disk that the buffers below contradict."""
    return lint_project({"pkg/base.py": BASE, "pkg/leaf.py": CLEAN_LEAF})


def run(*args: str, text: str):
    result = CliRunner().invoke(cli, ["check", *args], input=text.encode("utf-8"))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def stdin_json(text: str, name: str = "pkg/leaf.py", *args: str) -> list[dict]:
    result = run("--output-format", "json", *args, "--stdin-filename", name, "-", text=text)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_the_buffer_is_checked_not_the_file_on_disk(project):
    (record,) = stdin_json(BROKEN_LEAF)
    assert (record["code"], record["path"], record["symbol"]) == ("PPA017", "pkg/leaf.py", "pkg.leaf.Leaf")
    assert (record["line"], record["column"]) == LEAF_AT
    assert stdin_json(CLEAN_LEAF) == []
    assert run("--output-format", "json", "pkg/leaf.py", text="").stdout.strip() == "[]"  # the disk is clean


@pytest.mark.parametrize("output_format", ["full", "concise", "json", "sarif", "github"])
def test_every_output_format_names_the_stdin_filename(project, output_format):
    result = run("--output-format", output_format, "--stdin-filename", "pkg/leaf.py", "-", text=BROKEN_LEAF)
    assert result.exit_code == 1, result.output
    assert "PPA017" in result.stdout and "pkg/leaf.py" in result.stdout
    if output_format == "full":  # the code frame quotes the buffer, whose line 5 differs from the disk's
        assert "  5 |     def to_pp_tensor(self):" in result.stdout
    if output_format == "sarif":
        (finding,) = json.loads(result.stdout)["runs"][0]["results"]
        assert finding["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/leaf.py"
    if output_format == "github":
        assert f"file=pkg/leaf.py,line={LEAF_AT[0]},col={LEAF_AT[1]}" in result.stdout


def test_a_new_file_that_is_not_on_disk_resolves_against_the_project(project):
    broken = IMPORT_AUX + "\nfrom pkg.base import Base\n\n\nclass Fresh(Base):\n    pass\n"
    assert [(r["code"], r["path"], r["symbol"]) for r in stdin_json(broken, "pkg/fresh.py")] == [
        ("PPA001", "pkg/fresh.py", "pkg.fresh.Fresh")]
    assert not (project / "pkg" / "fresh.py").exists()


def test_noqa_is_read_from_the_buffer(project):
    silenced = BROKEN_LEAF.replace("def to_pp_tensor(self):", "def to_pp_tensor(self):  # noqa: PPA017")
    assert stdin_json(silenced) == []


def test_the_buffer_never_reaches_the_cache(project):
    """Same path, other bytes: a cache keyed by the path's stat or name would now answer with the buffer."""
    assert stdin_json(BROKEN_LEAF)  # first, so that a leak would be there for the runs below to read
    on_disk = run("--output-format", "json", "pkg/leaf.py", text="")
    assert json.loads(on_disk.stdout) == []
    (project / "pkg" / "leaf.py").write_text(BROKEN_LEAF, encoding="utf-8")
    assert stdin_json(CLEAN_LEAF) == []  # and the other way round: the disk's findings do not leak in


def test_a_cross_file_finding_through_the_buffer(lint_project):
    outputs = IMPORT_AUX + textwrap.dedent("""

        class ScoreOutput(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"scores": self.scores}
        """)
    observers = IMPORT_OBS + textwrap.dedent("""\
        from pkg.outputs import ScoreOutput


        class ScoreObserver(SamplingObserver):
            def after_sample(self, state, token_ids):
                return ScoreOutput()

            def from_pp_tensors(self, tensors):
                return ScoreOutput(tensors["scores"])
        """)
    lint_project({"pkg/outputs.py": outputs, "pkg/observers.py": observers})
    assert stdin_json(observers, "pkg/observers.py") == []
    found = stdin_json(observers.replace('tensors["scores"]', 'tensors["score"]'), "pkg/observers.py")
    assert {(r["code"], r["path"]) for r in found} == {("PPA015", "pkg/observers.py"), ("PPA015", "pkg/outputs.py")}


def test_fix_prints_the_fixed_buffer_and_writes_nothing(project):
    result = run("--fix", "--stdin-filename", "pkg/leaf.py", "-", text=BROKEN_LEAF)
    assert result.exit_code == 0, result.output
    assert result.stdout == CLEAN_LEAF  # the fixed source, as `ruff check --fix --stdin-filename` prints it
    assert "1 fixed, 0 remaining" in result.stderr
    assert (project / "pkg" / "leaf.py").read_text(encoding="utf-8") == CLEAN_LEAF  # untouched (it was clean)


def test_fix_with_nothing_to_fix_prints_the_buffer_unchanged_and_reports_on_stderr(project):
    broken = IMPORT_AUX + "\nfrom pkg.base import Base\n\n\nclass Fresh(Base):\n    pass\n"  # PPA001: no fix here
    result = run("--fix", "--unsafe-fixes", "--stdin-filename", "pkg/fresh.py", "-", text=broken)
    assert result.exit_code == 1
    assert result.stdout == broken
    assert "pkg/fresh.py:" in result.stderr and "PPA001" in result.stderr
    assert not (project / "pkg" / "fresh.py").exists()


def test_diff_shows_the_fix_of_the_buffer(project):
    result = run("--diff", "--stdin-filename", "pkg/leaf.py", "-", text=BROKEN_LEAF)
    assert result.exit_code == 1
    assert "--- a/pkg/leaf.py" in result.stdout
    assert "-    def to_pp_tensor(self):\n+    def to_pp_tensors(self):" in result.stdout


def test_force_exclude_skips_an_excluded_stdin_filename(lint_project):
    lint_project({"pkg/base.py": BASE}, config='[tool.ppaux-lint]\nextend-exclude = ["pkg/gen_*.py"]\n')
    assert stdin_json(BROKEN_LEAF, "pkg/gen_leaf.py")  # passed explicitly: checked, as a file would be
    assert stdin_json(BROKEN_LEAF, "pkg/gen_leaf.py", "--force-exclude") == []


def test_the_stdin_filename_is_shown_relative_to_the_working_directory(project, monkeypatch):
    monkeypatch.chdir(project / "pkg")
    assert [r["path"] for r in stdin_json(BROKEN_LEAF, "leaf.py")] == ["leaf.py"]
    assert [r["symbol"] for r in stdin_json(BROKEN_LEAF, "leaf.py")] == ["pkg.leaf.Leaf"]  # still pkg.leaf


@pytest.mark.parametrize(("args", "message"), [
    (["-"], "`-` reads standard input, which needs --stdin-filename PATH"),
    (["--stdin-filename", "pkg/leaf.py", "pkg"], "pass `-` or no PATHS, not pkg"),
])
def test_misuse_is_a_one_line_usage_error(project, args, message):
    result = run(*args, text=BROKEN_LEAF)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr


def test_without_paths_stdin_filename_reads_standard_input(project):
    result = run("--output-format", "concise", "--stdin-filename", "pkg/leaf.py", text=BROKEN_LEAF)
    assert result.exit_code == 1 and "pkg/leaf.py:5:9: PPA017" in result.stdout


def test_the_console_script_reads_real_standard_input(project):
    """Through a real pipe, not click's runner: the bytes arrive as they are (a CRLF buffer included)."""
    import subprocess
    import sys

    crlf = BROKEN_LEAF.replace("\n", "\r\n").encode("utf-8")
    result = subprocess.run([sys.executable, "-m", "ppaux_lint", "check", "--output-format", "concise",
                             "--stdin-filename", "pkg/leaf.py", "-"], input=crlf, capture_output=True,
                            cwd=project, timeout=60, check=False)
    assert result.returncode == 1, result.stderr
    assert result.stdout.decode().startswith("pkg/leaf.py:5:9: PPA017 ")


def test_make_project_is_not_needed_for_a_lone_file(tmp_path, monkeypatch):
    """No marker anywhere: the stdin file's own directory bounds the project, as for a file on disk."""
    make_project(tmp_path / "loose", {}, pyproject=False)
    monkeypatch.chdir(tmp_path / "loose")
    broken = IMPORT_AUX + "\n\nclass Lone(DeviceAuxiliaryOutput):\n    pass\n"
    assert [(r["code"], r["symbol"]) for r in stdin_json(broken, "lone.py")] == [("PPA001", "lone.Lone")]
