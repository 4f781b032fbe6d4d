"""What a warm ``check`` of one file imports, and what it must leave alone (issue 16).

An editor or a git hook runs ``check`` on a file or two of a warm project many times a day, so its time is
mostly start-up; these tests pin what stays out of it without timing anything: the fix machinery and rich
load only for findings (rich only where the report shows styles), and the runtime, libcst, torch, the parser and the process pool not at all. Each run
is a fresh interpreter that writes the names in ``sys.modules`` when the command is done, less those the
interpreter had loaded before the command started (a site's ``.pth`` files may import ``tempfile`` or more at
start-up, which is no import of ours).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample_plugin"
CLEAN_FILE = "src/acme_observers/topk/outputs.py"
FINDINGS_FILE = "src/acme_observers/legacy/outputs.py"

# Never on a warm check: what only --fix, verify, a cold cache or a large project needs.
NEVER = ("libcst", "torch", "ppaux_lint.runtime", "ppaux_lint.cli.verify", "importlib.metadata",
         "multiprocessing", "concurrent.futures", "ppaux_lint.report.sarif")
# Only with findings to frame and plan fixes for (the planner reads the source with the summarizer's helpers).
ONLY_FOR_FINDINGS = ("rich", "ppaux_lint.fixes", "ppaux_lint.facts.summarize")

_RUN = """
import json, sys
before = set(sys.modules)
from ppaux_lint.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    json.dump(sorted(set(sys.modules) - before), out)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample plugin with a warm cache."""
    return _warm_copy(tmp_path_factory.mktemp("lazy"))


def _warm_copy(directory: Path) -> Path:
    root = directory / "sample_plugin"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".ppaux_lint_cache", "__pycache__"))
    imported(root, "check", "-q", ".")
    return root


def imported(root: Path, *args: str, environ: dict[str, str] | None = None) -> set[str]:
    """The modules loaded by the time ``ppaux-lint ARGS`` is done, in a fresh interpreter run in ``root`` (with
    ``environ`` added to its environment)."""
    names = root.parent / "modules.json"
    done = subprocess.run([sys.executable, "-c", _RUN, str(names), *args], cwd=root, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(environ or {})})
    assert done.returncode in (0, 1), done.stderr
    return set(json.loads(names.read_text()))


def test_a_warm_clean_file_loads_neither_fixes_nor_rich(project: Path) -> None:
    modules = imported(project, "check", CLEAN_FILE)
    assert "ppaux_lint.check.engine" in modules and "ppaux_lint.report.full" in modules  # it did run
    assert sorted(m for m in (*NEVER, *ONLY_FOR_FINDINGS) if m in modules) == []


def test_findings_load_the_fix_planner_and_nothing_more(project: Path) -> None:
    """A report read through a pipe shows no style, so it is written without rich (report/styled.py)."""
    modules = imported(project, "check", FINDINGS_FILE, environ={"TTY_COMPATIBLE": "0"})
    assert "ppaux_lint.fixes" in modules and "rich" not in modules
    # Planning only: applying fixes (the codemod, the writer) waits for --fix and --diff.
    assert sorted(m for m in ("ppaux_lint.fixes.apply", "ppaux_lint.fixes.codemod", "ppaux_lint.fixes.writing")
                  if m in modules) == []
    assert sorted(m for m in NEVER if m in modules) == []
    # The planner reads sources with the summarizer's syntax helpers, not with the summarizer, which only the
    # workers that parse import (facts/summarize/__init__.py imports none of its modules).
    assert "ppaux_lint.facts.summarize.syntax" in modules
    assert "difflib" not in modules  # only applying a fix, or showing it (--diff), compares texts
    assert sorted(m for m in ("ppaux_lint.facts.summarize.source", "ppaux_lint.facts.summarize.walker")
                  if m in modules) == []


def test_findings_in_colour_load_no_rich(project: Path) -> None:
    """A terminal's report is styled without rich (report/styled.py), as fast as a piped one (issue 36)."""
    modules = imported(project, "check", FINDINGS_FILE, environ={"TTY_COMPATIBLE": "1", "NO_COLOR": ""})
    assert "rich" not in modules
    assert sorted(m for m in NEVER if m in modules) == []


def test_an_edited_file_is_parsed_without_a_pool(tmp_path: Path) -> None:
    """The run after an edit parses the one file in one worker (a bare fork) and writes its record
    without ``tempfile``: neither the process pool nor its imports belong in the commonest miss."""
    root = _warm_copy(tmp_path)
    with (root / FINDINGS_FILE).open("a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    modules = imported(root, "check", ".")
    assert sorted(m for m in (*NEVER, "tempfile") if m in modules) == []


@pytest.mark.parametrize("output_format", ["concise", "json", "github"])
def test_other_formats_load_only_their_renderer(project: Path, output_format: str) -> None:
    modules = imported(project, "check", "--output-format", output_format, CLEAN_FILE)
    assert sorted(m for m in (*NEVER, *ONLY_FOR_FINDINGS, "ppaux_lint.report.full") if m in modules) == []


def test_importing_the_cli_loads_no_command_body() -> None:
    code = "import sys, json, ppaux_lint.cli.main; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    modules = set(json.loads(done.stdout))
    heavy = ("ppaux_lint.check.engine", "ppaux_lint.rules", "ppaux_lint.cli.verify", "rich", "traceback", *NEVER)
    assert sorted(m for m in heavy if m in modules) == []


def test_check_runs_without_click(tmp_path: Path) -> None:
    """click and the commands it builds were 13 ms of every ``check`` (issue 36): a check whose command line
    ``check_options.parse`` reads runs without them, warm or cold, with findings or without, and any other
    command line goes through click as before."""
    root = _warm_copy(tmp_path)
    for args in (["check", CLEAN_FILE], ["check", "-q", FINDINGS_FILE], ["check", "--no-cache", "."],
                 ["check", "--output-format=json", "--select", "PPA001", "."]):
        modules = imported(root, *args)
        assert "ppaux_lint.check.engine" in modules or "ppaux_lint.report.full" in modules  # it did run
        assert sorted(m for m in modules if m == "click" or m.startswith("click.")
                      or m == "ppaux_lint.cli.commands") == [], args
    assert {"click", "ppaux_lint.cli.commands"} <= imported(root, "check", "--no-cache", "--", ".")
    assert {"click", "ppaux_lint.cli.commands"} <= imported(root, "inventory", ".")
