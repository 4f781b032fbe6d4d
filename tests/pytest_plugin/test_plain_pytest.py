"""A plain ``pytest`` in a project that has ppaux-lint installed: nothing extra, no torch, no slowdown.

pytest loads the plugin in every run (its ``pytest11`` entry point), so it must cost nothing until it is
used, and must work where torch is not installed at all: there, only using it says what to install.
"""

from __future__ import annotations

import importlib.metadata
import os

import pytest

from .projects import write_project

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

NEEDS_TORCH = ("ppaux-lint's runtime checks need PyTorch: "  # as a glob
               "pip install 'ppaux-lint[[]runtime[]] @ git+https://github.com/ppaux-lint/ppaux-lint'")

PLAIN = '''
import sys


def test_the_plugin_is_loaded_but_nothing_heavy_is():
    assert "ppaux_lint.pytest_plugin" in sys.modules
    assert "torch" not in sys.modules
    assert "ppaux_lint.check.engine" not in sys.modules
'''

USES_THE_FIXTURE = '''
def test_plain():
    pass


def test_round_trip(pp_round_trip):
    pass
'''


def test_the_plugin_is_installed_as_a_pytest11_entry_point():
    plugins = {entry.name: entry.value for entry in importlib.metadata.entry_points(group="pytest11")}
    assert plugins.get("ppaux-lint") == "ppaux_lint.pytest_plugin"


def test_plain_pytest_collects_nothing_extra_and_imports_no_torch(pytester: pytest.Pytester):
    write_project(pytester.path, tests=PLAIN)

    result = pytester.runpytest_subprocess("src", "tests", "-v")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*collected 1 item", "tests/test_acme.py::test_the_plugin_is_loaded_but_nothing_heavy_is PASSED*"])


def test_without_torch_only_using_the_plugin_says_what_to_install(pytester: pytest.Pytester,
                                                                  monkeypatch: pytest.MonkeyPatch):
    write_project(pytester.path, tests=USES_THE_FIXTURE)
    blocked = pytester.mkdir("no_torch")
    (blocked / "torch").mkdir()
    (blocked / "torch" / "__init__.py").write_text('raise ImportError("No module named \'torch\'")\n')
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(blocked), os.environ.get("PYTHONPATH")])))

    plain = pytester.runpytest_subprocess("tests")
    plain.assert_outcomes(passed=1, errors=1)
    plain.stdout.fnmatch_lines([f"E *ImportError: {NEEDS_TORCH}"])

    verify = pytester.runpytest_subprocess("--ppaux-verify", "src")
    assert verify.ret == pytest.ExitCode.USAGE_ERROR
    verify.stderr.fnmatch_lines([f"ERROR: {NEEDS_TORCH}"])
