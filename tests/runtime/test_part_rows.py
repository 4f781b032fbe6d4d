"""A part is judged inside its container's round trip, where SGLang meets it (issue 34, item 5).

SGLang never sends a part alone: the container's ``to_pp_tensors`` flattens it into its own mapping, so a
part's error surfaces there. A part's row shares the round trip of a container that holds it, one whose other
parts ``check`` is silent on first, so that a correct part is not blamed for a broken neighbour; a failure that
does not name the part is no verdict on it.
"""

from __future__ import annotations

from dataclasses import replace

from ppaux_lint.index.model import OBSERVER, OUTPUT
from ppaux_lint.runtime.run.parts import part_verdict
from ppaux_lint.runtime.terms.results import FAIL, PASS, SKIP, VerifyResult
from ppaux_lint.runtime.terms.targets import VerifySettings, build_targets

from .test_targets import by_symbol, info


def part(fqn: str, *containers: str):
    return replace(info(fqn, OUTPUT), part_of=containers)


CLASSES = [part("p.m.Good", "p.m.Broken", "p.m.Clean"), part("p.m.Bad", "p.m.Broken"),
           info("p.m.Broken", OUTPUT), info("p.m.Clean", OUTPUT),
           info("p.m.BrokenObs", OBSERVER, pair="p.m.Broken"), info("p.m.CleanObs", OBSERVER, pair="p.m.Clean")]


def test_a_part_shares_its_containers_round_trip_preferring_one_whose_other_parts_check_is_silent_on():
    targets = by_symbol(build_targets(CLASSES, VerifySettings(), {"p.m.Bad": ["PPA001"]}))
    good, bad, clean = targets["p.m.Good"], targets["p.m.Bad"], targets["p.m.Clean"]
    assert (good.own.symbol, good.output.symbol, good.observer.symbol) == ("p.m.Good", "p.m.Clean", "p.m.CleanObs")
    assert good.run_key == clean.run_key and not good.skip  # the very round trip of the container's row
    assert (bad.part.symbol, bad.output.symbol, bad.run_key) == ("p.m.Bad", "p.m.Broken", targets["p.m.Broken"].run_key)
    unflagged = by_symbol(build_targets(CLASSES, VerifySettings()))
    assert unflagged["p.m.Good"].output.symbol == "p.m.Broken"  # without findings, the first container


def test_a_part_no_discovered_container_holds_keeps_a_row_of_its_own():
    (target,) = build_targets([part("p.m.Lone", "x.Elsewhere")], VerifySettings())
    assert target.part is None and target.own.symbol == "p.m.Lone"  # targets_from_analysis words its skip


def result(status: str, message: str) -> VerifyResult:
    return VerifyResult("p.m.Bad", status, message, "cpu", "local")


def test_the_containers_verdict_is_the_parts_where_it_names_the_part():
    targets = by_symbol(build_targets(CLASSES, VerifySettings(), {"p.m.Bad": ["PPA001"]}))
    failed = result(FAIL, "driven at batch 1: add_auxiliary_output_to_pp_tensors: AttributeError: 'Bad' object has "
                          "no attribute 'to_pp_tensors' (at /p/m.py:9 in to_pp_tensors)")
    mine = part_verdict(failed, targets["p.m.Bad"])
    assert mine.status == FAIL and mine.message == f"inside p.m.Broken's round trip, as SGLang sends it: {failed.message}"
    passed = part_verdict(result(PASS, "2 tensors survived"), targets["p.m.Good"])
    assert (passed.status, passed.message) == (PASS, "judged inside p.m.Clean's round trip, as SGLang sends it: "
                                                     "2 tensors survived")


def test_a_neighbours_failure_is_no_verdict_on_a_part():
    targets = by_symbol(build_targets(CLASSES, VerifySettings()))
    other = part_verdict(result(FAIL, "KeyError: 'Badge' (at /p/m.py:3 in from_pp_tensors)"), targets["p.m.Good"])
    assert other.status == SKIP
    assert other.message.startswith("a part of p.m.Broken, sent only inside its mapping, and that round trip failed on "
                                    "something other than this part (KeyError: 'Badge'")
    assert other.message.endswith("it is judged once p.m.Broken's round trip passes")


def test_a_part_of_a_part_is_judged_in_the_round_trip_of_the_container_that_sends_both():
    classes = [part("p.m.Leaf", "p.m.Middle"), part("p.m.Middle", "p.m.Top"), info("p.m.Top", OUTPUT),
               info("p.m.TopObs", OBSERVER, pair="p.m.Top")]
    targets = by_symbol(build_targets(classes, VerifySettings()))
    assert targets["p.m.Leaf"].output.symbol == targets["p.m.Middle"].output.symbol == "p.m.Top"
    assert targets["p.m.Leaf"].run_key == targets["p.m.Top"].run_key
