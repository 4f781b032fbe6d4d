"""An observer that combines outputs with SGLang's ``append_auxiliary_output`` is judged on what that returns
(issue 34, item 3), even where its ``from_pp_tensors`` names a discovered output class.

An observer that extends another by appending an output to what ``super().after_sample`` returns inherits a
``from_pp_tensors`` that names the parent's output; the round trip of that output, made by the parent's hooks,
passes. SGLang sends what the child returns: a ``CompositeDeviceAuxiliaryOutput``, which has no
``to_pp_tensors`` in 0.5.23, so SGLang's ``add`` raises (``test_stand_ins_match_sglang`` runs SGLang's own
helpers on its own composite to show it). Appending one output to ``None`` hands it back: that one passes.
"""

from __future__ import annotations

import json

import pytest

from .conftest import plugin_module

pytest.importorskip("torch")

PLUGIN = plugin_module(
    """
    from dataclasses import dataclass

    import torch
    from sglang.srt.managers.auxiliary_output import append_auxiliary_output
    """,
    """
    @dataclass
    class TopOutput:
        ids: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.ids)

        def to_pp_tensors(self):
            return {"ids": self.ids}
    """,
    """
    @dataclass
    class NormOutput:
        norm: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.norm)

        def to_pp_tensors(self):
            return {"norm": self.norm}
    """,
    """
    class TopObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits.float().clone()

        def after_sample(self, state, token_ids) -> TopOutput:
            return TopOutput(state.topk(2, dim=-1).indices)

        def from_pp_tensors(self, tensors) -> TopOutput:
            return TopOutput(tensors["ids"])
    """,
    """
    class WithNorm(TopObserver):
        def after_sample(self, state, token_ids):
            top = super().after_sample(state, token_ids)
            return append_auxiliary_output(top, NormOutput(state.norm(dim=-1)))
    """,
    """
    class OnlyTop(TopObserver):
        def after_sample(self, state, token_ids):
            return append_auxiliary_output(None, super().after_sample(state, token_ids))
    """,
)

NOT_PP = "add_auxiliary_output_to_pp_tensors: RuntimeError: auxiliary output does not support pipeline-parallel transport"


@pytest.fixture(scope="module")
def rows(module_project, run_cli):
    module_project.package("combo", {"obs": PLUGIN})
    result = run_cli(str(module_project.root), "--device", "cpu", "--output-format", "json")
    return {row["symbol"]: row for row in json.loads(result.stdout)}


def test_an_observer_that_appends_to_its_parents_output_fails_as_sglang_does(rows):
    row = rows["combo.obs.WithNorm"]
    assert (row["status"], row["example"]) == ("fail", "driven")
    assert row["message"].startswith("rebuilds what combo.obs.WithNorm.after_sample returns: driven at batch 1: ")
    assert row["message"].endswith(NOT_PP)


def test_appending_one_output_to_none_hands_it_back_and_passes(rows):
    assert (rows["combo.obs.OnlyTop"]["status"], rows["combo.obs.OnlyTop"]["example"]) == ("pass", "driven")


def test_the_parent_and_the_outputs_are_not_blamed(rows):
    assert {symbol: row["status"] for symbol, row in rows.items() if symbol not in (
        "combo.obs.WithNorm", "combo.obs.OnlyTop")} == {
        "combo.obs.TopObserver": "pass", "combo.obs.TopOutput": "pass", "combo.obs.NormOutput": "skip"}
    assert rows["combo.obs.NormOutput"]["message"].startswith("no observer rebuilds it")


def test_only_observers_whose_after_sample_calls_sglangs_combiners_are_found(module_project, rows):
    from ppaux_lint.check.engine import analyze
    from ppaux_lint.runtime.terms.composites import composite_returners

    analysis = analyze([str(module_project.root)])
    observers = [fqn for fqn, info in analysis.classes.items() if info.is_observer]
    assert composite_returners(analysis, observers) == {"combo.obs.WithNorm", "combo.obs.OnlyTop"}
