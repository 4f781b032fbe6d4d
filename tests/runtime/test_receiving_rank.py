"""``--transport dist`` gives every class a receiving rank of its own, which no other class touched.

Each observer writes the pid of the process that rebuilds with it to a file, so the test can see which
receiving rank served which class. Classes run in name order: A and B pass, C's receiver dies, D passes,
E's hangs, F passes; none of that reaches another class's rank.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from explore_bugs import PAIRS as BUGS

from .conftest import observer_class, output_class, plugin_module

torch = pytest.importorskip("torch")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

RECORD = """
record = os.environ["PPAUX_TEST_PIDS"] + "/" + type(self).__name__
with open(record, "a") as file:
    file.write(f"{os.getpid()}\\n")
"""


def _pair(letter: str, then: str) -> str:
    rebuild = RECORD + then
    return "\n\n\n".join([
        output_class(f"{letter}Output"),
        observer_class(f"{letter}Observer", f"{letter}Output", f"{letter}Output(state)", rebuild),
    ])


REBUILD = 'return {}Output(tensors["values"])'
PAIRS = plugin_module(
    "import os\nimport time\nfrom dataclasses import dataclass\n\nimport torch",
    _pair("A", REBUILD.format("A")),
    _pair("B", REBUILD.format("B")),
    _pair("C", "os._exit(7)"),
    _pair("D", REBUILD.format("D")),
    _pair("E", "time.sleep(600)"),
    _pair("F", REBUILD.format("F")),
)


@pytest.fixture(scope="module")
def served(module_project, run_cli, process_marker, tmp_path_factory):
    pids = tmp_path_factory.mktemp("pids")
    module_project.package("plug", {"m": PAIRS})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PPAUX_TEST_PIDS", str(pids))
        result = run_cli(str(module_project.root), "--device", "cpu", "--transport", "dist", "--timeout", "6",
                         "--output-format", "json")
    rows = {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}
    return result, rows, lambda letter: _pids(pids / f"{letter}Observer")


def _pids(record: Path) -> set[int]:
    return {int(line) for line in record.read_text().split()} if record.exists() else set()


def test_the_rows_are_judged_as_before(served):
    result, rows, _ = served
    assert result.exit_code == 1
    for letter in "ABDF":
        assert rows[f"{letter}Output"]["status"] == "pass", rows[f"{letter}Output"]["message"]
    assert "the receiving rank exited with code 7 during" in rows["COutput"]["message"]
    assert "the receiving rank timed out during" in rows["EOutput"]["message"]


def test_each_class_has_a_receiving_rank_of_its_own(served):
    _, _, pids = served
    ranks = [pids(letter) for letter in "ABCDEF"]
    assert [len(rank) for rank in ranks] == [1] * 6
    assert len(set().union(*ranks)) == 6
    assert os.getpid() not in pids("A")


def test_no_rank_is_left_behind(served, process_marker, leftover_processes):
    assert leftover_processes(process_marker) == []


def test_exploring_over_dist_crosses_every_variant_to_one_rank(project, run_cli):
    """``--explore`` reuses the class's group: the squeeze bug shrinks to batch 1 as over ``local``."""
    project.package("bugs", {"pairs": BUGS})
    result = run_cli(str(project.root), "--device", "cpu", "--transport", "dist", "--explore", "20", "--seed", "7",
                     "--output-format", "json")
    rows = {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}
    assert rows["SqueezeOutput"]["counterexample"]["ids"]["shape"] == [1, 4]
    assert rows["SqueezeOutput"]["transport"] == "dist"
    assert rows["TopkOutput"]["status"] == "pass"
    assert "explored 22 examples around it, seed 7" in rows["TopkOutput"]["message"]
