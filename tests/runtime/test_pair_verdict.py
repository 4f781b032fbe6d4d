"""A pair's failure is one failure, named on both rows, and counted once; and a row's words are printed as they are.

SGLang meets a pair's round trip once: when the output cannot be sent, the observer's turn never comes, but
the pipeline fails all the same. So the observer's row fails with the output's failure (it used to say "not
reached" and skip), the output's row names the observer when the failure came on the observer's side, both
rows carry the ``pair``, and the table's footer counts the pair's failure once. JSON and JUnit carry the same
rows with the same words; JUnit, which has one testcase per row, counts rows.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from dataclasses import replace

from rich.console import Console

from ppaux_lint.runtime.run.report import render_json, render_table, summary_line, write_junit
from ppaux_lint.runtime.run.verify import _row
from ppaux_lint.runtime.terms.helpers import BUNDLED_HELPERS
from ppaux_lint.runtime.terms.results import DRIVEN, ERROR, FAIL, PASS, RECEIVING, SENDING, SKIP, VerifyResult
from ppaux_lint.runtime.terms.targets import OBSERVER, OUTPUT, ClassRef, VerifyTarget

NOT_A_TENSOR = "driven at batch 1: add_auxiliary_output_to_pp_tensors: RuntimeError: auxiliary PP output 'k' is not a tensor"
OUT = ClassRef("p.m.Out", "p.m", "Out")
OBS = ClassRef("p.m.Obs", "p.m", "Obs")


class Canned:
    """Round trips end as ``result``; an observer probed alone ends as ``probe`` (default: it can take part)."""

    helpers = BUNDLED_HELPERS

    def __init__(self, result: VerifyResult, probe: tuple[str, str] = (SKIP, "")) -> None:
        self.result = result
        self.probe = probe
        self.probed = 0

    def run(self, target: VerifyTarget, device: str, transport: str, timeout: float) -> VerifyResult:
        if target.output is None:
            self.probed += 1
            status, message = self.probe
            return VerifyResult(target.symbol, status, message or target.reason, device, transport)
        return replace(self.result, symbol=target.symbol)


def rows(status: str, message: str, phase: str, probe: tuple[str, str] = (SKIP, "")) -> dict[str, VerifyResult]:
    runner = Canned(VerifyResult(OUT.symbol, status, message, "cpu", "local", phase=phase, example=DRIVEN), probe)
    runs: dict = {}
    return {role: _row(VerifyTarget(ref.symbol, role, OUT, OBS, producer=OBS), runs, runner, "cpu", "local", 5.0)
            for role, ref in ((OUTPUT, OUT), (OBSERVER, OBS))}


def test_an_output_that_cannot_be_sent_fails_its_observer_s_row_with_the_same_failure():
    pair = rows(FAIL, NOT_A_TENSOR, SENDING)
    assert pair[OUTPUT].status == FAIL and pair[OUTPUT].message == NOT_A_TENSOR
    observer = pair[OBSERVER]
    assert observer.status == FAIL
    assert observer.message == f"rebuilds p.m.Out, which fails before p.m.Obs's turn: {NOT_A_TENSOR}"
    assert pair[OUTPUT].pair == observer.pair == ("p.m.Out", "p.m.Obs")


def test_a_failure_on_the_observer_s_side_is_named_on_the_output_s_row():
    missing = "pop_auxiliary_output_from_pp_tensors: KeyError: 'scores': ..."
    pair = rows(FAIL, missing, RECEIVING)
    assert pair[OUTPUT].message == f"through p.m.Obs: {missing}"
    assert pair[OBSERVER].message == f"rebuilds p.m.Out: {missing}"
    assert pair[OUTPUT].pair == pair[OBSERVER].pair == ("p.m.Out", "p.m.Obs")


def test_an_observer_that_fails_on_its_own_too_has_a_failure_of_its_own():
    own = "pop_auxiliary_output_from_pp_tensors: RuntimeError: sampling observer does not support pipeline-parallel transport"
    pair = rows(FAIL, NOT_A_TENSOR, SENDING, probe=(FAIL, own))
    observer = pair[OBSERVER]
    assert observer.status == FAIL and observer.pair == ()
    assert observer.message == f"{own}; besides, p.m.Out fails before p.m.Obs's turn: {NOT_A_TENSOR}"


def test_an_output_that_could_not_be_judged_leaves_its_observer_not_reached():
    pair = rows(ERROR, "example of p.m.Out: Out.ppaux_example raised ValueError: no config", SENDING)
    assert pair[OBSERVER].status == SKIP
    assert pair[OBSERVER].message.startswith("not reached: p.m.Out failed before the observer's turn (example of")
    assert pair[OUTPUT].pair == pair[OBSERVER].pair == ()


def test_a_passing_pair_shares_nothing():
    pair = rows(PASS, "1 tensor and the host copy survived the round trip (driven)", RECEIVING)
    assert pair[OUTPUT].pair == pair[OBSERVER].pair == ()


def shared_rows() -> list[VerifyResult]:
    pair = rows(FAIL, NOT_A_TENSOR, SENDING)
    alone = VerifyResult("p.n.Lone", FAIL, "add_auxiliary_output_to_pp_tensors: ...", "cpu", "local")
    fine = VerifyResult("p.n.Fine", PASS, "survived", "cpu", "local")
    return [pair[OUTPUT], pair[OBSERVER], alone, fine]


def test_the_summary_counts_a_pair_s_failure_once():
    assert summary_line(shared_rows(), "bundled") == (
        "4 classes verified: 1 pass, 3 fail (2 failures: a pair's two rows share one) (helpers: bundled)")
    alone = shared_rows()[2:]
    assert summary_line(alone, "bundled") == "2 classes verified: 1 pass, 1 fail (helpers: bundled)"


def test_json_and_junit_carry_the_pair_and_the_same_words(tmp_path):
    results = shared_rows()
    data = json.loads(render_json(results))
    assert data[1]["pair"] == ["p.m.Out", "p.m.Obs"] and data[1]["message"] == results[1].message
    assert "pair" not in data[2]
    assert VerifyResult.from_wire(results[1].to_wire()) == results[1]
    write_junit(results, tmp_path / "junit.xml")
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite.get("failures") == "3"  # one testcase per row, as JUnit counts
    case = suite.findall("testcase")[1]
    assert case.find("failure").get("message") == results[1].message
    assert {p.get("name"): p.get("value") for p in case.iter("property")}["pair"] == "p.m.Out,p.m.Obs"


def test_the_table_prints_the_rows_words_as_they_are():
    """A message (or a symbol) that looks like Rich markup is printed literally: ``[/]`` closes nothing and
    used to raise, ``[bold]`` vanished."""
    words = "KeyError: '[bold]x[/bold]' and [/] in from_pp_tensors"
    results = [VerifyResult("p.m.[red]Out", FAIL, words, "cpu", "local", reproducer="x = [/]")]
    buffer = io.StringIO()
    render_table(results, Console(file=buffer, width=400, color_system=None), "bundled")
    text = buffer.getvalue()
    assert words in text and "p.m.[red]Out" in text and "x = [/]" in text
