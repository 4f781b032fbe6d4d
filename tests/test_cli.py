"""The ``check`` command line: formats, flags, exit codes, configuration, discovery, suppression.

Most tests drive click's runner in-process; the console script and
``python -m ppaux_lint`` are each run for real in a subprocess, and so are the
cases where a bug would hang (symlink loops) or where a real terminal matters.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import click
import pytest
from click.testing import CliRunner
from lintkit import IMPORT_AUX, locate, make_project, run_console

import ppaux_lint
from ppaux_lint.cli.main import cli

SOURCE = textwrap.dedent('''\
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


    class Missing(DeviceAuxiliaryOutput):
        pass


    class Empty(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensors(self):
            return {}


    def peek(tensors):
        return tensors["__sampling_observer_output__.x"]
    ''')
MISSING_AT = locate(SOURCE, "Missing(")
EMPTY_AT = locate(SOURCE, "return {}")
PREFIX_AT = locate(SOURCE, '"__sampling_observer_output__.x"')
JSON_FIELDS = {"code", "message", "path", "line", "column", "end_line", "end_column", "symbol", "severity"}
ANSI = re.compile(r"\x1b\[")


@pytest.fixture
def project(lint_project):
    """A src-layout project with one PPA001, one PPA010 and one PPA021 in src/pkg/mod.py."""
    return lint_project({"src/pkg/__init__.py": "", "src/pkg/mod.py": SOURCE})


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def as_json(*args: str) -> list[dict]:
    result = invoke("check", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def found_codes(*args: str) -> list[str]:
    return sorted(r["code"] for r in as_json(*args))


# -- formats -----------------------------------------------------------------------------------------


def test_json_fields(project):
    records = as_json()
    assert len(records) == 3
    for record in records:
        assert set(record) >= JSON_FIELDS
        assert record["path"] == "src/pkg/mod.py"
        assert record["severity"] == "error"
        assert all(isinstance(record[k], int) for k in ("line", "column", "end_line", "end_column"))
        assert (record["end_line"], record["end_column"]) >= (record["line"], record["column"])
    by_code = {r["code"]: r for r in records}
    assert (by_code["PPA001"]["line"], by_code["PPA001"]["column"]) == MISSING_AT
    assert (by_code["PPA001"]["end_line"], by_code["PPA001"]["end_column"]) == (MISSING_AT[0],
                                                                                MISSING_AT[1] + len("Missing"))
    assert by_code["PPA001"]["symbol"] == "pkg.mod.Missing"
    assert "pkg.mod.Missing" in by_code["PPA001"]["message"]
    assert "pkg.mod.Empty" in by_code["PPA010"]["message"]
    assert "__sampling_observer_output__." in by_code["PPA021"]["message"]
    assert (by_code["PPA010"]["line"], by_code["PPA010"]["column"]) == EMPTY_AT
    assert by_code["PPA010"]["symbol"] == "pkg.mod.Empty"
    assert (by_code["PPA021"]["line"], by_code["PPA021"]["column"]) == PREFIX_AT


def test_json_paths_are_relative_to_the_working_directory(project, monkeypatch):
    monkeypatch.chdir(project / "src")
    assert {r["path"] for r in as_json("pkg")} == {"pkg/mod.py"}
    monkeypatch.chdir(project / "src" / "pkg")
    assert {r["path"] for r in as_json(".")} == {"mod.py"}
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert {r["path"] for r in as_json(str(project))} == {"../proj/src/pkg/mod.py"}


def test_json_empty_array_when_clean(lint_project):
    lint_project({"pkg/mod.py": "x = 1\n"})
    result = invoke("check", "--output-format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


def test_concise_format(project):
    result = invoke("check", "--output-format", "concise")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"src/pkg/mod.py:{MISSING_AT[0]}:{MISSING_AT[1]}: PPA001 ")
    assert lines[1].startswith(f"src/pkg/mod.py:{EMPTY_AT[0]}:{EMPTY_AT[1]}: PPA010 ")
    assert lines[2].startswith(f"src/pkg/mod.py:{PREFIX_AT[0]}:{PREFIX_AT[1]}: PPA021 ")
    assert "Found 3 errors." in result.stdout


def test_full_format_is_the_default(project):
    result = invoke("check")
    assert result.exit_code == 1
    out = result.stdout
    assert f"src/pkg/mod.py:{MISSING_AT[0]}:{MISSING_AT[1]}:" in out
    assert "PPA001" in out and "PPA010" in out and "PPA021" in out
    assert "class Missing(DeviceAuxiliaryOutput):" in out  # the code frame
    assert "^" in out
    assert out.rstrip().endswith("Found 3 errors.")


def test_clean_summary(lint_project):
    lint_project({"pkg/a.py": "x = 1\n", "pkg/b.py": "y = 2\n"})
    result = invoke("check")
    assert result.exit_code == 0
    assert "All checks passed!" in result.stdout


def test_output_has_no_ansi_escapes_off_a_terminal(project):
    for fmt in ("full", "concise"):
        assert not ANSI.search(invoke("check", "--output-format", fmt).stdout)
        assert not ANSI.search(invoke("check", "--output-format", fmt, env={"NO_COLOR": "1"}).stdout)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_colour_on_a_terminal_unless_no_color(project):
    import pty

    def on_tty(extra_env: dict) -> str:
        leader, follower = pty.openpty()
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
        env.update({"TERM": "xterm-256color", "COLUMNS": "200"}, **extra_env)
        proc = subprocess.Popen([sys.executable, "-m", "ppaux_lint", "check"], cwd=project, stdout=follower,
                                stderr=subprocess.DEVNULL, env=env)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=60)
        os.close(leader)
        return b"".join(chunks).decode("utf-8", "replace")

    def colour_codes(text: str) -> set[str]:
        params = {p for group in re.findall(r"\x1b\[([0-9;]*)m", text) for p in group.split(";")}
        return {p for p in params if p in {"38", "48"} or re.fullmatch(r"(3|4|9|10)[0-7]", p)}

    coloured = on_tty({})
    assert "PPA001" in coloured and colour_codes(coloured)
    plain = on_tty({"NO_COLOR": "1"})
    assert "PPA001" in plain
    assert not colour_codes(plain)
    assert not ANSI.search(plain), "NO_COLOR output still carries ANSI escapes (bold/dim)"


# -- exit codes and flags ------------------------------------------------------------------------------


def test_exit_codes(project):
    assert invoke("check").exit_code == 1
    assert invoke("check", "--exit-zero").exit_code == 0
    assert invoke("check", "--select", "PPA002").exit_code == 0
    assert invoke("check", "--output-format", "sarif-please").exit_code == 2
    assert invoke("check", "--no-such-flag").exit_code == 2


def test_exit_zero_still_reports(project):
    result = invoke("check", "--exit-zero", "--output-format", "json")
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)) == 3


@pytest.mark.parametrize("args, expected", [
    (["--select", "PPA001"], ["PPA001"]),
    (["--select", "PPA01"], ["PPA010"]),
    (["--select", "PPA001,PPA021"], ["PPA001", "PPA021"]),
    (["--select", "PPA001", "--select", "PPA021"], ["PPA001", "PPA021"]),
    (["--select", "ppa02"], ["PPA021"]),
    (["--ignore", "PPA01"], ["PPA001", "PPA021"]),
    (["--ignore", "PPA0"], []),
    (["--select", "PPA0", "--ignore", "PPA001"], ["PPA010", "PPA021"]),
    (["--select", "PPA001", "--ignore", "PPA0"], ["PPA001"]),  # the more specific one wins
    (["--select", "ALL", "--ignore", "PPA021"], ["PPA001", "PPA010"]),
])
def test_select_and_ignore(project, args, expected):
    assert found_codes(*args) == expected


@pytest.mark.parametrize("args", [["--select", "PPA999"], ["--ignore", "XYZ"], ["--select", "PPA001,PPB"],
                                  ["--select", ""], ["--extend-ignore", " , "]])  # an empty one selected all
def test_unknown_rule_code_is_a_usage_error(project, args):
    result = invoke("check", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["check", "inventory", "clean"])
@pytest.mark.parametrize("missing", ["missing", "missing/mod.py", "mod.py/inside", "{absolute}"])
def test_a_path_that_names_nothing_is_refused_before_any_directory_is_walked(tmp_path, monkeypatch, command,
                                                                            missing):
    """Looked for only after the project was found, ``/typo`` was placed in the project of ``/``, and every
    directory of the machine was walked for configs (a broken one anywhere was the error reported)."""
    broken = tmp_path / "elsewhere" / "pyproject.toml"
    broken.parent.mkdir()
    broken.write_text("[tool.ppaux-lint\nselect = 1\n", encoding="utf-8")
    (tmp_path / "mod.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    path = missing.format(absolute=tmp_path / "gone")
    result = invoke(command, path)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"ppaux-lint: error: {path}: no such file or directory\n"


def test_config_select_and_ignore(lint_project):
    lint_project({"src/pkg/__init__.py": "", "src/pkg/mod.py": SOURCE},
                 config='[tool.ppaux-lint]\nselect = ["PPA0"]\nignore = ["PPA021"]\n')
    assert found_codes() == ["PPA001", "PPA010"]
    assert found_codes("--ignore", "PPA010") == ["PPA001"]  # the command line adds to the config's ignore


def test_statistics(project):
    result = invoke("check", "--statistics")
    assert result.exit_code == 1
    rows = [line.split("\t") for line in result.stdout.strip().splitlines() if "\t" in line]  # then the totals
    assert [(count.strip(), code) for count, code, _ in rows] == [("1", "PPA001"), ("1", "PPA010"), ("1", "PPA021")]
    assert "src/pkg/mod.py" not in result.stdout  # counts instead of the findings


def test_statistics_counts(lint_project):
    lint_project({"pkg/mod.py": SOURCE + "\n\nclass Missing2(DeviceAuxiliaryOutput):\n    pass\n"})
    result = invoke("check", "--statistics", "--output-format", "json")
    assert result.exit_code == 1
    assert {r["code"]: r["count"] for r in json.loads(result.stdout)} == {"PPA001": 2, "PPA010": 1, "PPA021": 1}


def test_quiet(project):
    for fmt in ("full", "concise"):
        loud = invoke("check", "--output-format", fmt)
        quiet = invoke("check", "--output-format", fmt, "--quiet")
        assert quiet.exit_code == 1
        assert "Found 3 errors." in loud.stdout
        assert "Found" not in quiet.stdout
        assert "PPA001" in quiet.stdout
    assert "All checks passed" not in invoke("check", "-q", "--select", "PPA002").stdout


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert ppaux_lint.__version__ in result.stdout
    assert "ppaux-lint" in result.stdout


def test_missing_path_is_a_one_line_usage_error(project):
    result = invoke("check", "no/such/dir")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no/such/dir" in lines[0]
    assert "Traceback" not in result.output


# -- noqa and per-file-ignores --------------------------------------------------------------------------


@pytest.mark.parametrize("comment, suppressed", [
    ("# noqa", True),
    ("# noqa: PPA001", True),
    ("# noqa:PPA001", True),
    ("# NOQA: PPA002, PPA001", True),
    ("# noqa: PPA002", False),
    ("# noqa: PPA010", False),
    ("# not a noqa", False),
])
def test_noqa_on_the_class_line(lint_project, comment, suppressed):
    lint_project({"pkg/mod.py": IMPORT_AUX + textwrap.dedent(f"""
        from dataclasses import dataclass


        @dataclass
        class Missing(DeviceAuxiliaryOutput):  {comment}
            pass


        class Other(DeviceAuxiliaryOutput):
            pass
        """)})
    symbols = {r["symbol"] for r in as_json()}
    assert ("pkg.mod.Missing" not in symbols) == suppressed
    assert "pkg.mod.Other" in symbols  # a noqa is local to its line


def test_noqa_on_the_offending_line_of_a_contract_rule(lint_project):
    src = IMPORT_AUX + textwrap.dedent("""
        class Out(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {
                    "a": self.a.tolist(),  # noqa: PPA012
                    "b": self.b.tolist(),  # noqa: PPA011
                    "": self.c,  # noqa
                }
        """)
    lint_project({"pkg/mod.py": src})
    records = as_json()
    # "a" is suppressed by its PPA012 noqa, "" by a bare noqa; "b"'s noqa names another code
    assert [(r["code"], r["line"], r["column"]) for r in records] == [("PPA012", *locate(src, "self.b.tolist()"))]


PASS = "\n    pass"


@pytest.mark.parametrize("statement, suppressed", [
    ('class Missing(DeviceAuxiliaryOutput, tag="# noqa"):' + PASS, False),  # a string
    ('class Missing(DeviceAuxiliaryOutput, tag=b"# noqa: PPA001"):' + PASS, False),  # bytes
    ('class Missing(DeviceAuxiliaryOutput, tag=f"{1}# noqa"):' + PASS, False),  # an f-string
    ('class Missing(DeviceAuxiliaryOutput): "# noqa"', False),  # a docstring, on the class line
    ('class Missing(DeviceAuxiliaryOutput, tag="# noqa: PPA002"):  # noqa: PPA001' + PASS, True),  # the comment
    ('class Missing(DeviceAuxiliaryOutput, tag="# noqa"):  # noqa: PPA002' + PASS, False),  # ... and only it
    ('class Missing(DeviceAuxiliaryOutput, tag="#"):  # see #12 # noqa: PPA001' + PASS, True),  # anywhere in it
    ('class Missing(DeviceAuxiliaryOutput, tag=("a"  # noqa: PPA001\n        "b")):' + PASS, True),  # between
    ('class Missing(DeviceAuxiliaryOutput, tag=("a"  # c\n        "# noqa")):' + PASS, False),  # ... not in
])
def test_only_a_comment_suppresses(lint_project, statement, suppressed):
    """Text that looks like a noqa inside a string literal on the reported line is not a comment (issue 32)."""
    lint_project({"pkg/mod.py": IMPORT_AUX + "\n\n" + statement + "\n"})
    assert {r["symbol"] for r in as_json()} == (set() if suppressed else {"pkg.mod.Missing"})


def test_a_string_ending_on_the_reported_line_does_not_suppress(lint_project):
    src = IMPORT_AUX + textwrap.dedent('''
        class Out(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"t": self.t, "u": self.u["""
        # noqa""", "v"], "a": self.a.tolist()}
        ''')
    lint_project({"pkg/mod.py": src})
    assert [(r["code"], r["line"], r["column"]) for r in as_json()] == [("PPA012", *locate(src, "self.a.tolist()"))]


def test_per_file_ignores(lint_project):
    legacy = IMPORT_AUX + "\n\nclass Legacy(DeviceAuxiliaryOutput):\n    pass\n"
    lint_project({"pkg/mod.py": SOURCE, "pkg/legacy/old.py": legacy, "pkg/legacy/older.py": legacy},
                 config=textwrap.dedent("""
                     [tool.ppaux-lint.per-file-ignores]
                     "pkg/legacy/*.py" = ["PPA001"]
                     "pkg/mod.py" = ["PPA01", "PPA021"]
                     """))
    assert {(r["path"], r["code"]) for r in as_json()} == {("pkg/mod.py", "PPA001")}


# -- discovery ---------------------------------------------------------------------------------------------

BROKEN = IMPORT_AUX + "\n\nclass Broken(DeviceAuxiliaryOutput):\n    pass\n"


def paths_reported(*args: str) -> set[str]:
    return {r["path"] for r in as_json(*args)}


def test_default_excludes(lint_project):
    lint_project({
        "pkg/mod.py": BROKEN,
        ".venv/lib/python3.11/site-packages/dep/mod.py": BROKEN,
        "venv/lib/dep.py": BROKEN,
        "build/lib/pkg/mod.py": BROKEN,
        "dist/pkg/mod.py": BROKEN,
        "vendor/site-packages/dep.py": BROKEN,
        "pkg/__pycache__/mod.py": BROKEN,
        ".git/hooks/hook.py": BROKEN,
        ".tox/py311/mod.py": BROKEN,
    }, packages=False)
    assert paths_reported() == {"pkg/mod.py"}


def test_gitignore_is_honoured_including_nested_ones(lint_project):
    lint_project({
        "pkg/mod.py": BROKEN,
        "generated/probes_pb2.py": BROKEN,
        "pkg/sub/scratch.py": BROKEN,
        "pkg/sub/keep.py": BROKEN,
        ".gitignore": "generated/\n",
        "pkg/sub/.gitignore": "scratch.py\n",
    })
    assert paths_reported() == {"pkg/mod.py", "pkg/sub/keep.py"}


def test_config_exclude_extend_exclude_and_cli_exclude(tmp_path, monkeypatch):
    files = {"pkg/mod.py": BROKEN, "pkg/gen/a.py": BROKEN, "pkg/gen2/b.py": BROKEN, "scripts/c.py": BROKEN}
    root = make_project(tmp_path / "extend", files, config='[tool.ppaux-lint]\nextend-exclude = ["gen", "scripts/"]\n')
    monkeypatch.chdir(root)
    assert paths_reported() == {"pkg/mod.py", "pkg/gen2/b.py"}
    assert paths_reported("--exclude", "gen2") == {"pkg/mod.py"}
    assert paths_reported("--exclude", "*.py") == set()

    root = make_project(tmp_path / "exclude", files, config='[tool.ppaux-lint]\nexclude = ["pkg/gen*"]\n')
    monkeypatch.chdir(root)
    assert paths_reported() == {"pkg/mod.py", "scripts/c.py"}


def test_excluded_files_are_not_checked(lint_project):
    """An excluded file is not reported even when it is the only one with findings."""
    lint_project({"pkg/mod.py": "x = 1\n", "gen/out.py": BROKEN},
                 config='[tool.ppaux-lint]\nextend-exclude = ["gen"]\n')
    result = invoke("check")
    assert result.exit_code == 0


@pytest.mark.parametrize("excluded, files, config", [
    ("gen/out.py", {}, '[tool.ppaux-lint]\nextend-exclude = ["gen"]\n'),
    ("gen/out.py", {}, '[tool.ppaux-lint]\nextend-exclude = ["gen/"]\n'),
    ("gen/out.py", {}, '[tool.ppaux-lint]\nextend-exclude = ["gen/*.py"]\n'),
    ("gen/out.py", {".gitignore": "gen/\n"}, ""),
    ("build/lib/out.py", {}, ""),
], ids=["bare-dir-name", "dir-pattern", "path-glob", "gitignore", "default-build"])
def test_force_exclude_applies_to_explicit_files(lint_project, excluded, files, config):
    """pre-commit passes every changed file explicitly; --force-exclude must still honour the excludes."""
    lint_project({excluded: BROKEN, **files}, config=config, packages=False)
    assert paths_reported(excluded) == {excluded}  # asked for explicitly, without --force-exclude: checked
    assert paths_reported("--force-exclude", excluded) == set()


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlink_loops_do_not_hang(lint_project):
    root = lint_project({"pkg/mod.py": BROKEN, "pkg/sub/other.py": "x = 1\n"})
    (root / "pkg" / "sub" / "loop").symlink_to(root / "pkg", target_is_directory=True)
    (root / "pkg" / "self").symlink_to(root, target_is_directory=True)
    (root / "pkg" / "dangling.py").symlink_to(root / "nowhere.py")
    done = run_console(["check", "--output-format", "json"], cwd=root, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert [(r["path"], r["code"]) for r in json.loads(done.stdout)] == [("pkg/mod.py", "PPA001")]


# -- configuration errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("config, key", [
    ("[tool.ppaux-lint]\nselcet = [\"PPA001\"]\n", "selcet"),
    ("[tool.ppaux-lint]\nselect = \"PPA001\"\n", "select"),
    ("[tool.ppaux-lint]\nignore = [1, 2]\n", "ignore"),
    ("[tool.ppaux-lint]\nstructural = \"yes\"\n", "structural"),
    ("[tool.ppaux-lint]\nexclude = \"build\"\n", "exclude"),
    ("[tool.ppaux-lint]\nextend-exclude = 3\n", "extend-exclude"),
    ("[tool.ppaux-lint]\nper-file-ignores = [\"x\"]\n", "per-file-ignores"),
    ("[tool.ppaux-lint.per-file-ignores]\n\"a.py\" = \"PPA001\"\n", "per-file-ignores"),
    ("[tool.ppaux-lint]\nprotocols = \"myfork.Out\"\n", "protocols"),
    ("[tool.ppaux-lint.protocols]\noutput = \"myfork.Out\"\n", "output"),
    ("[tool.ppaux-lint.protocols]\noutputs = [\"myfork.Out\"]\n", "outputs"),
    ("[tool.ppaux-lint]\nselect = [\"PPA999\"]\n", "PPA999"),
], ids=["unknown-key", "select-string", "ignore-ints", "structural-string", "exclude-string",
        "extend-exclude-int", "per-file-ignores-list", "per-file-ignores-value", "protocols-string",
        "protocols-output-string", "protocols-unknown-key", "select-unknown-code"])
def test_config_errors_exit_2_naming_key_and_file(lint_project, config, key):
    lint_project({"pkg/mod.py": BROKEN}, config=config)
    result = invoke("check")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1
    assert key in message
    assert "pyproject.toml" in message
    assert "Traceback" not in result.output


def test_invalid_toml_exits_2_naming_the_file(lint_project):
    lint_project({"pkg/mod.py": BROKEN}, config="[tool.ppaux-lint\nselect = [\n")
    result = invoke("check")
    assert result.exit_code == 2
    assert "pyproject.toml" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_config_errors_via_console_script_have_no_traceback(lint_project):
    root = lint_project({"pkg/mod.py": BROKEN}, config="[tool.ppaux-lint]\nstructural = \"yes\"\n")
    done = run_console(["check"], cwd=root)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "structural" in done.stderr and "pyproject.toml" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_other_tools_config_is_ignored(lint_project):
    lint_project({"pkg/mod.py": BROKEN}, config="[tool.ruff]\nline-length = 100\nunknown-thing = 1\n")
    assert invoke("check").exit_code == 1


# -- project root detection --------------------------------------------------------------------------------


def test_each_file_follows_the_nearest_ppaux_lint_table(tmp_path, monkeypatch):
    outer = make_project(tmp_path / "outer", {"inner/pkg/__init__.py": "", "inner/pkg/mod.py": BROKEN},
                         config='[tool.ppaux-lint]\nselect = ["PPA002"]\n', packages=False)
    make_project(outer / "inner", {})  # inner/pyproject.toml without a table: the outer one's applies
    monkeypatch.chdir(outer)
    assert paths_reported("inner/pkg/mod.py") == set()
    make_project(outer / "inner", {}, config="[tool.ppaux-lint]\n")  # its own table: the defaults
    assert paths_reported("inner/pkg/mod.py") == {"inner/pkg/mod.py"}
    assert as_json("inner")[0]["symbol"] == "pkg.mod.Broken"  # module names from the inner project


def test_root_from_a_git_directory(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    make_project(root, {"lib/base.py": BROKEN.replace("class Broken", "class Base"),
                        "lib/child.py": "from lib.base import Base\n\n\nclass Child(Base):\n    pass\n"},
                 pyproject=False)
    (root / ".git").mkdir()
    monkeypatch.chdir(root / "lib")
    # resolved against the repository root: lib.base, not base
    assert {r["symbol"] for r in as_json("child.py")} == {"lib.child.Child"}


def test_without_a_marker_the_paths_own_directory_bounds_the_project(tmp_path, monkeypatch):
    if any((d / m).exists() for d in (tmp_path, *tmp_path.parents) for m in ("pyproject.toml", ".git")):
        pytest.skip("a pyproject.toml or .git above the temporary directory")
    root = make_project(tmp_path / "work", {
        "lib/base.py": BROKEN.replace("class Broken", "class Base"),
        "lib/child.py": "from base import Base\n\n\nclass Child(Base):\n    pass\n",
    }, pyproject=False, packages=False)
    monkeypatch.chdir(root)  # as ruff: lib/ bounds the project, not the working directory
    assert {r["symbol"] for r in as_json("lib/child.py")} == {"child.Child"}
    monkeypatch.chdir(root / "lib")
    assert {r["symbol"] for r in as_json("child.py")} == {"child.Child"}


# -- the real executables ------------------------------------------------------------------------------


def test_console_script(project):
    done = run_console(["check", "--output-format", "concise"], cwd=project)
    assert done.returncode == 1, done.stderr
    assert f"src/pkg/mod.py:{MISSING_AT[0]}:{MISSING_AT[1]}: PPA001" in done.stdout
    assert not ANSI.search(done.stdout)
    done = run_console(["check", "--exit-zero", "-q"], cwd=project)
    assert done.returncode == 0


def test_python_dash_m(project):
    done = run_console(["check", "--output-format", "json", "src"], cwd=project, module=True)
    assert done.returncode == 1, done.stderr
    assert sorted(r["code"] for r in json.loads(done.stdout)) == ["PPA001", "PPA010", "PPA021"]
    done = run_console(["--version"], cwd=project, module=True)
    assert done.returncode == 0 and ppaux_lint.__version__ in done.stdout
    done = run_console(["check", "nope"], cwd=project, module=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_run_collects_garbage_rarely_and_restores_the_collector(project, monkeypatch):
    """The collector's thresholds are a process's setting: a run tunes them (collector.py) and gives the host
    (this test process, an IDE) its own back, also when the run fails."""
    import gc

    from ppaux_lint.cli import main as cli_module
    from ppaux_lint.support.collector import THRESHOLDS

    before = gc.get_threshold()
    assert before != THRESHOLDS
    during = []

    def run(*args, **kwargs):
        during.append(gc.get_threshold())
        raise RuntimeError("the command failed")

    monkeypatch.setattr(cli_module, "run", run)  # check, as main runs it without click
    monkeypatch.setattr(cli_module.cli, "main", run)  # any other command, through click
    for args in (["check", str(project)], ["inventory", str(project)]):
        with pytest.raises(SystemExit):
            cli_module.main(args)
    assert during == [THRESHOLDS, THRESHOLDS]
    assert gc.get_threshold() == before


_COUNT_COLLECTIONS = """
import gc, os, sys
from ppaux_lint.cli import main as cli_module
from ppaux_lint.support import records
owner, started = os.getpid(), []
gc.callbacks.append(lambda phase, info: started.append(os.getpid()) if phase == "start" else None)
save = records.save
def last_step():  # entry's last call before the process ends
    if os.getpid() == owner:
        from ppaux_lint.support import collector
        kept = [type(value).__name__ for value in collector._KEPT]
        print("collections", started.count(owner), "enabled", gc.isenabled(), "kept", kept, file=sys.stderr)
    save()
records.save = last_step
sys.argv = ["ppaux-lint", *sys.argv[1:]]
cli_module.entry()
"""


def test_check_in_a_process_of_its_own_collects_no_garbage_and_frees_nothing(project):
    """The console script's ``check`` ends its process without teardown, so a collection would only walk what lives
    until then: none runs, not even the one that restoring the usual thresholds after the report used to set off
    (collector.off_until_exit); and the analysis is held to the end rather than freed object by object
    (collector.keep_until_exit)."""
    done = subprocess.run([sys.executable, "-c", _COUNT_COLLECTIONS, "check", "--no-cache", str(project)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "collections 0 enabled False kept ['Analysis']" in done.stderr


def test_check_called_from_a_program_leaves_its_collector_on_and_holds_nothing(project):
    """``main`` inside another process (this test, an IDE) owns no process: collection stays on, and what the run
    made is freed as it goes."""
    import gc

    from ppaux_lint.cli import main as cli_module
    from ppaux_lint.support import collector

    assert gc.isenabled()
    with pytest.raises(SystemExit):
        cli_module.main(["check", "--no-cache", str(project)])
    assert gc.isenabled() and collector._KEPT == []


def test_bare_ppaux_lint_prints_the_help_line_by_line(capsys):
    """A newcomer's first command: the help as ``--help`` prints it, on standard error, and exit code 2 (as ruff),
    not the whole help squeezed into one "error:" line."""
    from ppaux_lint.cli import main as cli_module

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as done:
            cli_module.main(list(args))
        return (done.value.code, *capsys.readouterr())

    code, out, err = run()
    assert (code, out) == (2, "")
    assert run("--help") == (0, err, "")
    assert err.startswith("Usage: ppaux-lint [OPTIONS] COMMAND [ARGS]...\n")
    assert "\nCommands:\n" in err and "ppaux-lint: error" not in err


def test_the_command_list_shows_each_command_s_first_paragraph_whole(monkeypatch):
    """``--help`` lists each command with the whole first paragraph of its help, however it wraps: click cut
    ``rule``'s at "(e.g." and the longer ones at the end of a line."""
    monkeypatch.setenv("COLUMNS", "80")
    listing = invoke("--help").stdout.partition("\nCommands:\n")[2].partition("\n\n")[0]  # not the exit codes
    listed = {name: " ".join(text.split())
              for name, text in re.findall(r"^  (\S+) +(.*(?:\n {4,}\S.*)*)", listing, re.MULTILINE)}
    ctx = click.Context(cli)
    commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    assert listed == {name: " ".join(command.help.split("\n\n")[0].split()) for name, command in commands.items()}
    assert "Explain the rule CODE (e.g. PPA001)." in listed.values()


_SWALLOWED_INTERRUPT = """
import signal, sys
# Python's own handler, as a program started from a terminal has it: one started in the background by a shell
# without job control (``.ci/run &``) inherits SIGINT ignored, and then no Ctrl-C reaches it at all
signal.signal(signal.SIGINT, signal.default_int_handler)
from ppaux_lint.cli import main as cli_module

class Swallowing:
    def __del__(self):  # a KeyboardInterrupt raised here cannot propagate: Python prints it and goes on
        signal.raise_signal(signal.SIGINT)
        sum(range(10))  # the handler runs here, in the callback

def run(*args, **kwargs):
    Swallowing()
    return 1

cli_module.run = run
cli_module.main(["check", "."])
"""


def test_a_ctrl_c_python_swallows_still_ends_the_run_as_interrupted(tmp_path):
    """SIGINT inside a callback of the interpreter's own (an import lock's, a ``__del__``) raises where nothing can
    catch it: Python printed "Exception ignored" and the run went on to exit 1 (support/interrupts.py)."""
    done = subprocess.run([sys.executable, "-c", _SWALLOWED_INTERRUPT], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stderr) == (130, "ppaux-lint: error: interrupted\n")
