"""``verify --explore N``: variants around each example, failures shrunk to a counterexample and a reproducer.

The plugin (``explore_bugs.py``) is verified once with ``--explore 50 --seed 7`` and each test reads its rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from explore_bugs import PAIRS

from ppaux_lint.cli.verify import verify as verify_command

from .conftest import Project
from .test_drive import CAPPED

torch = pytest.importorskip("torch")
pytest.importorskip("hypothesis")

from ppaux_lint.runtime.driving import explore  # noqa: E402 - after the skips: it needs torch and hypothesis

B = "bugs.pairs."
RUN = ("--device", "cpu", "--explore", "50", "--seed", "7")


@pytest.fixture(scope="module")
def bugs(module_project, run_cli):
    module_project.write("pyproject.toml", '[project]\nname = "bugs"\nversion = "0"\n')
    module_project.package("bugs", {"pairs": PAIRS})
    return module_project


@pytest.fixture(scope="module")
def explored(bugs, run_cli):
    result = run_cli(str(bugs.root), *RUN, "--output-format", "json")
    return result, {row["symbol"]: row for row in json.loads(result.stdout)}


def test_the_three_bugs_fail_and_the_correct_classes_pass(explored):
    result, rows = explored
    assert result.exit_code == 1
    assert {symbol for symbol, row in rows.items() if row["status"] == "fail"} == {
        B + name for name in ("SqueezeOutput", "SqueezeObserver", "HalfIdsOutput", "HalfIdsObserver",
                              "ViewOutput", "ViewObserver")}
    for name in ("TopkOutput", "TopkObserver", "MaskOutput", "MaskObserver"):
        assert rows[B + name]["status"] == "pass"
        assert "explored 52 examples around it, seed 7" in rows[B + name]["message"]
        assert "counterexample" not in rows[B + name]


def test_the_squeeze_bug_is_shrunk_to_batch_1(explored):
    row = explored[1][B + "SqueezeOutput"]
    assert row["counterexample"] == {"ids": {"shape": [1, 4], "dtype": "int64", "values": [0, 1, 2, 3]}}
    assert "fails at ids: int64[1, 4]: the rebuilt 'ids' differs: shape [4] != [1, 4]" in row["message"]


def test_the_float16_ids_are_shrunk_to_the_first_id_it_cannot_hold(explored):
    row = explored[1][B + "HalfIdsOutput"]
    assert row["counterexample"]["ids"]["dtype"] == "int64"
    assert max(row["counterexample"]["ids"]["values"]) == 2049
    assert "values differ" in row["message"]


def test_the_baked_in_batch_fails_away_from_4(explored):
    row = explored[1][B + "ViewOutput"]
    assert row["counterexample"]["logprobs"]["shape"][0] != 4
    assert row["counterexample"]["logprobs"]["shape"][1:] == [2]


def test_a_class_with_no_tensor_fields_is_explored_with_its_base_example_only(explored):
    row = explored[1][B + "ConstantOutput"]
    assert row["status"] == "pass"
    assert "explored with its base example only: it has no tensor fields to vary" in row["message"]


def test_the_seed_is_printed_and_reproduces_the_counterexamples(explored, bugs, run_cli):
    first, rows = explored
    assert "exploring 50 examples per class with --seed 7" in first.stderr
    again = {row["symbol"]: row for row in json.loads(run_cli(str(bugs.root), *RUN, "--output-format",
                                                              "json").stdout)}
    assert {s: r.get("counterexample") for s, r in again.items()} == {
        s: r.get("counterexample") for s, r in rows.items()}


def test_without_explore_one_example_hides_the_bugs(bugs, run_cli):
    result = run_cli(str(bugs.root), "--device", "cpu", "--output-format", "json")
    assert result.exit_code == 0, result.stdout
    assert "exploring" not in result.stderr
    assert all("counterexample" not in row for row in json.loads(result.stdout))


def test_the_table_shows_the_counterexample_and_its_reproducer(bugs, run_cli, explored):
    result = run_cli(str(bugs.root), *RUN)
    assert "fails at ids: int64[1, 4]" in result.stdout
    assert "bugs.pairs.SqueezeOutput: to reproduce, paste into the class:" in result.stdout
    assert explored[1][B + "SqueezeOutput"]["reproducer"] in result.stdout


def test_the_reproducer_is_python_that_builds_the_counterexample(explored):
    namespace = {"torch": torch}
    exec(explored[1][B + "SqueezeOutput"]["reproducer"], namespace)

    @dataclass
    class Output:
        ids: torch.Tensor

    example = namespace["ppaux_example"].__func__(Output, torch.device("cpu"))
    assert example.ids.tolist() == [[0, 1, 2, 3]]


@pytest.mark.parametrize("config, message", [
    ("explore = -1", "'tool.ppaux-lint.verify.explore' must be a non-negative integer, not -1"),
    ("explore = true", "'tool.ppaux-lint.verify.explore' must be a non-negative integer, not a boolean"),
    ('seed = "7"', "'tool.ppaux-lint.verify.seed' must be a non-negative integer, not a string"),
])
def test_a_bad_explore_setting_is_a_usage_error(project, run_cli, config, message):
    project.write("pyproject.toml", f"[tool.ppaux-lint.verify]\n{config}\n")
    project.package("bugs", {"pairs": PAIRS})
    result = run_cli(str(project.root), "--device", "cpu")
    assert result.exit_code == 2
    assert message in result.stderr


def test_explore_from_the_config(project, run_cli):
    project.write("pyproject.toml", "[tool.ppaux-lint.verify]\nexplore = 5\nseed = 3\n")
    project.package("bugs", {"pairs": PAIRS})
    result = run_cli(str(project.root), "--device", "cpu", "--output-format", "json")
    assert "exploring 5 examples per class with --seed 3" in result.stderr
    rows = {row["symbol"]: row for row in json.loads(result.stdout)}
    assert rows[B + "SqueezeOutput"]["status"] == "fail"


def test_exploring_writes_nothing_into_the_project_it_runs_in(tmp_path, monkeypatch, run_cli):
    """Hypothesis keeps a cache of the constants in the project's modules (and more) in ``.hypothesis/`` under
    the working directory, database or not; verify runs in the project, so that would be the project."""
    project = Project(tmp_path / "bugs")
    project.package("bugs", {"pairs": PAIRS})
    project.write("capped.py", CAPPED)  # driven: its drives are explored, not its output's fields
    monkeypatch.chdir(project.root)
    result = run_cli(".", "--device", "cpu", "--explore", "5", "--seed", "3", "--output-format", "json")
    rows = {row["symbol"]: row["message"] for row in json.loads(result.stdout)}
    assert "explored 7 examples around it, seed 3" in rows[B + "TopkOutput"]
    assert "seed 3" in rows["capped.IdsOutput"] and "driven" in rows["capped.IdsOutput"], rows["capped.IdsOutput"]
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob(".hypothesis*")) == []


def test_the_options_are_documented():
    names = {option.name for option in verify_command.params}
    assert {"explore", "seed"} <= names


class TestVariants:
    """The variants themselves, drawn in this process."""

    def draws(self, base, count=30):
        seen = []
        explore.explore(base, seen.append, count, 0)
        return seen

    def test_tensors_that_share_the_batch_keep_sharing_it(self):
        @dataclass
        class Pair:
            ids: torch.Tensor
            scores: torch.Tensor
            table: torch.Tensor

        seen = self.draws(Pair(torch.zeros(3, 2, dtype=torch.long), torch.zeros(3), torch.zeros(5, 2)))
        assert {v.ids.shape[0] for v in seen} >= {0, 1}
        assert all(v.ids.shape[0] == v.scores.shape[0] and v.ids.shape[1:] == (2,) for v in seen)
        assert all(v.table.shape == (5, 2) for v in seen)
        assert all(v.ids.dtype == torch.long and v.scores.dtype == torch.float32 for v in seen)

    def test_floats_stay_finite_unless_the_example_has_nan_or_infinities(self):
        @dataclass
        class Scores:
            scores: torch.Tensor

        assert all(torch.isfinite(v.scores).all() for v in self.draws(Scores(torch.zeros(2, 3))))
        seen = self.draws(Scores(torch.tensor([[float("nan"), float("inf")]])), 100)
        assert any(not torch.isfinite(v.scores).all() for v in seen)

    def test_ids_reach_beyond_the_vocabulary(self):
        @dataclass
        class Ids:
            ids: torch.Tensor

        seen = self.draws(Ids(torch.zeros(2, 3, dtype=torch.long)), 100)
        assert max(int(v.ids.abs().max()) for v in seen if v.ids.numel()) > 2**31

    def test_a_plain_class_is_rebuilt_by_its_constructor(self):
        class Plain:
            def __init__(self, ids: torch.Tensor, window: int = 3) -> None:
                self.ids = ids
                self.window = window

        seen = self.draws(Plain(torch.zeros(2, dtype=torch.long), window=9))
        assert all(isinstance(v, Plain) and v.window == 9 for v in seen)
        text = explore.reproducer(Plain(torch.zeros(2, dtype=torch.long), 9), {"ids": torch.tensor([5])})
        assert text.endswith("return cls(ids=torch.tensor([5], dtype=torch.int64, device=device), window=9)")


@pytest.fixture(scope="module")
def pairs():
    """The plugin's classes, in this process."""
    namespace = {"__name__": "explore_bugs_pairs"}
    exec(PAIRS, namespace)
    return namespace


class TestRoundTrip:
    """``round_trip(..., explore=N)``, which the ``pp_round_trip`` fixture is, on the caller's own instances."""

    def test_the_squeeze_bug_raises_its_counterexample(self, pairs):
        from ppaux_lint.runtime import RoundTripFailed, round_trip

        with pytest.raises(RoundTripFailed) as raised:
            round_trip(pairs["SqueezeOutput"].ppaux_example("cpu"), pairs["SqueezeObserver"](), explore=20, seed=7)
        assert raised.value.counterexample["ids"]["shape"] == [1, 4]
        assert "fails at ids: int64[1, 4]" in str(raised.value)
        assert "def ppaux_example(cls, device):" in str(raised.value)

    def test_a_correct_class_returns_its_rebuilt_output(self, pairs):
        from ppaux_lint.runtime import round_trip

        sent = pairs["TopkOutput"].ppaux_example("cpu")
        rebuilt = round_trip(sent, pairs["TopkObserver"](), explore=20)
        assert rebuilt.ids.tolist() == sent.ids.tolist()

    def test_exploring_here_leaves_the_caller_s_hypothesis_storage_where_it_was(self, pairs, tmp_path, monkeypatch):
        """``pp_round_trip(explore=...)`` runs in the user's pytest, whose own hypothesis tests keep their
        storage directory; exploring writes neither there nor into the working directory."""
        from hypothesis import configuration

        from ppaux_lint.runtime import round_trip

        monkeypatch.chdir(tmp_path)
        mine = tmp_path / "mine"
        configuration.set_hypothesis_home_dir(mine)
        try:
            round_trip(pairs["TopkOutput"].ppaux_example("cpu"), pairs["TopkObserver"](), explore=5, seed=3)
            storage = configuration.storage_directory("examples", intent_to_write=False)
        finally:
            configuration.set_hypothesis_home_dir(None)
        assert getattr(storage, "path", storage) == mine / "examples"
        assert list(tmp_path.rglob("*")) == []

    def test_without_explore_the_one_instance_passes(self, pairs):
        from ppaux_lint.runtime import round_trip

        round_trip(pairs["SqueezeOutput"].ppaux_example("cpu"), pairs["SqueezeObserver"]())
