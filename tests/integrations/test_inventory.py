"""``ppaux-lint inventory``: what the analysis sees, checked against fixtures/sample_plugin/EXPECTED.md."""

from __future__ import annotations

import json

import pytest

from .conftest import SAMPLE_PLUGIN, run_cli

P = "acme_observers."

OUTPUTS = {
    "base.outputs.AcmeOutput", "topk.outputs.TopKOutput", "topk.ranked.RankedTopKOutput", "topk.nucleus.NucleusOutput",
    "entropy.outputs.EntropyOutput", "entropy.outputs.SurprisalOutput", "entropy.outputs.EntropyHistogramOutput",
    "entropy.calibration.CalibrationOutput", "stats.repetition.RepetitionOutput", "legacy.outputs.LogitLensOutput",
    "legacy.outputs.HiddenNormOutput", "legacy.outputs.AttentionSinkOutput", "legacy.outputs.ExpertLoadOutput",
    "legacy.outputs.DebugDumpOutput", "legacy.trace.TokenTraceOutput", "legacy.observers.PenaltyOutput",
}
PAIRS = {
    "topk.observer.TopKObserver": ("topk.outputs.TopKOutput", "from_pp_tensors"),
    "topk.ranked.RankedTopKObserver": ("topk.ranked.RankedTopKOutput", "from_pp_tensors"),
    "topk.nucleus.NucleusObserver": ("topk.nucleus.NucleusOutput", "from_pp_tensors"),
    "entropy.observer.EntropyObserver": ("entropy.outputs.EntropyOutput", "from_pp_tensors"),
    "entropy.observer.SurprisalObserver": ("entropy.outputs.SurprisalOutput", "from_pp_tensors"),
    "entropy.calibration.CalibrationObserver": ("entropy.calibration.CalibrationOutput", "from_pp_tensors"),
    "stats.repetition.RepetitionObserver": ("stats.repetition.RepetitionOutput", "from_pp_tensors"),
    "legacy.observers.LengthPenaltyObserver": ("legacy.observers.PenaltyOutput", "after_sample"),
}


@pytest.fixture(scope="module")
def data() -> dict:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(SAMPLE_PLUGIN)
        result = run_cli("inventory", "--output-format", "json", ".")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def by_fqn(records: list[dict]) -> dict[str, dict]:
    return {r["fqn"].removeprefix(P): r for r in records}


def test_every_output_and_observer_is_listed(data: dict) -> None:
    outputs = by_fqn(r for r in data["outputs"] if not r["interface"])
    observers = by_fqn(r for r in data["observers"] if not r["interface"])
    assert set(outputs) == OUTPUTS
    assert set(observers) == set(PAIRS)
    interfaces = {r["fqn"].removeprefix(P) for r in data["outputs"] + data["observers"] if r["interface"]}
    assert interfaces == {"base.interfaces.RowAlignedOutput", "base.interfaces.ToggleableObserver"}
    assert data["summary"] == {"outputs": 16, "observers": 8, "interfaces": 2, "pp_ready_outputs": 11,
                               "pp_ready_observers": 7, "unpaired_observers": 0, "unknown": 0}
    every = data["outputs"] + data["observers"]
    assert not any(r["fqn"].endswith(("HostTensors", "FieldTensorsMixin", "AuditLogObserver")) for r in every)


def test_recognition_says_how(data: dict) -> None:
    outputs = by_fqn(data["outputs"])
    observers = by_fqn(data["observers"])
    for structural in ("entropy.outputs.SurprisalOutput", "stats.repetition.RepetitionOutput",
                       "legacy.outputs.DebugDumpOutput"):
        assert outputs[structural]["recognized"] == "structural: defines `copy_to_host`"
    assert outputs["topk.ranked.RankedTopKOutput"]["recognized"].startswith(
        "subclass of sglang.srt.managers.auxiliary_output.DeviceAuxiliaryOutput via acme_observers.topk.outputs."
        "TopKOutput -> acme_observers.base.outputs.AcmeOutput")
    assert outputs["legacy.outputs.LogitLensOutput"]["recognized"] == (
        "subclass of sglang.srt.sampling.sampling_observer.DeviceAuxiliaryOutput")
    assert observers["entropy.observer.SurprisalObserver"]["recognized"] == (
        "structural: defines `after_sample` and `before_grammar`")
    record = outputs["legacy.outputs.LogitLensOutput"]
    assert record["path"] == "src/acme_observers/legacy/outputs.py" and record["line"] == 15


def test_pairing_both_ways(data: dict) -> None:
    observers = by_fqn(data["observers"])
    outputs = by_fqn(data["outputs"])
    for observer, (output, hook) in PAIRS.items():
        assert observers[observer]["rebuilds"] == P + output
        assert observers[observer]["paired_from"] == hook
        assert P + observer in outputs[output]["rebuilt_by"]
    assert outputs["legacy.outputs.LogitLensOutput"]["rebuilt_by"] == []


def test_pp_status(data: dict) -> None:
    outputs = {k: v["pp"] for k, v in by_fqn(data["outputs"]).items()}
    observers = {k: v["pp"] for k, v in by_fqn(data["observers"]).items()}
    assert outputs["legacy.outputs.LogitLensOutput"]["status"] == "missing"
    assert outputs["legacy.outputs.HiddenNormOutput"]["status"] == "none"
    assert outputs["legacy.outputs.AttentionSinkOutput"] == {
        "method": "to_pp_tensors", "status": "near-miss", "ok": False,
        "via": "acme_observers.legacy.outputs.AttentionSinkOutput.to_pp_tensor", "keys": None, "origin": None,
        "keys_unknown": None}
    assert outputs["legacy.outputs.ExpertLoadOutput"]["status"] == "stub"
    assert outputs["legacy.outputs.ExpertLoadOutput"]["via"] == (
        "sglang.srt.sampling.sampling_observer_pp.PipelineParallelAuxiliaryOutput")
    assert outputs["base.outputs.AcmeOutput"]["status"] == "inherited"
    assert outputs["base.outputs.AcmeOutput"]["via"] == "acme_observers.base.mixins.FieldTensorsMixin"
    assert outputs["entropy.outputs.SurprisalOutput"]["status"] == "assigned"
    assert outputs["topk.nucleus.NucleusOutput"] == {"method": "to_pp_tensors", "status": "defined", "ok": True,
                                                     "via": None, "keys": ["probs", "token_ids"], "origin": None,
                                                     "keys_unknown": None}
    assert observers["topk.nucleus.NucleusObserver"]["keys"] == ["lengths", "probs", "token_ids"]
    assert observers["legacy.observers.LengthPenaltyObserver"]["status"] == "missing"


def test_findings_are_attached_to_their_class(data: dict) -> None:
    records = by_fqn(data["outputs"] + data["observers"])
    assert records["topk.nucleus.NucleusObserver"]["findings"] == ["PPA015"]
    assert records["legacy.outputs.DebugDumpOutput"]["findings"] == []  # suppressed in the source
    assert records["legacy.outputs.HiddenNormOutput"]["findings"] == ["PPA001"]


def test_uncertain_when_a_base_is_out_of_sight(project) -> None:
    project({"m.py": """
        from somewhere_else import Base


        class Out(Base):
            def copy_to_host(self, c):
                return self
    """})
    data = json.loads(run_cli("inventory", "--output-format", "json", ".").stdout)
    record = data["outputs"][0]
    assert record["pp"]["status"] == "uncertain" and record["unresolved_bases"] == ["somewhere_else.Base"]


def test_keys_it_cannot_compute_say_why(project) -> None:
    """A str-mixin Enum member as a key: the helper's f-string names it 'K.SCORES' on Python 3.11+, so the
    first stage's read raises KeyError; PPA015 is silent on keys it cannot compute, and the inventory says so."""
    project({"m.py": """
        import enum


        class K(str, enum.Enum):
            SCORES = "scores"


        class Out:
            def __init__(self, s):
                self.s = s

            def copy_to_host(self, c):
                return self

            def to_pp_tensors(self):
                return {K.SCORES: self.s}


        class Obs:
            def is_active(self, info):
                return True

            def after_sample(self, state, token_ids):
                return Out(state)

            def from_pp_tensors(self, tensors):
                if "extra" in tensors:
                    return None
                return Out(**tensors)
    """})
    data = json.loads(run_cli("inventory", "--output-format", "json", ".").stdout)
    sent, read = data["outputs"][0]["pp"], data["observers"][0]["pp"]
    assert (sent["keys"], sent["keys_unknown"]) == (
        None, "the key `K.SCORES` is not a constant the analysis computes, so PPA015 compares no key")
    assert read["keys"] is None and read["keys_unknown"].startswith(
        "the received mapping is also used other than through reads of constant keys")
    text = run_cli("inventory", ".").stdout
    assert "to_pp_tensors: defined — keys not known: the key `K.SCORES` is not a constant" in text


def test_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLE_PLUGIN)
    result = run_cli("inventory", ".")
    assert result.exit_code == 0
    text = result.stdout
    assert "Outputs (17)" in text and "Observers (9)" in text
    assert "✗ acme_observers.legacy.outputs.LogitLensOutput  src/acme_observers/legacy/outputs.py:15  PPA001" in text
    assert "rebuilds: acme_observers.legacy.observers.PenaltyOutput (from after_sample)" in text
    assert "to_pp_tensors: assigned None (counts as missing)" in text
    assert "\x1b[" not in text  # no colour off a terminal
    assert text.rstrip().endswith("16 outputs (11 with `to_pp_tensors`), 8 observers (7 with `from_pp_tensors`, "
                                  "0 unpaired), 2 interfaces")


def test_only_the_paths_asked_about(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLE_PLUGIN)
    data = json.loads(run_cli("inventory", "--output-format", "json", "src/acme_observers/topk").stdout)
    assert {r["fqn"].removeprefix(P) for r in data["outputs"]} == {
        "topk.outputs.TopKOutput", "topk.ranked.RankedTopKOutput", "topk.nucleus.NucleusOutput"}
    # resolution still used the whole project
    assert "via acme_observers.base.outputs.AcmeOutput" in by_fqn(data["outputs"])["topk.outputs.TopKOutput"][
        "recognized"]
