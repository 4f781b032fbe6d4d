"""The manual's pytest examples (docs/pytest.md, and the README's run on the sample plugin) run as the pages
show them, so the two cannot drift apart: every count a page quotes is the count of a run here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "pytest.md"
SAMPLE_RUN = "pytest --ppaux-verify fixtures/sample_plugin/src -rfs"
# pytest's last line: "12 failed, 10 passed, 2 skipped in 5.32s", between rules of "=" where it draws them.
COUNTS = re.compile(r"^=* ?((?:\d+ \w+, )*\d+ \w+) in [\d.]+s ?=*$", re.MULTILINE)


def page_example() -> str:
    """The page's first Python block: the whole ``test_pp.py``."""
    return re.search(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL).group(1)


def quoted_output(page: Path, command: str) -> str:
    """What ``page`` shows ``$ command`` printing: the console block's lines up to the next ``$`` or its end."""
    text = page.read_text(encoding="utf-8")
    return re.search(rf"^\$ {re.escape(command)}\n(.*?)(?=^\$ |^```)", text, re.MULTILINE | re.DOTALL).group(1)


def counts(output: str) -> dict[str, int]:
    """pytest's closing counts in ``output`` (``{"failed": 12, "passed": 10, "skipped": 2}``)."""
    line = COUNTS.findall(output)[-1]
    return {word: int(number) for number, word in (part.split() for part in line.split(", "))}


def test_the_readme_example_gives_the_readme_s_output(pytester: pytest.Pytester):
    pytester.makepyfile(test_pp=page_example())

    plain = pytester.runpytest_subprocess("test_pp.py")
    result = pytester.runpytest_subprocess("--ppaux-verify", "test_pp.py", "-v")

    assert counts(plain.stdout.str()) == counts(quoted_output(PAGE, "pytest test_pp.py"))
    assert counts(result.stdout.str()) == counts(quoted_output(PAGE, "pytest --ppaux-verify test_pp.py -v "
                                                                      "--junit-xml=report.xml"))
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines([
        "test_pp.py::ppaux-verify::test_pp.LegacyOutput FAILED*",
        "test_pp.py::ppaux-verify::test_pp.TopKObserver PASSED*",
        "test_pp.py::ppaux-verify::test_pp.TopKOutput PASSED*",
        "test_pp.py::test_topk_crosses_a_stage PASSED*",
        "test_pp.py::test_legacy_is_refused_as_sglang_refuses_it PASSED*",
        "*ppaux-verify test_pp.LegacyOutput*",
        "add_auxiliary_output_to_pp_tensors: RuntimeError: auxiliary output does not support pipeline-parallel "
        "transport (static findings: PPA001 on test_pp.LegacyOutput)",
        "*ppaux-lint verify: detail*",
    ])


@pytest.fixture(scope="module")
def sample_run() -> str:
    """The pages' run on the bundled sample plugin, from the clone's root as they say, on a wide terminal so
    that pytest cuts no line shorter than the pages do."""
    env = {**os.environ, "COLUMNS": "1000"}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", *SAMPLE_RUN.split()], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("page", [REPO / "README.md", PAGE], ids=["README", "pytest.md"])
def test_the_sample_plugin_run_gives_the_page_s_counts_and_lines(page: Path, sample_run: str):
    """The page quoted "10 failed, 12 passed" where the run gives 12 failed and 10 passed; each line it
    quotes is a line of the run, or its start where the page cuts it with "..."."""
    quoted = quoted_output(page, SAMPLE_RUN)
    assert counts(quoted) == counts(sample_run)
    lines = sample_run.splitlines()
    shown = [line.removesuffix("...") for line in quoted.splitlines()[:-1] if line != "..."]
    assert shown and [line for line in shown if not any(out.startswith(line) for out in lines)] == []
