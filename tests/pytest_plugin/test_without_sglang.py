"""A plugin that imports SGLang's protocol modules, tested where SGLang is not installed (the usual CPU CI).

``--ppaux-verify`` judges its classes with ppaux-lint's stand-ins for those modules, in its workers and in the
test process, so that the project's own tests collect too; a project that runs only ``pp_round_trip`` asks
for them with ``ppaux_stand_ins``. A run that asks for neither sees no stand-in at all.
"""

from __future__ import annotations

import pytest
from sglang_top_pair import CLASSES, IMPORTS

from ppaux_lint.runtime import stand_ins

pytest.importorskip("torch")

pytest_plugins = ["pytester"]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(stand_ins.sglang_installed(), reason="sglang is installed here")]

PYPROJECT = """
[project]
name = "sgplug"
version = "0"

[tool.pytest.ini_options]
pythonpath = ["src"]
"""

PLUGIN = IMPORTS + "\n\n" + CLASSES

TESTS = '''
import torch

from sgplug.top import TopObserver, TopOutput


def test_round_trip(pp_round_trip):
    rebuilt = pp_round_trip(TopOutput(torch.tensor([3, 1])), TopObserver())
    assert torch.equal(rebuilt.ids, torch.tensor([3, 1]))
'''

SKIPS_WITHOUT_SGLANG = '''
import pytest


def test_needs_sglang():
    pytest.importorskip("sglang")
'''

SERVING = "ppaux-lint: sglang is not installed: this run imports ppaux-lint's stand-ins for its protocol modules"


@pytest.fixture
def sgplug(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml(PYPROJECT)
    for relative, text in {"src/sgplug/__init__.py": "", "src/sgplug/top.py": PLUGIN, "tests/test_top.py": TESTS,
                           "tests/test_sglang.py": SKIPS_WITHOUT_SGLANG}.items():
        path = pytester.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
    return pytester


def test_ppaux_verify_judges_with_the_stand_ins_and_the_project_s_tests_collect(sgplug: pytest.Pytester):
    result = sgplug.runpytest_subprocess("--ppaux-verify", "src", "tests/test_top.py", "-v")

    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([
        SERVING,
        "ppaux-lint verify: 2 classes, device *, transport local, helpers bundled (sglang stand-ins), timeout *",
    ])
    result.stdout.fnmatch_lines(["src/sgplug/top.py::ppaux-verify::sgplug.top.TopObserver PASSED*",
                                 "src/sgplug/top.py::ppaux-verify::sgplug.top.TopOutput PASSED*",
                                 "tests/test_top.py::test_round_trip PASSED*"])


def test_a_plain_run_sees_no_stand_in(sgplug: pytest.Pytester):
    result = sgplug.runpytest_subprocess("tests", "--continue-on-collection-errors")

    result.assert_outcomes(skipped=1, errors=1)  # the importorskip still skips; the plugin cannot import
    result.stdout.fnmatch_lines(["E   ModuleNotFoundError: No module named 'sglang'"])
    assert SERVING not in result.stdout.lines


def test_a_project_asks_for_them_for_its_own_round_trips(sgplug: pytest.Pytester):
    result = sgplug.runpytest_subprocess("tests/test_top.py", "-o", "ppaux_stand_ins=true")

    result.assert_outcomes(passed=1)
    assert SERVING in result.stdout.lines
