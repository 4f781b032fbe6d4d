"""``ppaux-lint verify`` end to end on a throwaway plugin project with one class per situation.

The project is verified once (the run restarts its worker after a hang and two
crashes, which is the slow part), and each test reads its own row.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ppaux_lint.runtime.terms.helpers import STAND_INS_LABEL

from .conftest import observer_class, output_class, plain_output, plugin_module

pytest.importorskip("torch")

PAIRS = plugin_module(
    """
    from __future__ import annotations

    import os
    import signal
    import time
    from dataclasses import dataclass
    from typing import Optional

    import torch


    @dataclass
    class Host:
        values: torch.Tensor
        extras: dict


    class GoodOutput:
        def __init__(self, values, mask):
            self.values = values
            self.mask = mask

        @classmethod
        def ppaux_example(cls, device):
            return cls(torch.arange(4.0, device=device), torch.tensor([True, False, True, True], device=device))

        def copy_to_host(self, copy_tensor):
            return Host(copy_tensor(self.values), {"mask": copy_tensor(self.mask)})

        def to_pp_tensors(self):
            return {"values": self.values, "mask": self.mask}
    """,
    observer_class("GoodObserver", "GoodOutput", "GoodOutput(state, token_ids > 0)",
                   'return GoodOutput(tensors["values"], tensors["mask"])'),
    output_class("NoSendOutput", send=None),
    observer_class("NoSendObserver", "NoSendOutput", "NoSendOutput(state)", 'return NoSendOutput(tensors["values"])'),
    output_class("OrphanOutput"),
    observer_class("NoRebuildObserver", "OrphanOutput", "OrphanOutput(state)", None),
    output_class("KeyedOutput", ("scores: torch.Tensor",), "copy_tensor(self.scores)", '{"scores": self.scores}'),
    observer_class("KeyedObserver", "KeyedOutput", "KeyedOutput(state)", 'return KeyedOutput(tensors["score"])'),
    output_class("SwapOutput", ("first: torch.Tensor", "second: torch.Tensor"),
                 "(copy_tensor(self.first), copy_tensor(self.second))", '{"first": self.first, "second": self.second}'),
    observer_class("SwapObserver", "SwapOutput", "SwapOutput(state, token_ids)",
                   'return SwapOutput(tensors["second"], tensors["first"])'),
    output_class("SynthOutput",
                 ("logits: torch.Tensor", "token_ids: torch.Tensor", "temperature: float",
                  "label: Optional[str] = None"),
                 '{"logits": copy_tensor(self.logits), "ids": [copy_tensor(self.token_ids)]}',
                 '{"logits": self.logits, "token_ids": self.token_ids}'),
    """
    class SynthObserver:
        def __init__(self, temperature: float = 1.0):
            self.temperature = temperature

        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids) -> SynthOutput:
            return SynthOutput(state, token_ids, self.temperature)

        def from_pp_tensors(self, tensors) -> SynthOutput:
            return SynthOutput(tensors["logits"], tensors["token_ids"], self.temperature)


    @dataclass
    class BrokenExampleOutput:
        values: torch.Tensor

        @classmethod
        def ppaux_example(cls, device):
            raise ValueError("needs a model config")

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            return {"values": self.values}


    class PickyOutput:
        def __init__(self, values: torch.Tensor):
            if values.dim() != 1:
                raise ValueError("values must be 1-D")
            self.values = values

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            return {"values": self.values}


    class Handle:
        pass


    class FactoryOutput:
        def __init__(self, handle: Handle, values: torch.Tensor):
            self.handle = handle
            self.values = values

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            return {"values": self.values}
    """,
    observer_class("FactoryObserver", "FactoryOutput", "FactoryOutput(Handle(), state)",
                   'return FactoryOutput(Handle(), tensors["values"])'),
    """
    class OpaqueOutput:
        def __init__(self, handle: Handle):
            self.handle = handle

        def copy_to_host(self, copy_tensor):
            return None

        def to_pp_tensors(self):
            return {"x": torch.zeros(1)}
    """,
    plain_output("HangOutput", "time.sleep(600)"),
    plain_output("ExitOutput", "os._exit(3)"),
    output_class("KilledOutput"),
    observer_class("KillerObserver", "KilledOutput", "KilledOutput(state)", "os.kill(os.getpid(), signal.SIGKILL)"),
    plain_output("OomOutput", 'raise MemoryError("CUDA out of memory (simulated)")', example=True),
    """
    @dataclass
    class ChattyOutput:
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            print("copying", flush=True)
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            print("sending", flush=True)
            return {"values": self.values}
    """,
    observer_class("ChattyObserver", "ChattyOutput", "ChattyOutput(state)",
                   'print("rebuilding", flush=True)\nreturn ChattyOutput(tensors["values"])'),
    # A column stays a strided view through SGLang's reshape, so torch.distributed.send refuses it (an x.t()
    # would be copied by it and arrive: test_send_rule.py).
    output_class("StridedOutput", send='{"values": self.values[:, 0]}'),
    observer_class("StridedObserver", "StridedOutput", "StridedOutput(state)",
                   'return StridedOutput(tensors["values"])'),
    observer_class("LonelyObserver", "", "token_ids", "return tensors"),
    output_class("OverrideOutput"),
    """
    def _rebuild(tensors):
        return OverrideOutput(tensors["values"])
    """,
    observer_class("OverrideObserver", "", "token_ids", "return _rebuild(tensors)"),
    """
    class DebugOnlyOutput:  # noqa: PPA001
        def __init__(self, values: torch.Tensor):
            self.values = values

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)


    @dataclass
    class MaskedOutput:
        values: torch.Tensor
        mask: Optional[torch.Tensor] = None

        def copy_to_host(self, copy_tensor):
            return Host(copy_tensor(self.values), {} if self.mask is None else {"mask": copy_tensor(self.mask)})

        def to_pp_tensors(self):
            return {"values": self.values}


    class MaskedObserver:
        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids) -> MaskedOutput:
            return MaskedOutput(state)

        def from_pp_tensors(self, tensors) -> MaskedOutput:
            return MaskedOutput(tensors["values"], tensors.get("mask"))


    def make_local():
        class LocalOutput:
            def copy_to_host(self, copy_tensor):
                return None

            def to_pp_tensors(self):
                return {"x": torch.zeros(1)}

        return LocalOutput
    """,
)

FACTORIES = '''
import torch

from zoo.pairs import FactoryOutput, Handle


def make_factory_output(device):
    return FactoryOutput(Handle(), torch.linspace(0, 1, 5, device=device))
'''

BROKEN = '''
import torch


class BrokenImportOutput:
    def copy_to_host(self, copy_tensor):
        return None

    def to_pp_tensors(self):
        return {"x": torch.zeros(1)}


raise ImportError("needs the acme CUDA extension")
'''

CONFIG = '''
[project]
name = "zoo"
version = "0"

[tool.ppaux-lint.verify.examples]
"zoo.pairs.FactoryOutput" = "zoo.factories:make_factory_output"

[tool.ppaux-lint.verify.pairs]
"zoo.pairs.OverrideOutput" = "zoo.pairs.OverrideObserver"
'''

Z = "zoo.pairs."
DEBUG_ONLY_LINE = PAIRS.splitlines().index("class DebugOnlyOutput:  # noqa: PPA001") + 1
NOT_PP = "RuntimeError: auxiliary output does not support pipeline-parallel transport"
OBSERVER_NOT_PP = "RuntimeError: sampling observer does not support pipeline-parallel transport"
HOW = "add a classmethod ppaux_example(cls, device)"
STRIDED_REFUSED = ("is sent as tensor.reshape(1, -1)[rank] by SGLang's send_tensor_dict at attention-TP size 1, "
                   "which keeps a non-contiguous view")

# symbol -> (status, fragments the message must contain)
EXPECTED = {
    Z + "GoodOutput": ("pass", ["2 tensors and the host copy survived the round trip through zoo.pairs.GoodObserver"]),
    Z + "GoodObserver": ("pass", ["rebuilds zoo.pairs.GoodOutput: 2 tensors and the host copy survived"]),
    Z + "NoSendOutput": ("fail", ["add_auxiliary_output_to_pp_tensors: " + NOT_PP, "PPA001 on zoo.pairs.NoSendOutput"]),
    Z + "NoSendObserver": ("fail", ["rebuilds zoo.pairs.NoSendOutput, which fails before zoo.pairs.NoSendObserver's "
                                    "turn: add_auxiliary_output_to_pp_tensors: " + NOT_PP]),
    Z + "OrphanOutput": ("fail", ["pop_auxiliary_output_from_pp_tensors: " + OBSERVER_NOT_PP]),
    Z + "NoRebuildObserver": ("fail", ["pop_auxiliary_output_from_pp_tensors: " + OBSERVER_NOT_PP,
                                        "PPA002 on zoo.pairs.NoRebuildObserver"]),
    Z + "KeyedOutput": ("fail", ["through zoo.pairs.KeyedObserver: pop_auxiliary_output_from_pp_tensors: KeyError: "
                                 "'score': zoo.pairs.KeyedObserver.from_pp_tensors read it at ", "but that key was not sent"]),
    Z + "KeyedObserver": ("fail", ["KeyError: 'score'"]),
    Z + "SwapOutput": ("fail", ["the rebuilt 'first' differs: values differ", "copy_to_host differs: host[0]"]),
    Z + "SwapObserver": ("fail", ["the rebuilt 'second' differs: values differ"]),
    Z + "SynthOutput": ("pass", ["2 tensors"]),
    Z + "SynthObserver": ("pass", ["rebuilds zoo.pairs.SynthOutput"]),
    Z + "BrokenExampleOutput": ("error", ["BrokenExampleOutput.ppaux_example raised ValueError: needs a model config"]),
    Z + "PickyOutput": ("skip", ["a synthesised PickyOutput(...) raised ValueError: values must be 1-D", HOW]),
    Z + "FactoryOutput": ("pass", ["1 tensor and the host copy"]),
    Z + "FactoryObserver": ("pass", ["rebuilds zoo.pairs.FactoryOutput"]),
    Z + "OpaqueOutput": ("skip", ["no value for 'handle' of type Handle", HOW]),
    Z + "HangOutput": ("fail", ["timed out after 4 s during add_auxiliary_output_to_pp_tensors"]),
    Z + "ExitOutput": ("fail", ["the worker process exited with code 3 during add_auxiliary_output_to_pp_tensors"]),
    Z + "KilledOutput": ("fail", ["the receiving rank was killed by SIGKILL during "
                                  "pop_auxiliary_output_from_pp_tensors"]),
    Z + "KillerObserver": ("fail", ["rebuilds zoo.pairs.KilledOutput: the receiving rank was killed by SIGKILL"]),
    Z + "OomOutput": ("fail", ["MemoryError: CUDA out of memory (simulated)"]),
    Z + "ChattyOutput": ("pass", ["1 tensor"]),
    Z + "ChattyObserver": ("pass", []),
    Z + "StridedOutput": ("fail", [STRIDED_REFUSED]),
    Z + "StridedObserver": ("fail", [STRIDED_REFUSED]),
    Z + "LonelyObserver": ("skip", ["rebuilds no known output class", "[tool.ppaux-lint.verify.pairs]"]),
    Z + "OverrideOutput": ("pass", ["through zoo.pairs.OverrideObserver"]),
    Z + "OverrideObserver": ("pass", ["rebuilds zoo.pairs.OverrideOutput"]),
    Z + "make_local.<locals>.LocalOutput": ("skip", ["defined inside a function", "cannot be imported"]),
    Z + "DebugOnlyOutput": ("skip", [f"`# noqa: PPA001` at zoo/pairs.py:{DEBUG_ONLY_LINE} declares it never crosses "
                                     "a pipeline stage"]),
    Z + "MaskedOutput": ("fail", ["with mask set: copy_to_host differs: host.extras['mask'] is missing"]),
    Z + "MaskedObserver": ("fail", ["rebuilds zoo.pairs.MaskedOutput: with mask set: copy_to_host differs"]),
    "zoo.broken.BrokenImportOutput": ("error", ["import zoo.broken.BrokenImportOutput: ImportError: needs the acme"]),
}


@pytest.fixture(scope="module")
def zoo(module_project, run_cli, tmp_path_factory, process_marker):
    module_project.write("pyproject.toml", CONFIG)
    module_project.package("zoo", {"pairs": PAIRS, "factories": FACTORIES, "broken": BROKEN})
    junit = tmp_path_factory.mktemp("junit") / "verify.xml"
    result = run_cli(str(module_project.root), "--device", "cpu", "--output-format", "json", "--timeout", "4",
                     "--junit-xml", str(junit))
    rows = {row["symbol"]: row for row in json.loads(result.stdout)}
    return result, rows, junit


def test_exit_code_is_1_when_a_class_fails(zoo):
    result, _, _ = zoo
    assert result.exit_code == 1, result.stderr


def test_every_discovered_class_has_a_row(zoo):
    _, rows, _ = zoo
    assert set(rows) == set(EXPECTED)


@pytest.mark.parametrize("symbol", sorted(EXPECTED))
def test_row(zoo, symbol):
    _, rows, _ = zoo
    status, fragments = EXPECTED[symbol]
    row = rows[symbol]
    assert row["status"] == status, row["message"]
    for fragment in fragments:
        assert fragment in row["message"]


def test_json_rows_have_the_documented_fields(zoo):
    _, rows, _ = zoo
    good = rows[Z + "GoodOutput"]
    assert set(good) == {"symbol", "status", "message", "device", "transport", "tensors", "seconds", "helpers",
                         "example"}
    assert good["example"] == "own"  # GoodObserver has no before_grammar, so GoodOutput's own example is sent
    assert good["device"] == "cpu" and good["transport"] == "local"
    # This interpreter has no SGLang, so ``auto`` judges every row with the bundled core, skips included, where
    # ppaux-lint's stand-ins serve SGLang's protocol modules.
    assert {row["helpers"] for row in rows.values()} == {STAND_INS_LABEL}
    assert good["tensors"] == [{"name": "values", "dtype": "float32", "shape": [4]},
                               {"name": "mask", "dtype": "bool", "shape": [4]}]
    assert all(isinstance(row["seconds"], float) and row["seconds"] >= 0 for row in rows.values())


def test_synthesised_tensors_are_small_and_typed_by_name(zoo):
    _, rows, _ = zoo
    assert rows[Z + "SynthOutput"]["tensors"] == [{"name": "logits", "dtype": "float32", "shape": [2, 3]},
                                                  {"name": "token_ids", "dtype": "int64", "shape": [2, 3]}]


def test_junit_report_is_well_formed_and_complete(zoo):
    _, rows, junit = zoo
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(rows)
    statuses = [row["status"] for row in rows.values()]
    assert int(suite.get("failures")) == statuses.count("fail") == len(suite.findall("testcase/failure"))
    assert int(suite.get("errors")) == statuses.count("error") == len(suite.findall("testcase/error"))
    assert int(suite.get("skipped")) == statuses.count("skip") == len(suite.findall("testcase/skipped"))
    assert {p.get("value") for p in suite.findall("testcase/properties/property[@name='helpers']")} == {STAND_INS_LABEL}
    broken = next(c for c in cases if c.get("name") == "BrokenExampleOutput")
    assert broken.get("classname") == "zoo.pairs"
    assert "ValueError" in broken.find("error").text  # the traceback is there for CI logs


def test_no_process_is_left_behind_after_hangs_and_crashes(zoo, process_marker, leftover_processes):
    assert leftover_processes(process_marker) == []


def test_prints_in_project_code_do_not_disturb_the_run(zoo):
    _, rows, _ = zoo
    assert rows[Z + "ChattyOutput"]["status"] == "pass"


STRICT_PAIRS = plugin_module(
    "import torch",
    plain_output("Out", 'return {"x": torch.ones(3)}', example=True),
    observer_class("Obs", "Out", "Out()", "return Out()"),
    observer_class("Lonely", "", "None", "return tensors"),
)


@pytest.fixture
def plug(project):
    """A small project: a pair that passes and an observer with nothing to rebuild (a skip)."""
    project.package("plug", {"m": STRICT_PAIRS})
    return project


def test_skips_pass_unless_strict(plug, run_cli):
    relaxed = run_cli(str(plug.root), "--device", "cpu")
    assert relaxed.exit_code == 0, relaxed.output
    assert f"3 classes verified: 2 pass, 1 skip (helpers: {STAND_INS_LABEL})" in relaxed.stdout
    strict = run_cli(str(plug.root), "--device", "cpu", "--strict", "--output-format", "json")
    assert strict.exit_code == 1
    assert [row["status"] for row in json.loads(strict.stdout)] == ["skip", "pass", "pass"]


@pytest.mark.parametrize("device", ["cuda:99", "tpu", "cuda:x"])
def test_a_device_that_does_not_exist_is_a_usage_error(plug, run_cli, device):
    result = run_cli(str(plug.root), "--device", device)
    assert result.exit_code == 2
    assert result.stderr.startswith("ppaux-lint: error: --device:")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("config, message", [
    pytest.param('[tool.ppaux-lint.verify.devices]\n"plug.m.Out" = "cuda:99"\n',
                 "'tool.ppaux-lint.verify.devices.plug.m.Out': device 'cuda:99' does not exist",
                 id="per-class-device-that-does-not-exist"),
    pytest.param('[tool.ppaux-lint.verify.examples]\n"plug.m.Out" = "plug.m.make"\n',
                 "'tool.ppaux-lint.verify.examples.plug.m.Out'", id="malformed-example-factory"),
])
def test_a_bad_verify_setting_is_a_usage_error(plug, run_cli, config, message):
    plug.write("pyproject.toml", config)
    result = run_cli(str(plug.root), "--device", "cpu")
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_missing_path_is_a_usage_error(tmp_path, run_cli):
    result = run_cli(str(tmp_path / "nowhere"), "--device", "cpu")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_an_unwritable_junit_path_is_a_usage_error(plug, run_cli):
    result = run_cli(str(plug.root), "--device", "cpu", "--junit-xml", str(plug.root / "no" / "dir.xml"))
    assert result.exit_code == 2
    assert "--junit-xml" in result.stderr


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SAMPLE_PASSES = {"topk.outputs.TopKOutput", "topk.observer.TopKObserver", "topk.ranked.RankedTopKOutput",
                 "topk.ranked.RankedTopKObserver", "entropy.outputs.EntropyOutput", "entropy.observer.EntropyObserver",
                 "entropy.outputs.SurprisalOutput", "entropy.observer.SurprisalObserver",
                 "stats.repetition.RepetitionOutput", "stats.repetition.RepetitionObserver"}
# Driven, CalibrationObserver keeps `top2[:, 0]`, a strided view that SGLang's send refuses from batch 2 on.
CALIBRATION_REFUSED = "driven at batch 2: the tensor under '__sampling_observer_output__.max_prob'"
SAMPLE_FAILS = {
    "entropy.calibration.CalibrationOutput": CALIBRATION_REFUSED,
    "entropy.calibration.CalibrationObserver": CALIBRATION_REFUSED,
    "topk.nucleus.NucleusOutput": "KeyError: 'lengths'",
    "topk.nucleus.NucleusObserver": "KeyError: 'lengths'",
    "legacy.observers.PenaltyOutput": OBSERVER_NOT_PP,
    "legacy.observers.LengthPenaltyObserver": OBSERVER_NOT_PP,
    "legacy.outputs.LogitLensOutput": NOT_PP,
    "legacy.outputs.HiddenNormOutput": NOT_PP,
    "legacy.outputs.AttentionSinkOutput": NOT_PP,
    "legacy.outputs.ExpertLoadOutput": "auxiliary PP output must contain at least one tensor",
    "entropy.outputs.EntropyHistogramOutput": "auxiliary PP output must contain at least one tensor",
    "legacy.trace.TokenTraceOutput": "auxiliary PP output 'token_ids' is not a tensor",
}

DEBUG_DUMP = "legacy.outputs.DebugDumpOutput"


@pytest.mark.skipif(not (FIXTURES / "sample_plugin").is_dir(), reason="the bundled fixtures are not here")
def test_the_bundled_fixtures_give_the_documented_verdicts(run_cli):
    """What fixtures/sample_plugin/EXPECTED.md says verify gives, and a clean run of fixtures/clean_plugin.

    Both import ``sglang.*``: with no SGLang here, the workers import them through ppaux-lint's stand-ins."""
    clean = run_cli(str(FIXTURES / "clean_plugin"), "--device", "cpu", "--output-format", "json")
    assert clean.exit_code == 0, clean.output
    assert {row["status"] for row in json.loads(clean.stdout)} == {"pass"}
    sample = run_cli(str(FIXTURES / "sample_plugin"), "--device", "cpu", "--output-format", "json")
    assert sample.exit_code == 1
    rows = {row["symbol"].removeprefix("acme_observers."): row for row in json.loads(sample.stdout)}
    assert set(rows) == SAMPLE_PASSES | set(SAMPLE_FAILS) | {"base.outputs.AcmeOutput", DEBUG_DUMP}
    assert rows["base.outputs.AcmeOutput"]["status"] == "skip"
    assert rows[DEBUG_DUMP]["status"] == "skip"  # it would fail as PPA001 predicts, but its noqa says it never ships
    assert rows[DEBUG_DUMP]["message"] == ("`# noqa: PPA001` at src/acme_observers/legacy/outputs.py:59 declares it "
                                           "never crosses a pipeline stage")
    for name in SAMPLE_PASSES:
        assert rows[name]["status"] == "pass", rows[name]["message"]
    for name, error in SAMPLE_FAILS.items():
        assert rows[name]["status"] == "fail" and error in rows[name]["message"], rows[name]["message"]
