"""The options ruff's and mypy's users reach for: --extend-select/--extend-ignore (and their config keys),
--show-settings, --show-files, --output-file, --add-noqa, --statistics with fixability and totals, and the
exit codes in --help."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from lintkit import IMPORT_AUX
from test_cli import SOURCE

from ppaux_lint.cli.main import cli
from ppaux_lint.support.command import EXIT_CODES

# SOURCE: PPA001 on Missing, PPA010 on Empty's return, PPA021 in peek

NEAR_MISS = IMPORT_AUX + textwrap.dedent('''

    class Near(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensor(self):
            return {"x": self.x}
    ''')  # PPA017, whose fix (a rename) is safe


DATACLASS_OUTPUT = textwrap.dedent('''\
    from dataclasses import dataclass

    import torch
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


    @dataclass
    class Out(DeviceAuxiliaryOutput):
        x: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return Out(copy_tensor(self.x))
    ''')  # PPA001, whose fix (a generated to_pp_tensors) is unsafe


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def codes(*args: str) -> list[str]:
    result = invoke("check", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return sorted({f["code"] for f in json.loads(result.stdout)})


@pytest.fixture
def project(lint_project):
    return lambda config="": lint_project({"src/pkg/__init__.py": "", "src/pkg/mod.py": SOURCE}, config=config)


# --extend-select / --extend-ignore, on the command line and in the config, in ruff's precedence


@pytest.mark.parametrize(("config", "args", "expected"), [
    ("", ["--extend-select", "PPA001"], ["PPA001", "PPA010", "PPA021"]),  # never narrows the default
    ('select = ["PPA001"]', ["--extend-select", "PPA010"], ["PPA001", "PPA010"]),
    ('select = ["PPA001"]\nextend-select = ["PPA021"]', [], ["PPA001", "PPA021"]),
    ('extend-select = ["PPA021"]', [], ["PPA001", "PPA010", "PPA021"]),
    # --select replaces the config's select and its extend-select; --extend-select adds to --select
    ('select = ["PPA001"]\nextend-select = ["PPA021"]', ["--select", "PPA010"], ["PPA010"]),
    ('extend-select = ["PPA021"]', ["--select", "PPA010", "--extend-select", "PPA001"], ["PPA001", "PPA010"]),
    ("", ["--extend-ignore", "PPA010,PPA021"], ["PPA001"]),
    ('extend-ignore = ["PPA021"]', [], ["PPA001", "PPA010"]),
    ('ignore = ["PPA001"]\nextend-ignore = ["PPA021"]', ["--extend-ignore", "PPA010"], []),
    ('extend-ignore = ["PPA0"]', ["--select", "PPA001"], ["PPA001"]),  # the more specific code wins, as ruff
])
def test_extend_select_and_ignore(project, config, args, expected):
    project(f"[tool.ppaux-lint]\n{config}\n")
    assert codes(*args) == expected


def test_extend_options_reach_the_replayed_run(project):
    """A replayed run (cache/replay.py) must not answer for a command whose extend options differ."""
    project()
    assert codes() == ["PPA001", "PPA010", "PPA021"]
    assert codes("--extend-ignore", "PPA010") == ["PPA001", "PPA021"]
    assert codes("--select", "PPA001", "--extend-select", "PPA010") == ["PPA001", "PPA010"]


def test_an_unknown_extended_code_names_its_source(project):
    project('[tool.ppaux-lint]\nextend-ignore = ["PPX9"]\n')
    result = invoke("check")
    assert result.exit_code == 2
    assert "'tool.ppaux-lint.extend-ignore'" in result.stderr and "'PPX9'" in result.stderr
    result = invoke("check", "--config", "pyproject.toml", "--extend-select", "PPY")
    assert result.exit_code == 2


def test_extend_keys_must_be_lists_of_strings(project):
    project('[tool.ppaux-lint]\nextend-select = "PPA001"\n')
    result = invoke("check")
    assert result.exit_code == 2
    assert "'tool.ppaux-lint.extend-select' must be a list of strings" in result.stderr


# --statistics, as ruff's


def test_statistics_marks_fixable_rules_and_totals(lint_project):
    lint_project({"pkg/mod.py": SOURCE, "pkg/near.py": NEAR_MISS})
    result = invoke("check", "--statistics")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    rows = [line.split("\t") for line in lines if "\t" in line]
    assert [(count.strip(), code, name) for count, code, name in rows] == [
        ("1", "PPA001", "[ ] output-missing-to-pp-tensors"), ("1", "PPA010", "[ ] empty-pp-tensors"),
        ("1", "PPA017", "[*] pp-method-near-miss"), ("1", "PPA021", "[ ] raw-pp-key-prefix")]
    assert lines[len(rows):][:2] == ["Found 4 errors.", "[*] 1 fixable with the `--fix` option."]
    data = json.loads(invoke("check", "--statistics", "--output-format", "json").stdout)
    assert [(r["code"], r["count"], r["fixable"]) for r in data] == [
        ("PPA001", 1, False), ("PPA010", 1, False), ("PPA017", 1, True), ("PPA021", 1, False)]


def test_statistics_counts_unsafe_fixes_only_with_unsafe_fixes(lint_project):
    lint_project({"pkg/mod.py": DATACLASS_OUTPUT})
    safe_only = invoke("check", "--statistics").stdout.splitlines()
    assert safe_only == ["1\tPPA001\toutput-missing-to-pp-tensors", "Found 1 error.",
                         "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."]
    unsafe = invoke("check", "--statistics", "--unsafe-fixes").stdout.splitlines()
    assert unsafe == ["1\tPPA001\t[*] output-missing-to-pp-tensors", "Found 1 error.",
                      "[*] 1 fixable with the `--fix --unsafe-fixes` options."]


def test_statistics_without_fixes_has_no_marker_column(project):
    project()
    lines = invoke("check", "--statistics").stdout.splitlines()
    assert lines[0].split("\t")[1:] == ["PPA001", "output-missing-to-pp-tensors"]
    assert lines[-1] == "Found 3 errors."


# --show-files


def test_show_files_lists_what_would_be_checked(lint_project):
    root = lint_project({"src/pkg/__init__.py": "", "src/pkg/mod.py": SOURCE, "src/pkg/b.py": "x = (\n",
                         "build/gen.py": "", "skip/me.py": ""},
                        config='[tool.ppaux-lint]\nextend-exclude = ["skip"]\n')
    (root / ".gitignore").write_text("build/\n")
    result = invoke("check", "--show-files")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["src/pkg/__init__.py", "src/pkg/b.py", "src/pkg/mod.py"]
    assert not (root / ".ppaux_lint_cache").exists()  # nothing read, nothing summarised
    result = invoke("check", "--show-files", "--force-exclude", "skip/me.py", "src/pkg/mod.py")
    assert result.stdout.splitlines() == ["src/pkg/mod.py"]


def test_show_files_and_settings_load_no_analysis(lint_project):
    """No rule, no summary, no scan: a subprocess, since this process has imported them all already."""
    root = lint_project({"src/pkg/__init__.py": "", "src/pkg/mod.py": SOURCE})
    script = ("import sys\nfrom ppaux_lint.cli.main import main\n"
              "for args in (['check', '--show-files'], ['check', '--show-settings', 'src/pkg/mod.py']):\n"
              "    try:\n        main(args)\n    except SystemExit as done:\n        assert done.code == 0\n"
              "print(sorted(m for m in sys.modules if m.startswith(('ppaux_lint.rules', 'ppaux_lint.scan',"
              " 'ppaux_lint.facts.summarize', 'ppaux_lint.index', 'ppaux_lint.check.engine'))))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, env=env,
                          check=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]"


# --show-settings


def test_show_settings_says_where_each_value_came_from(project, tmp_path):
    root = project('[tool.ppaux-lint]\nselect = ["PPA0"]\nextend-ignore = ["PPA021"]\n'
                   'per-file-ignores = { "tests/**" = ["PPA001"] }\n')
    result = invoke("check", "--show-settings", "--extend-select", "PPA010", "--cache-dir", str(tmp_path / "c"),
                    "src/pkg/mod.py")
    assert result.exit_code == 0
    settings = {}
    for line in result.stdout.splitlines()[1:]:
        name, _, rest = line.strip().partition(" = ")
        value, _, where = rest.partition("  # ")
        settings[name] = (json.loads(value) if value else None, where)
    config = f"{root / 'pyproject.toml'}: 'tool.ppaux-lint."
    assert settings["select"] == (["PPA0"], config + "select'")
    assert settings["extend-select"] == (["PPA010"], "--extend-select")
    assert settings["ignore"] == (["PPA021"], config + "extend-ignore'")
    assert settings["per-file-ignores"] == ({"tests/**": ["PPA001"]}, config + "per-file-ignores'")
    assert settings["exclude"] == ([], "default")
    assert settings["cache-dir"] == (str(tmp_path / "c"), "--cache-dir")
    assert f"config: {root / 'pyproject.toml'}, [tool.ppaux-lint]" in result.stdout
    assert "checked files: 1" in result.stdout
    assert not (tmp_path / "c").exists()  # nothing checked, no cache made


def test_show_settings_of_the_defaults(lint_project):
    lint_project({"mod.py": SOURCE})
    out = invoke("check", "--show-settings", "mod.py").stdout
    assert 'select = ["ALL"]  # default' in out
    assert 'cache-dir = "' in out and ".ppaux_lint_cache\"  # default" in out


def test_show_settings_names_the_python_files_are_parsed_for(project):
    root = project()
    pyproject = root / "pyproject.toml"
    pyproject.write_text('[project]\nname = "p"\nrequires-python = ">=3.11"\n', encoding="utf-8")
    out = invoke("check", "--show-settings", "src/pkg/mod.py").stdout
    assert 'target-version = "py311"  # the oldest requires-python allows' in out
    root = project('[tool.ppaux-lint]\ntarget-version = "py312"\n')
    out = invoke("check", "--show-settings", "src/pkg/mod.py").stdout
    assert f'target-version = "py312"  # {root / "pyproject.toml"}: \'tool.ppaux-lint.target-version\'' in out


# --output-file


@pytest.mark.parametrize("fmt", ["concise", "json", "sarif"])
def test_output_file_holds_the_report_and_keeps_the_exit_code(project, fmt):
    root = project()
    printed = invoke("check", "--output-format", fmt)
    written = invoke("check", "--output-format", fmt, "--output-file", "report.out")
    assert written.exit_code == printed.exit_code == 1
    assert written.stdout == ""
    assert (root / "report.out").read_text(encoding="utf-8") == printed.stdout
    statistics = invoke("check", "--statistics", "--output-file", "stats.txt")
    assert statistics.exit_code == 1
    assert "Found 3 errors." in (root / "stats.txt").read_text(encoding="utf-8")


def test_output_file_from_the_config(project, monkeypatch):
    """``output-file`` in the config, relative to its directory; --output-file wins."""
    root = project('[tool.ppaux-lint]\noutput-file = "reports/ppaux.json"\n')
    (root / "reports").mkdir()
    (root / "src").joinpath("elsewhere").mkdir()
    monkeypatch.chdir(root / "src")
    result = invoke("check", "--output-format", "json")
    assert result.exit_code == 1 and result.stdout == ""
    assert len(json.loads((root / "reports/ppaux.json").read_text(encoding="utf-8"))) == 3
    assert invoke("check", "--output-file", "elsewhere/r.txt").exit_code == 1
    assert "Found 3 errors." in (root / "src/elsewhere/r.txt").read_text(encoding="utf-8")
    shown = invoke("check", "--show-settings").stdout
    assert f'output-file = "{root / "reports/ppaux.json"}"' in shown


@pytest.mark.parametrize("escape", ["../outside/notes.txt", "{outside}/notes.txt", "linked/notes.txt",
                                    "reports/../../outside/notes.txt", ".."])
def test_output_file_from_a_config_stays_in_its_directory(project, escape):
    """A checked repository's config may not choose a file of the user's elsewhere for check to replace:
    ``output-file`` that leaves the config's directory, by ``..``, an absolute path or a symlinked directory, is
    refused before anything is read; the user's --output-file may still name any file."""
    root = project()
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("precious\n", encoding="utf-8")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "pyproject.toml").write_text(f'[tool.ppaux-lint]\noutput-file = "{escape.format(outside=outside)}"\n',
                                         encoding="utf-8")
    result = invoke("check")
    assert result.exit_code == 2 and result.stdout == ""
    assert "'tool.ppaux-lint.output-file'" in result.stderr and "names a file outside" in result.stderr
    assert "Traceback" not in result.stderr
    assert (outside / "notes.txt").read_text(encoding="utf-8") == "precious\n"
    assert invoke("check", "--output-file", str(outside / "mine.txt")).exit_code == 2  # the config is still bad
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    assert invoke("check", "--output-file", str(outside / "mine.txt")).exit_code == 1
    assert "Found 3 errors." in (outside / "mine.txt").read_text(encoding="utf-8")


def test_output_file_from_a_config_with_a_nul_is_a_config_error(project):
    project('[tool.ppaux-lint]\noutput-file = "a\\u0000b"\n')
    result = invoke("check")
    assert result.exit_code == 2 and "is not a path" in result.stderr and "internal error" not in result.stderr


def test_output_file_from_a_config_longer_than_the_system_takes_is_one_line(project):
    """Looking for a virtual environment on the way asked Path.is_file, which raises ENAMETOOLONG before Python
    3.14: an internal error; the path is now refused where it is written, naming it."""
    project('[tool.ppaux-lint]\noutput-file = "' + "d/" * 3000 + 'r.txt"\n')
    result = invoke("check")
    assert result.exit_code == 2 and "internal error" not in result.stderr, result.stderr[-300:]
    assert "cannot write: File name too long" in result.stderr


def test_output_file_from_a_config_replaces_a_link_not_what_it_points_to(project):
    root = project('[tool.ppaux-lint]\noutput-file = "report.txt"\n')
    victim = root.parent / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (root / "report.txt").symlink_to(victim)
    assert invoke("check").exit_code == 1
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not (root / "report.txt").is_symlink()
    assert "Found 3 errors." in (root / "report.txt").read_text(encoding="utf-8")


def test_output_file_writes_into_what_is_not_a_regular_file(project, tmp_path):
    """A rename over /dev/null or a FIFO made it a plain file of the report, for the whole machine, and the reader
    got nothing: --output-file writes into a device or a FIFO, as a shell's ``>`` does, and a link to a regular
    file has that file replaced while the link stays a link."""
    import stat
    import threading

    project()
    printed = invoke("check").stdout
    assert invoke("check", "--output-file", os.devnull).exit_code == 1
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert invoke("check", "--output-file", str(fifo)).exit_code == 1
    reader.join(30)
    assert received == [printed.encode("utf-8")] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    target = tmp_path / "real.txt"
    target.write_text("old\n", encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(target)
    assert invoke("check", "--output-file", str(tmp_path / "link.txt")).exit_code == 1
    assert (tmp_path / "link.txt").is_symlink() and target.read_text(encoding="utf-8") == printed


def test_output_file_from_a_config_is_never_written_into_something_else(project, tmp_path):
    root = project('[tool.ppaux-lint]\noutput-file = "report.fifo"\n')
    os.mkfifo(root / "report.fifo")
    result = invoke("check")
    assert result.exit_code == 2 and "not a regular file" in result.stderr
    assert os.path.exists(root / "report.fifo") and not (root / "report.fifo").is_file()


def test_output_file_refuses_sources_and_directories(project):
    root = project()
    before = (root / "src/pkg/mod.py").read_bytes()
    for target, why in (("src/pkg/mod.py", "a Python source file"), ("new.py", "a Python source file"),
                        ("src", "is a directory")):
        result = invoke("check", "--output-file", target)
        assert result.exit_code == 2, target
        assert "--output-file" in result.stderr and why in result.stderr
    assert (root / "src/pkg/mod.py").read_bytes() == before
    assert not (root / "new.py").exists()


# --add-noqa


def test_add_noqa_round_trip_and_idempotence(project):
    root = project()
    result = invoke("check", "--add-noqa")
    assert result.exit_code == 0
    assert result.stdout == "Added 3 noqa directives.\n"
    text = (root / "src/pkg/mod.py").read_text(encoding="utf-8")
    assert "class Missing(DeviceAuxiliaryOutput):  # noqa: PPA001\n" in text
    assert "        return {}  # noqa: PPA010\n" in text
    assert '["__sampling_observer_output__.x"]  # noqa: PPA021\n' in text
    assert invoke("check").exit_code == 0
    again = invoke("check", "--add-noqa")
    assert again.stdout == "Added 0 noqa directives.\n"
    assert (root / "src/pkg/mod.py").read_text(encoding="utf-8") == text


def test_add_noqa_extends_a_comment_and_shares_a_line(lint_project):
    source = SOURCE.replace("class Missing(DeviceAuxiliaryOutput):", "class Missing(DeviceAuxiliaryOutput):  # noqa: E501")
    source += "\n\nclass Two(DeviceAuxiliaryOutput): x = {}['__sampling_observer_output__.y']\n"
    root = lint_project({"pkg/mod.py": source})
    assert invoke("check", "--add-noqa").exit_code == 0
    text = (root / "pkg/mod.py").read_text(encoding="utf-8")
    assert "class Missing(DeviceAuxiliaryOutput):  # noqa: E501, PPA001\n" in text
    assert "['__sampling_observer_output__.y']  # noqa: PPA001, PPA021\n" in text
    assert invoke("check").exit_code == 0


def test_add_noqa_keeps_newlines_bom_and_encoding(lint_project):
    data = b"\xef\xbb\xbf" + SOURCE.replace("\n", "\r\n").encode("utf-8")
    root = lint_project({"pkg/mod.py": data})
    assert invoke("check", "--add-noqa").exit_code == 0
    written = (root / "pkg/mod.py").read_bytes()
    assert written.startswith(b"\xef\xbb\xbf")
    assert b"class Missing(DeviceAuxiliaryOutput):  # noqa: PPA001\r\n" in written
    assert written.count(b"\n") == written.count(b"\r\n") == data.count(b"\r\n")
    assert invoke("check").exit_code == 0


@pytest.mark.parametrize("newline", ["\r", "\n"], ids=["cr-only", "one-lone-cr"])
def test_add_noqa_never_writes_into_a_string_after_a_lone_cr(lint_project, newline):
    """Python ends a line at a lone CR: a class line whose keyword string runs on to the next line is left
    alone, even where CRs alone (or one, earlier) end lines, rather than given a comment inside the string."""
    head = IMPORT_AUX.replace("\n", newline) + "# a comment\rX = 1" + newline
    source = head + f'class Missing(DeviceAuxiliaryOutput, doc="""first{newline}second"""):{newline}    pass{newline}'
    root = lint_project({"pkg/mod.py": source.encode()})
    assert invoke("check", "--add-noqa").stdout == "Added 0 noqa directives.\n"
    assert (root / "pkg/mod.py").read_bytes() == source.encode()


def test_add_noqa_leaves_an_unparsable_file(lint_project):
    broken = IMPORT_AUX + "class Broken(DeviceAuxiliaryOutput:\n    pass\n"  # only a relevant file is parsed
    root = lint_project({"pkg/mod.py": SOURCE, "pkg/bad.py": broken})
    result = invoke("check", "--add-noqa")
    assert result.stdout == "Added 3 noqa directives.\n"
    assert (root / "pkg/bad.py").read_text(encoding="utf-8") == broken
    remaining = json.loads(invoke("check", "--output-format", "json").stdout)
    assert [f["path"] for f in remaining] == ["pkg/bad.py"]  # the unreadable file is still reported


def test_add_noqa_writes_no_symlink_out_of_the_checked_files(lint_project, tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text(SOURCE, encoding="utf-8")
    root = lint_project({"pkg/__init__.py": ""})
    (root / "pkg/linked.py").symlink_to(outside)
    result = invoke("check", "--add-noqa", "pkg/linked.py")
    assert outside.read_text(encoding="utf-8") == SOURCE
    assert "no noqa added" in result.stderr and "symlink" in result.stderr
    assert result.stdout == "Added 0 noqa directives.\n"


@pytest.mark.parametrize("other", [["--fix"], ["--diff"], ["--stdin-filename", "x.py", "-"]])
def test_add_noqa_refuses_other_modes(project, other):
    project()
    result = invoke("check", "--add-noqa", *other)
    assert result.exit_code == 2
    assert "--add-noqa cannot be used with" in result.stderr


# exit codes in --help


@pytest.mark.parametrize("command", [[], ["check"], ["verify"]])
def test_help_lists_the_exit_code_policy(command):
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    listed = result.stdout[result.stdout.index("Exit codes:"):].splitlines()[1:]
    assert [line.split(None, 1) for line in listed if line.strip()] == [[str(c), m] for c, m in EXIT_CODES]


def test_the_manual_states_the_same_exit_codes():
    manual = (Path(__file__).parents[1] / "docs" / "usage.md").read_text(encoding="utf-8")
    section = manual[manual.index("## Exit codes"):].split("\n## ", 1)[0]
    for code, _ in EXIT_CODES:
        assert re.search(rf"\b{code} ", section), code


@pytest.mark.parametrize("private, made", [
    (".git/hooks/pre-commit", "#!/bin/sh\necho the user's hook\n"),
    (".git/config", "[core]\n\trepositoryformatversion = 0\n"),
    (".venv/bin/activate", "# the user's environment\n"),
    ("env/bin/activate", "# a virtual environment by another name\n"),
    (".envrc", "export DEBUG=1\n"),
    ("node_modules/.bin/tool", "#!/bin/sh\n"),
], ids=["git-hook", "git-config", "venv-activate", "pyvenv-cfg", "direnv", "node-modules"])
def test_output_file_from_a_config_is_never_the_users_own_state(project, private, made):
    """The user's state in the clone (version control, hooks, environments whose scripts run) is no place for a
    repository's report: a report written over a git hook or an ``activate`` script runs as shell code the next
    time the user commits or activates. Refused (exit 2) before anything is read; nothing there changes."""
    root = project(f'[tool.ppaux-lint]\noutput-file = "{private}"\n')
    target = root / private
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(made, encoding="utf-8")
    target.chmod(0o755)
    (root / "env" / "pyvenv.cfg").parent.mkdir(exist_ok=True)
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    result = invoke("check")
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    assert "'tool.ppaux-lint.output-file'" in result.stderr and "goes through" in result.stderr
    assert target.read_text(encoding="utf-8") == made and os.stat(target).st_mode & 0o777 == 0o755


def test_a_report_is_never_a_program(project):
    """A config's ``output-file`` never replaces an executable file; the user's ``--output-file`` may, and the
    report it leaves there cannot be run."""
    root = project('[tool.ppaux-lint]\noutput-file = "run.sh"\n')
    script = root / "run.sh"
    script.write_text("#!/bin/sh\nmake test\n", encoding="utf-8")
    script.chmod(0o755)
    result = invoke("check")
    assert result.exit_code == 2 and "an executable file" in result.stderr
    assert script.read_text(encoding="utf-8") == "#!/bin/sh\nmake test\n"
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    assert invoke("check", "--output-file", "run.sh").exit_code == 1
    assert "Found 3 errors." in script.read_text(encoding="utf-8") and os.stat(script).st_mode & 0o777 == 0o644


def test_output_file_through_a_link_to_a_python_source_is_refused(project):
    root = project()
    source = root / "src" / "pkg" / "mod.py"
    before = source.read_bytes()
    (root / "report.txt").symlink_to(source)
    result = invoke("check", "--output-file", "report.txt")
    assert result.exit_code == 2 and "a Python source file" in result.stderr
    assert source.read_bytes() == before


@pytest.mark.parametrize("code", ["PPA17", "PPX"])
def test_a_per_file_ignores_code_that_names_no_rule_is_a_usage_error(project, code):
    project(f'[tool.ppaux-lint]\nper-file-ignores = {{ "src/*" = ["{code}"] }}\n')
    result = invoke("check")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert f"'tool.ppaux-lint.per-file-ignores' for 'src/*': {code!r} matches no rule code" in result.stderr


def test_output_file_from_a_config_in_a_virtual_environment_s_own_directory_is_refused(project):
    root = project('[tool.ppaux-lint]\noutput-file = "bin/activate"\n')
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (root / "bin").mkdir()
    (root / "bin" / "activate").write_text("# the user's environment\n", encoding="utf-8")
    result = invoke("check")
    assert result.exit_code == 2 and "goes through" in result.stderr
    assert (root / "bin" / "activate").read_text(encoding="utf-8") == "# the user's environment\n"


def test_per_file_ignores_codes_are_read_as_ignore_reads_them(project):
    project('[tool.ppaux-lint]\nper-file-ignores = { "src/*" = [" ppa0 "] }\n')
    result = invoke("check")
    assert result.exit_code == 0, result.stdout


def test_output_file_from_a_config_in_a_conda_environment_is_refused(project):
    root = project('[tool.ppaux-lint]\noutput-file = "env/etc/conda/activate.d/tool.sh"\n')
    (root / "env" / "conda-meta").mkdir(parents=True)
    script = root / "env" / "etc" / "conda" / "activate.d" / "tool.sh"
    script.parent.mkdir(parents=True)
    script.write_text("export TOOL=1\n", encoding="utf-8")
    result = invoke("check")
    assert result.exit_code == 2 and "goes through 'env'" in result.stderr
    assert script.read_text(encoding="utf-8") == "export TOOL=1\n"
