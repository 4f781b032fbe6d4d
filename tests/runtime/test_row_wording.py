"""What a row says beside its verdict: why a pass and check's findings differ, and what an output that sent
no tensor proves, which depends on the example that sent nothing.

The unit tests hand ``_row`` the round trip's result from a runner that returns it as given; the project at
the end runs each situation through ``ppaux-lint verify``.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ppaux_lint.runtime.run.verify import _row
from ppaux_lint.runtime.terms.helpers import BUNDLED_HELPERS
from ppaux_lint.runtime.terms.results import ANNOTATIONS, DRIVEN, FAIL, OWN, PASS, SENDING, SKIP, VerifyResult
from ppaux_lint.runtime.terms.targets import OBSERVER, OUTPUT, ClassRef, VerifyTarget

from .conftest import plain_output, plugin_module

EMPTY = "add_auxiliary_output_to_pp_tensors: RuntimeError: auxiliary PP output must contain at least one tensor"
RAISES = 'SGLang raises "auxiliary PP output must contain at least one tensor" for '


class Canned:
    """A runner whose every round trip ends as ``result`` did, and whose observer probes end as one that can
    take part in PP transport does: skipped, with the target's reason."""

    helpers = BUNDLED_HELPERS

    def __init__(self, result: VerifyResult) -> None:
        self.result = result

    def run(self, target: VerifyTarget, device: str, transport: str, timeout: float) -> VerifyResult:
        if target.output is None:
            return VerifyResult(target.symbol, SKIP, target.reason, device, transport)
        return replace(self.result, symbol=target.symbol)


def row(status: str, message: str, example: str, out_findings=(), obs_findings=(), role: str = OUTPUT,
        **extra) -> VerifyResult:
    out = ClassRef("p.m.Out", "p.m", "Out", findings=tuple(out_findings))
    obs = ClassRef("p.m.Obs", "p.m", "Obs", findings=tuple(obs_findings))
    target = VerifyTarget(out.symbol if role == OUTPUT else obs.symbol, role, out, obs, producer=obs)
    result = VerifyResult(out.symbol, status, message, "cpu", "local", phase=SENDING, example=example, **extra)
    return _row(target, {}, Canned(result), "cpu", "local", 5.0)


def test_optional_tensors_left_none_are_the_examples_state_not_proof_of_a_production_failure():
    result = row(FAIL, f"with histogram left None: {EMPTY}", ANNOTATIONS)
    assert result.status == FAIL
    assert result.message == (
        RAISES + "the example built from the annotations with histogram left None (the constructor's default): "
        "its to_pp_tensors() sends no tensor then. That is a production failure only if such an output is ever "
        "made; if the code that makes its outputs always sets histogram, the example is at fault, not the class "
        "(provide a realistic one: a ppaux_example classmethod, or a factory in [tool.ppaux-lint.verify.examples]). "
        "The example with histogram set was not tried")


def test_with_several_optional_tensors_one_set_is_enough():
    message = row(FAIL, f"with mask, lengths left None: {EMPTY}", ANNOTATIONS).message
    assert "always sets at least one of mask, lengths," in message
    assert "The example with mask, lengths set was not tried" in message


@pytest.mark.parametrize(("variant", "example", "says"), [
    ("", ANNOTATIONS, "the example built from the annotations, which has a tensor for each tensor parameter its "
                      "constructor has, if any: its to_pp_tensors() still sends none"),
    ("with mask set: ", ANNOTATIONS, "the example built from the annotations with mask set, which has a tensor"),
    ("driven at batch 2: ", DRIVEN, "the output that p.m.Obs.after_sample returned, driven at batch 2: its "
                                    "to_pp_tensors() sends no tensor, so SGLang raises the same way in production"),
    ("", f"{DRIVEN}+{OWN}", "your own example (ppaux_example or the configured factory): its to_pp_tensors() "
                            "sends no tensor, so an output like it fails the same way on a real pipeline stage"),
    ("", OWN, "your own example"),
])
def test_an_output_that_sends_nothing_as_production_makes_it_is_the_classs_failure(variant, example, says):
    result = row(FAIL, variant + EMPTY, example)
    assert result.status == FAIL and result.message.startswith(RAISES + says), result.message
    assert "only if" not in result.message


def test_a_synthesised_example_with_every_tensor_says_the_class_sends_nothing_at_all():
    message = row(FAIL, EMPTY, ANNOTATIONS).message
    assert "its to_pp_tensors() still sends none, so every output of the class fails this way in production" in message
    assert "unless its tensors come from arguments made empty here" in message


def test_an_explored_failure_keeps_its_own_words():
    message = f"explored, seed 7: fails at values: float32[0]: {EMPTY}"
    assert row(FAIL, message, ANNOTATIONS, counterexample={}).message == message


def test_the_findings_still_follow_a_failure_that_confirms_them():
    message = row(FAIL, f"with histogram left None: {EMPTY}", ANNOTATIONS, out_findings=["PPA010"]).message
    assert message.endswith("was not tried (static findings: PPA010 on p.m.Out)")


def test_an_observer_whose_output_cannot_be_sent_quotes_what_the_output_sent():
    result = row(FAIL, EMPTY, OWN, role=OBSERVER)
    assert result.status == FAIL
    assert result.message.startswith(f"rebuilds p.m.Out, which fails before p.m.Obs's turn: {RAISES}your own example")


SURVIVED = "1 tensor and the host copy survived the round trip (example built from annotations)"


@pytest.mark.parametrize(("out_findings", "obs_findings", "says"), [
    (["PPA010"], [], "check reports PPA010 on p.m.Out (to_pp_tensors returns an empty mapping on some path); this round "
                     "trip passed because its examples all sent tensors, so none took that path"),
    ([], ["PPA014"], "check reports PPA014 on p.m.Obs (from_pp_tensors can return None); this round "
                     "trip passed because p.m.Obs rebuilt an output from everything its examples sent, so it never "
                     "took that path"),
    (["PPA001"], [], "check reports PPA001 on p.m.Out (An auxiliary output has no to_pp_tensors, so it cannot be sent to the next PP stage); this round trip passed because at run "
                     "time the output had a working to_pp_tensors, which check did not see defined"),
    ([], ["PPA018"], "check reports PPA018 on p.m.Obs (A class inherits a PP Protocol explicitly but never overrides its method, keeping the stub that returns None); this round "
                     "trip passed because at run time the observer had a working from_pp_tensors"),
    (["PPA015"], [], "check reports PPA015 on p.m.Out (from_pp_tensors reads a key its output never sends, or never reads one it sends); this round trip passed "
                     "because what p.m.Obs rebuilt sent and copied to host what the original did"),
    (["PPA013"], [], "check reports PPA013 on p.m.Out (The same name appears twice in a dict returned by to_pp_tensors); this round "
                     "trip passed because Python keeps only the last of the repeated entries before SGLang sees the "
                     "dict, and the host copies matched without the dropped one"),
    (["PPA016"], [], "check reports PPA016 on p.m.Out (A PP transport method is async, a generator, a property, or has the wrong arity); this round trip passed because its examples may not reach "
                     "the code the finding is about"),
])
def test_a_pass_beside_a_finding_says_why_the_two_differ(out_findings, obs_findings, says):
    result = row(PASS, SURVIVED, ANNOTATIONS, out_findings, obs_findings)
    assert result.status == PASS
    assert result.message.startswith(SURVIVED.replace("round trip", "round trip through p.m.Obs"))
    assert f"; {says}" in result.message, result.message
    assert "static findings" not in result.message


def test_each_finding_beside_a_pass_gets_its_own_reason():
    message = row(PASS, SURVIVED, ANNOTATIONS, ["PPA010"], ["PPA014"]).message
    assert message.count("; this round trip passed because") == 2
    assert message.index("PPA010 on p.m.Out") < message.index("PPA014 on p.m.Obs")


WORDING = plugin_module(
    """
    from dataclasses import dataclass
    from typing import Optional

    import torch


    @dataclass
    class Histogram:
        histogram: Optional[torch.Tensor] = None

        def copy_to_host(self, copy_tensor):
            return None

        def to_pp_tensors(self):
            if self.histogram is None:
                return {}
            return {"histogram": self.histogram}


    class Label:
        def __init__(self, label: str):
            self.label = label

        def copy_to_host(self, copy_tensor):
            return self.label

        def to_pp_tensors(self):
            return {}


    @dataclass
    class Guarded:
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            if self.values.numel() == 0:
                return {}
            return {"values": self.values}
    """,
    """
    class GuardedObserver:
        strict = False  # (a guard on a key Guarded always sends would be no PPA014: that None never happens)

        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits

        def after_sample(self, state, token_ids) -> Guarded:
            return Guarded(token_ids)

        def from_pp_tensors(self, tensors) -> Guarded:
            if self.strict:
                return None
            return Guarded(tensors["values"])


    @dataclass
    class Sparse:
        mask: Optional[torch.Tensor] = None

        def copy_to_host(self, copy_tensor):
            return None

        def to_pp_tensors(self):
            return {"mask": self.mask} if self.mask is not None else {}


    class SparseObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits

        def after_sample(self, state, token_ids) -> Sparse:
            return Sparse()

        def from_pp_tensors(self, tensors) -> Sparse:
            return Sparse(tensors["mask"])
    """,
    plain_output("Nothing", "return {}", example=True),
)


@pytest.fixture(scope="module")
def wording_rows(module_project, run_cli):
    pytest.importorskip("torch")
    module_project.package("words", {"m": WORDING})
    result = run_cli(str(module_project.root), "--device", "cpu", "--output-format", "json")
    return {row["symbol"].removeprefix("words.m."): row for row in json.loads(result.stdout)}


@pytest.mark.parametrize(("name", "says"), [
    ("Histogram", "the example built from the annotations with histogram left None (the constructor's default): "
                  "its to_pp_tensors() sends no tensor then. That is a production failure only if"),
    ("Label", "the example built from the annotations, which has a tensor for each tensor parameter its "
              "constructor has, if any: its to_pp_tensors() still sends none, so every output of the class fails"),
    ("Nothing", "your own example (ppaux_example or the configured factory)"),
    ("Sparse", "the output that words.m.SparseObserver.after_sample returned, driven at batch 1: its to_pp_tensors() "
               "sends no tensor, so SGLang raises the same way in production"),
])
def test_verify_says_what_an_output_that_sent_nothing_proves(wording_rows, name, says):
    row = wording_rows[name]
    assert row["status"] == "fail" and row["message"].startswith(RAISES + says), row["message"]
    assert "(static findings: PPA010 on words.m." in row["message"]


def test_verify_says_why_a_pair_passes_beside_its_findings(wording_rows):
    for name in ("Guarded", "GuardedObserver"):
        message = wording_rows[name]["message"]
        assert wording_rows[name]["status"] == "pass" and wording_rows[name]["example"] == "driven", message
        assert ("check reports PPA010 on words.m.Guarded (to_pp_tensors returns an empty mapping on some path); this round "
                "trip passed because its examples all sent tensors") in message
        assert ("check reports PPA014 on words.m.GuardedObserver (from_pp_tensors can return None); "
                "this round trip passed because words.m.GuardedObserver rebuilt an output") in message
