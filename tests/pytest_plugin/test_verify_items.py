"""``pytest --ppaux-verify PATHS``: one item per class, judged exactly as ``ppaux-lint verify`` judges it.

Each test runs pytest in a subprocess, as a user would, on the acme project of ``projects.py``: the plugin
is loaded through its ``pytest11`` entry point, and the project has no conftest.py.
"""

from __future__ import annotations

import fnmatch
import xml.etree.ElementTree as ET

import pytest

from .projects import ROWS, ran_good_output, write_project

pytest.importorskip("torch")

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

NOT_SENDABLE = ("add_auxiliary_output_to_pp_tensors: RuntimeError: auxiliary output does not support "
                "pipeline-parallel transport (static findings: PPA001 on acme.broken.NoSendOutput)")
EXAMPLE_RAISED = ("example of acme.good.ExampleRaisesOutput: ExampleRaisesOutput.ppaux_example raised "
                  "ValueError: needs a model config")
WORDS = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR"}


@pytest.fixture
def acme(pytester: pytest.Pytester):
    return write_project(pytester.path)


def has_line(result: pytest.RunResult, pattern: str) -> bool:
    return any(fnmatch.fnmatchcase(line, pattern) for line in result.stdout.lines)


def test_every_class_is_an_item_with_verify_s_verdict(pytester: pytest.Pytester, acme):
    result = pytester.runpytest_subprocess("--ppaux-verify", "src", "-rA", "--junit-xml=report.xml")

    result.assert_outcomes(passed=4, failed=3, skipped=1, errors=1)
    assert has_line(result, "ppaux-lint verify: 9 classes, device *, transport local, helpers *, timeout 30 s")
    for nodeid, outcome in ROWS.items():
        if outcome in WORDS:
            assert has_line(result, f"{WORDS[outcome]} {nodeid}*"), nodeid
    assert NOT_SENDABLE in result.stdout.lines  # the failure's report is verify's message: SGLang's error
    assert has_line(result, "*ERROR at setup of ppaux-verify acme.good.ExampleRaisesOutput*")
    assert EXAMPLE_RAISED in result.stdout.lines
    line = (acme / "src/acme/good.py").read_text().splitlines().index("class OpaqueOutput:") + 1
    assert has_line(result, f"SKIPPED [[]1[]] src/acme/good.py:{line}: no example of acme.good.OpaqueOutput: "
                            "cannot synthesise an example: no value for 'handle' of type Handle; *")
    assert ran_good_output(acme)

    cases = {f"{case.get('classname')}::{case.get('name')}": case
             for case in ET.parse(acme / "report.xml").getroot().iter("testcase")}
    expected = {nodeid.replace("/", ".").replace(".py::", "."): outcome for nodeid, outcome in ROWS.items()}
    assert sorted(cases) == sorted(expected)  # classname "src.acme.good.ppaux-verify", name "acme.good.GoodOutput"
    tags = {"passed": None, "failed": "failure", "error": "error", "skipped": "skipped"}
    for key, outcome in expected.items():
        found = [child.tag for child in cases[key] if child.tag != "properties"]
        assert found == ([tags[outcome]] if tags[outcome] else []), key
    case = cases["src.acme.broken.ppaux-verify::acme.broken.NoSendOutput"]
    assert case.find("failure").get("message") == NOT_SENDABLE
    assert {p.get("name"): p.get("value") for p in case.iter("property")}["transport"] == "local"
    case = cases["src.acme.good.ppaux-verify::acme.good.ExampleRaisesOutput"]
    assert case.find("error").get("message") == f'failed on setup with "{EXAMPLE_RAISED}"'


def test_k_runs_only_the_classes_it_selects(pytester: pytest.Pytester, acme):
    result = pytester.runpytest_subprocess("--ppaux-verify", "src", "-k", "NoSendOutput", "-p", "no:cacheprovider",
                                           "--ppaux-timeout", "20")

    result.assert_outcomes(failed=1, deselected=8)
    assert has_line(result, "ppaux-lint verify: 9 classes, * timeout 20 s")  # the flag wins over the config
    assert not ran_good_output(acme)  # deselected classes never run
    assert not (acme / ".pytest_cache").exists()
    assert not list(acme.rglob("conftest.py"))


def test_x_stops_after_the_first_failing_class(pytester: pytest.Pytester, acme):
    result = pytester.runpytest_subprocess("--ppaux-verify", "src", "-x")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["FAILED src/acme/broken.py::ppaux-verify::acme.broken.NoRebuildObserver*",
                                 "*stopping after 1 failures*"])
    assert not ran_good_output(acme)


def test_a_device_that_does_not_exist_is_a_usage_error(pytester: pytest.Pytester, acme):
    result = pytester.runpytest_subprocess("--ppaux-verify", "src", "--ppaux-device", "cuda:99")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --ppaux-device: device 'cuda:99' does not exist*"])


def with_testpaths(root, *testpaths: str) -> None:
    """Have pytest, given no paths, collect ``testpaths`` only (the acme project keeps its classes in src/)."""
    config = root / "pyproject.toml"
    config.write_text(config.read_text() + f"testpaths = {list(testpaths)!r}\n".replace("'", '"'))


def test_given_no_paths_the_classes_beyond_testpaths_are_found(pytester: pytest.Pytester):
    root = write_project(pytester.path, tests="def test_plain():\n    pass\n")
    with_testpaths(root, "tests")

    result = pytester.runpytest_subprocess("--ppaux-verify", "-rA", "-k", "plain or NoSendOutput or GoodOutput")

    result.assert_outcomes(passed=2, failed=1, deselected=7)  # -k chooses among the rows found beyond tests/
    assert has_line(result, "ppaux-lint verify: 9 classes, *")
    for nodeid, outcome in {"tests/test_acme.py::test_plain": "PASSED",
                            "src/acme/good.py::ppaux-verify::acme.good.GoodOutput": "PASSED",
                            "src/acme/broken.py::ppaux-verify::acme.broken.NoSendOutput": "FAILED"}.items():
        assert has_line(result, f"{outcome} {nodeid}*"), nodeid
    assert NOT_SENDABLE in result.stdout.lines

    ignored = pytester.runpytest_subprocess("--ppaux-verify", "--ignore=src/acme/good.py")
    ignored.assert_outcomes(passed=1, failed=2)  # the rows answer to --ignore as pytest's own files do


def test_a_run_that_finds_no_class_says_so(pytester: pytest.Pytester):
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    pytester.mkdir("tests")
    pytester.makepyfile(**{"tests/test_plain": "def test_plain():\n    pass\n"})

    for args, where in (((), "the project"), (("tests",), "tests")):
        result = pytester.runpytest_subprocess("--ppaux-verify", *args)
        result.assert_outcomes(passed=1)
        assert has_line(result, "ppaux-lint verify: 0 classes, *")
        assert has_line(result, f"ppaux-lint: warning: --ppaux-verify found no output or observer class in {where}: "
                                "nothing was verified"), result.stdout.str()


PAIR = '''
import torch


class LabelledOutput:
    def __init__(self, ids, k):
        self.ids = ids
        self.k = k

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.ids)

    def to_pp_tensors(self):
        return {"ids": self.ids, "k": self.k}


class LabelledObserver:
    def is_active(self, sampling_info):
        return True

    def before_grammar(self, logits, sampling_info):
        return logits

    def after_sample(self, state, token_ids):
        return LabelledOutput(token_ids, 2)

    def from_pp_tensors(self, tensors):
        return LabelledOutput(tensors["ids"], int(tensors["k"]))
'''


def test_a_pair_s_one_failure_fails_both_items_with_verify_s_words(pytester: pytest.Pytester):
    """As in verify's report, the observer of an output that cannot be sent fails with that failure, named."""
    pytester.makepyprojecttoml('[project]\nname = "pair"\nversion = "0"\n')
    pytester.mkpydir("pair")
    (pytester.path / "pair" / "m.py").write_text(PAIR, encoding="utf-8")
    result = pytester.runpytest_subprocess("--ppaux-verify", "pair", "-rA")

    result.assert_outcomes(failed=2)
    sent = "add_auxiliary_output_to_pp_tensors: RuntimeError: auxiliary PP output 'k' is not a tensor"
    assert (f"rebuilds pair.m.LabelledOutput, which fails before pair.m.LabelledObserver's turn: driven at batch 1: "
            f"{sent}") in result.stdout.lines
    assert f"driven at batch 1: {sent}" in result.stdout.lines
