"""The ``pp_round_trip`` fixture, in a user's own test suite run by pytest in a subprocess.

The user's tests (``TESTS``) make the assertions; this module checks that every one of them passed, so a
fixture that returns the wrong thing, raises the wrong error or ignores its configuration fails here.
"""

from __future__ import annotations

import pytest

from .projects import write_project

pytest.importorskip("torch")

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

TESTS = '''
import pytest
import torch

from acme.broken import NoRebuildObserver, NoSendOutput
from acme.good import GoodObserver, GoodOutput, SwappingObserver
from ppaux_lint.runtime import RoundTripFailed


def test_a_correct_pair_comes_back_rebuilt(pp_round_trip):
    sent = GoodOutput(torch.tensor([1.0, 2.0, 3.0]))
    rebuilt = pp_round_trip(sent, GoodObserver())
    assert isinstance(rebuilt, GoodOutput)
    assert torch.equal(rebuilt.values, sent.values)
    assert rebuilt.values.data_ptr() != sent.values.data_ptr()  # a new buffer, as on the next stage


def test_an_output_without_to_pp_tensors_raises_sglang_s_error(pp_round_trip):
    with pytest.raises(RuntimeError) as raised:
        pp_round_trip(NoSendOutput(torch.ones(2)), GoodObserver())
    assert type(raised.value) is RuntimeError
    assert str(raised.value) == "auxiliary output does not support pipeline-parallel transport"


def test_an_observer_without_from_pp_tensors_raises_sglang_s_error(pp_round_trip):
    with pytest.raises(RuntimeError, match="^sampling observer does not support pipeline-parallel transport$"):
        pp_round_trip(GoodOutput(torch.ones(2)), NoRebuildObserver())


def test_a_wrong_rebuild_fails_with_verify_s_words(pp_round_trip):
    with pytest.raises(RoundTripFailed, match="the rebuilt 'values' differs"):
        pp_round_trip(GoodOutput(torch.tensor([1.0, 2.0])), SwappingObserver())


def test_the_dist_transport_crosses_torch_distributed(pp_round_trip):
    sent = GoodOutput(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    rebuilt = pp_round_trip(sent, GoodObserver(), transport="dist")
    assert torch.equal(rebuilt.values, sent.values)
    with pytest.raises(RuntimeError, match="^auxiliary output does not support pipeline-parallel transport$"):
        pp_round_trip(NoSendOutput(torch.ones(2)), GoodObserver(), transport="dist")


def test_its_defaults_come_from_the_flags_then_the_config(pp_round_trip):
    assert pp_round_trip.keywords == {"device": "cpu", "transport": "local", "helpers": "bundled", "timeout": 30}
'''


def test_the_fixture_round_trips_the_user_s_own_instances(pytester: pytest.Pytester):
    write_project(pytester.path, tests=TESTS)

    result = pytester.runpytest_subprocess("tests", "--ppaux-helpers", "bundled", "-rA")

    result.assert_outcomes(passed=6)


FAILING = '''
import torch

from acme.broken import NoSendOutput
from acme.good import GoodObserver, GoodOutput, SwappingObserver


class TypoObserver(GoodObserver):
    def from_pp_tensors(self, tensors):
        return GoodOutput(tensors["value"])


def test_swapped(pp_round_trip):
    rebuilt = pp_round_trip(GoodOutput(torch.tensor([1.0, 2.0])), SwappingObserver())


def test_not_sendable(pp_round_trip):
    pp_round_trip(NoSendOutput(torch.ones(2)), GoodObserver())


def test_typo(pp_round_trip):
    pp_round_trip(GoodOutput(torch.ones(2)), TypoObserver())
'''


@pytest.mark.parametrize("tb", ["auto", "long"])
def test_a_failing_round_trip_shows_the_test_s_line_and_the_error_not_ppaux_lint_s_frames(pytester: pytest.Pytester,
                                                                                           tb: str):
    write_project(pytester.path, tests=FAILING)

    result = pytester.runpytest_subprocess("tests", f"--tb={tb}")

    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines([
        ">       rebuilt = pp_round_trip(GoodOutput(torch.tensor([1.0, 2.0])), SwappingObserver())",
        "*",
        "E       ppaux_lint.runtime.caller.direct.RoundTripFailed: the rebuilt 'values' differs: values differ first at *; *",
        "",
        "tests/test_acme.py:13: RoundTripFailed",
    ])
    result.stdout.fnmatch_lines([
        ">       pp_round_trip(NoSendOutput(torch.ones(2)), GoodObserver())",
        "E       RuntimeError: auxiliary output does not support pipeline-parallel transport",
        "",
        "tests/test_acme.py:17: RuntimeError",
    ])
    result.stdout.fnmatch_lines([  # the project's own code that raised is still shown
        ">       pp_round_trip(GoodOutput(torch.ones(2)), TypoObserver())",
        "*",
        "tests/test_acme.py:21: ",
        "*",
        "    def from_pp_tensors(self, tensors):",
        '>       return GoodOutput(tensors["value"])',
        "*",
        "E       KeyError: 'value'",
    ])
    assert [line for line in result.stdout.lines if "/ppaux_lint/" in line] == []
