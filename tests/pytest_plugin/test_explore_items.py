"""``pytest --ppaux-verify --ppaux-explore N``: the rows explore as ``verify --explore`` does, and a failing
row shows its counterexample and the reproducer to paste."""

from __future__ import annotations

import pytest
from explore_bugs import PAIRS

pytest.importorskip("torch")
pytest.importorskip("hypothesis")

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow


@pytest.fixture
def bugs(pytester: pytest.Pytester):
    pytester.makefile(".toml", pyproject='[project]\nname = "bugs"\nversion = "0"\n')
    pytester.mkpydir("bugs")
    (pytester.path / "bugs" / "pairs.py").write_text(PAIRS, encoding="utf-8")
    return pytester


def test_explored_rows_fail_with_their_counterexample(bugs: pytest.Pytester):
    result = bugs.runpytest_subprocess("--ppaux-verify", "bugs", "--ppaux-device", "cpu", "--ppaux-explore", "20",
                                       "--ppaux-seed", "7", "-rA")
    result.assert_outcomes(passed=6, failed=6)
    result.stdout.fnmatch_lines([
        "*exploring 20 examples per class with --ppaux-seed 7*",
        "*fails at ids: int64[[]1, 4[]]*",
        "*ppaux-lint verify: reproducer*",
        "*def ppaux_example(cls, device):*",
    ])
    assert list(bugs.path.rglob(".hypothesis")) == []  # exploring writes nothing into the project


def test_without_explore_the_rows_pass(bugs: pytest.Pytester):
    result = bugs.runpytest_subprocess("--ppaux-verify", "bugs", "--ppaux-device", "cpu")
    result.assert_outcomes(passed=12)


def test_a_negative_explore_is_a_usage_error(bugs: pytest.Pytester):
    result = bugs.runpytest_subprocess("--ppaux-verify", "bugs", "--ppaux-explore", "-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ppaux-explore*not a non-negative integer*"])


def test_the_fixture_explores_the_caller_s_instance(bugs: pytest.Pytester):
    bugs.makepyfile(test_props='''
        import pytest

        from bugs.pairs import SqueezeObserver, SqueezeOutput, TopkObserver, TopkOutput
        from ppaux_lint.runtime import RoundTripFailed


        def test_squeeze(pp_round_trip):
            with pytest.raises(RoundTripFailed) as raised:
                pp_round_trip(SqueezeOutput.ppaux_example("cpu"), SqueezeObserver(), explore=20)
            assert raised.value.counterexample["ids"]["shape"] == [1, 4]


        def test_topk(pp_round_trip):
            pp_round_trip(TopkOutput.ppaux_example("cpu"), TopkObserver(), explore=20)
    ''')
    result = bugs.runpytest_subprocess("test_props.py", "--ppaux-seed", "7")
    result.assert_outcomes(passed=2)
    assert list(bugs.path.rglob(".hypothesis")) == []
