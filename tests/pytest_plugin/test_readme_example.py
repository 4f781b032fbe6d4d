"""The manual's pytest example (docs/pytest.md) runs as the page shows, so the two cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pytest.md"


def page_example() -> str:
    """The page's first Python block: the whole ``test_pp.py``."""
    return re.search(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL).group(1)


def test_the_readme_example_gives_the_readme_s_output(pytester: pytest.Pytester):
    pytester.makepyfile(test_pp=page_example())

    result = pytester.runpytest_subprocess("--ppaux-verify", "test_pp.py", "-v")

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
