"""Forward observers (``after_forward``): what only they return never crosses a pipeline stage, so it gets no PPA001.

SGLang refuses to install a forward observer when ``pp_size > 1``. Each case is a small project of our own,
modelled on the shapes of upstream's ``test_forward_observer.py`` (a recording test double handed its output,
the output put on the result as ``forward_auxiliary_output=``) and of a real capture plugin (a
``ForwardObserver`` subclass returning ``Optional[CaptureOutput]``).
"""

from __future__ import annotations

import io
import textwrap

import pytest
from lintkit import IMPORT_AUX, IMPORT_OBS, lint, make_project, reported, run_analysis

from ppaux_lint.cli.inventory import build, render_tree
from ppaux_lint.project.config import ConfigError, parse_config

FORWARD_ROOT = "sglang.srt.model_executor.forward_observer.ForwardObserver"
IMPORT_FORWARD = "from sglang.srt.model_executor.forward_observer import ForwardObserver\n"

# The shapes of upstream's test doubles: a structural output and an observer that returns what it was given.
DOUBLES = """
from dataclasses import dataclass
from types import SimpleNamespace

import torch

from sglang.srt.layers.logits_processor import LogitsProcessorOutput
from sglang.srt.managers.utils import GenerationBatchResult


@dataclass
class HostOutput:
    values: torch.Tensor

    def consume(self, batch, commits):
        pass


class DeviceOutput:
    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return HostOutput(copy_tensor(self.values))


class RecordingObserver:
    def __init__(self, output=None):
        self.output = output
        self.calls = []

    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        self.calls.append((batch, forward_batch, logits_output, can_run_graph))
        return self.output
"""
DEVICE_OUTPUT = "tests.test_doubles.DeviceOutput"

ROUTES = {
    "constructor-via-local": """
        def test_attach():
            device_output = DeviceOutput(torch.tensor([1.0]))
            observer = RecordingObserver(device_output)
            runner = SimpleNamespace(forward_observer=observer)
            assert runner.forward_observer.after_forward(1, 2, 3, can_run_graph=False) is device_output
        """,
    "constructor-direct": """
        def test_attach():
            observer = RecordingObserver(DeviceOutput(torch.tensor([1.0])))
            assert observer.output is not None
        """,
    "constructor-keyword": """
        def test_attach():
            assert RecordingObserver(output=DeviceOutput(torch.tensor([1.0]))).output is not None
        """,
    "partial-of-the-observer": """
        import functools


        def test_attach():
            runner = SimpleNamespace(forward_observer=None)
            runner.forward_observer = functools.partial(RecordingObserver, DeviceOutput(torch.tensor([1.0])))()
            assert runner.forward_observer.output is not None
        """,
    "partial-of-the-observer-keyword": """
        from functools import partial


        def test_attach():
            make = partial(RecordingObserver, output=DeviceOutput(torch.tensor([1.0])))
            assert make().output is not None
        """,
    "partial-of-the-output": """
        import functools


        def test_attach():
            assert RecordingObserver(functools.partial(DeviceOutput, torch.tensor([1.0]))()).output is not None
        """,
    "result-field": """
        def test_forward_output_alone_is_copied_to_the_host():
            result = GenerationBatchResult(
                logits_output=LogitsProcessorOutput(next_token_logits=None),
                forward_auxiliary_output=DeviceOutput(torch.tensor([1.0])),
            )
            assert result.forward_auxiliary_output is not None
        """,
}


def _doubles(route: str) -> str:
    return DOUBLES + "\n\n" + textwrap.dedent(route)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_upstream_style_test_doubles_are_silent(lint_project, route):
    lint_project({"tests/test_doubles.py": _doubles(ROUTES[route])})
    assert lint() == []


@pytest.mark.parametrize("route", [
    "",
    """
    def test_sampling_output_is_copied():
        LogitsProcessorOutput(next_token_logits=None, auxiliary_device_output=DeviceOutput(torch.ones(1)))
    """,
], ids=["not-routed", "host-copy-field-only"])
def test_an_output_no_forward_observer_gets_is_still_reported(lint_project, route):
    """``auxiliary_device_output=`` is the sampling result's field on the host side: no evidence either way."""
    lint_project({"tests/test_doubles.py": _doubles(route)})
    assert reported(lint()) == {(DEVICE_OUTPUT, "PPA001")}


def test_routes_across_modules_are_named_on_the_class(lint_project):
    lint_project({
        "pkg/doubles.py": DOUBLES,
        "tests/test_wiring.py": """
            import torch

            from pkg.doubles import DeviceOutput as Output, RecordingObserver
            from sglang.srt.managers.utils import GenerationBatchResult


            def test_wiring(runner):
                runner.forward_observer = RecordingObserver(Output(torch.ones(1)))
                GenerationBatchResult(forward_auxiliary_output=Output(torch.ones(1)))
            """,
    })
    analysis = run_analysis()
    assert analysis.findings == []
    info = analysis.classes["pkg.doubles.DeviceOutput"]
    assert info.forward_only_by == ("pkg.doubles.RecordingObserver",
                                    "sglang.srt.managers.utils.GenerationBatchResult.forward_auxiliary_output")
    assert analysis.classes["pkg.doubles.RecordingObserver"].forward_observer == "structural: defines `after_forward`"
    assert not analysis.classes["pkg.doubles.RecordingObserver"].roles  # not a sampling observer: no PPA002


CAPTURE_OUTPUTS = IMPORT_AUX + """
from dataclasses import dataclass

import torch


@dataclass
class CaptureHost:
    hidden: torch.Tensor

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                batch.reqs[row].captured = self.hidden[row]


@dataclass
class CaptureOutput(DeviceAuxiliaryOutput):
    hidden: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return CaptureHost(copy_tensor(self.hidden))
"""


def _capture_observer(base: str, annotation: str, body: str) -> str:
    return IMPORT_FORWARD + f"""
from typing import Optional

from capture.outputs import CaptureOutput


class HiddenStateCapture{base}:
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph){annotation}:
        {body}

    def _build(self, hidden):
        return CaptureOutput(hidden.clone())
"""


@pytest.mark.parametrize("base", ["(ForwardObserver)", ""], ids=["subclass", "structural"])
@pytest.mark.parametrize("annotation, body", [
    (" -> Optional[CaptureOutput]", "return self._build(logits_output.hidden_states)"),
    (" -> CaptureOutput | None", "return self._build(logits_output.hidden_states)"),
    (' -> "Optional[CaptureOutput]"', "return self._build(logits_output.hidden_states)"),
    ("", "return CaptureOutput(logits_output.hidden_states.clone())"),
], ids=["optional", "union", "string", "construct"])
def test_forward_observer_capture_plugin_is_silent(lint_project, base, annotation, body):
    lint_project({"capture/outputs.py": CAPTURE_OUTPUTS,
                  "capture/observer.py": _capture_observer(base, annotation, body)})
    analysis = run_analysis()
    assert analysis.findings == []
    assert analysis.classes["capture.outputs.CaptureOutput"].forward_only_by == ("capture.observer.HiddenStateCapture",)
    reason = analysis.classes["capture.observer.HiddenStateCapture"].forward_observer
    assert reason == (f"subclass of {FORWARD_ROOT}" if base else "structural: defines `after_forward`")


@pytest.mark.parametrize("signature, fits", [
    ("self, batch, forward_batch, logits_output, *, can_run_graph", True),
    ("self, batch, forward_batch, logits_output, can_run_graph", True),
    ("self, batch, forward_batch, logits_output, *, can_run_graph=False, trace=None", True),
    ("self, batch, forward_batch, logits_output, **options", True),
    ("self, batch", False),
    ("self, batch, forward_batch, logits_output", False),
    ("self, batch, forward_batch, logits_output, *, can_run_graph, stream", False),
    ("self, batch, forward_batch=None, logits_output=None, *, can_run_graph", False),
    ("self, *args, **kwargs", False),
], ids=["upstream", "positional-or-keyword", "optional-extras", "varkw", "one-argument", "no-keyword",
        "extra-required-keyword", "optional-positionals", "varargs"])
def test_structural_forward_observers_take_the_call_sglang_makes(lint_project, signature, fits):
    observer = _capture_observer("", "", "return CaptureOutput(logits_output.hidden_states)").replace(
        "self, batch, forward_batch, logits_output, *, can_run_graph", signature)
    lint_project({"capture/outputs.py": CAPTURE_OUTPUTS, "capture/observer.py": observer})
    expected = set() if fits else {("capture.outputs.CaptureOutput", "PPA001")}
    assert reported(lint()) == expected


SAMPLING_OBSERVER = IMPORT_OBS + """
from typing import Optional

from capture.outputs import {names}


class CaptureSampler(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids){annotation}:
        {body}

    def from_pp_tensors(self, tensors):
        return self._rebuild(tensors)
"""


@pytest.mark.parametrize("annotation, body", [
    (" -> Optional[CaptureOutput]", "return self.pending"),
    ("", "return CaptureOutput(state)"),
], ids=["annotation", "construct"])
def test_an_output_both_kinds_of_observer_return_is_a_pp_output(lint_project, annotation, body):
    """The sampling observer lives in another module than the forward observer and the output. It returns the
    output by construction, or by its annotation where the body returns what the inference cannot see."""
    lint_project({
        "capture/outputs.py": CAPTURE_OUTPUTS,
        "capture/observer.py": _capture_observer("(ForwardObserver)", " -> Optional[CaptureOutput]", "return None"),
        "capture/sampling.py": SAMPLING_OBSERVER.format(names="CaptureOutput", annotation=annotation, body=body),
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == {("capture.outputs.CaptureOutput", "PPA001")}
    assert analysis.classes["capture.outputs.CaptureOutput"].forward_only_by == ()
    # the finding names both routes, so the forward one is not taken for an exemption
    assert ("(a forward observer returns it too (`capture.observer.HiddenStateCapture`), but so does sampling "
            "observer `capture.sampling.CaptureSampler`, whose output crosses the stage)") in analysis.findings[0].message


def test_a_sampler_whose_after_sample_returns_none_routes_nothing_whatever_it_declares(lint_project):
    """``-> Optional[CaptureOutput]`` over a body that returns None on every path: the sampler never returns an
    output (no PPA002), so it is no sampling route either, and the forward observer's output stays exempt."""
    lint_project({
        "capture/outputs.py": CAPTURE_OUTPUTS,
        "capture/observer.py": _capture_observer("(ForwardObserver)", " -> Optional[CaptureOutput]", "return None"),
        "capture/sampling.py": SAMPLING_OBSERVER.format(names="CaptureOutput", annotation=" -> Optional[CaptureOutput]",
                                                        body="return None"),
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert analysis.classes["capture.outputs.CaptureOutput"].returned_by == ()
    assert analysis.classes["capture.sampling.CaptureSampler"].no_output


def test_an_output_handed_to_both_kinds_of_observer_is_a_pp_output(lint_project):
    lint_project({"tests/test_doubles.py": _doubles(IMPORT_OBS + """

class RecordingSampler(SamplingObserver):
    def __init__(self, output):
        self.output = output

    def after_sample(self, state, token_ids):
        return self.output

    def from_pp_tensors(self, tensors):
        return self.output


def test_both():
    output = DeviceOutput(torch.ones(1))
    runner = SimpleNamespace(forward_observer=RecordingObserver(output), sampler=RecordingSampler(output))
""")})
    assert reported(lint()) == {(DEVICE_OUTPUT, "PPA001")}


def test_one_forward_only_output_beside_a_pp_output(lint_project):
    """Only the class that forward observers alone return is let off; its sibling is judged as before."""
    lint_project({
        "capture/outputs.py": CAPTURE_OUTPUTS + """

@dataclass
class SampledOutput(DeviceAuxiliaryOutput):
    ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return CaptureHost(copy_tensor(self.ids))
""",
        "capture/observer.py": _capture_observer("(ForwardObserver)", " -> Optional[CaptureOutput]", "return None"),
        "capture/sampling.py": SAMPLING_OBSERVER.format(names="SampledOutput", annotation="",
                                                        body="return SampledOutput(token_ids)"),
    })
    assert reported(lint()) == {("capture.outputs.SampledOutput", "PPA001")}


FORK_OBSERVER = """
from typing import Optional

import myfork.forward

from capture.outputs import CaptureOutput


class ForkCapture(myfork.forward.Observer):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph) -> Optional[CaptureOutput]:
        return None
"""


def test_forward_observer_roots_from_config(tmp_path, monkeypatch):
    """With structural recognition off, only a configured root makes a class a forward observer."""
    files = {"capture/outputs.py": CAPTURE_OUTPUTS, "capture/observer.py": FORK_OBSERVER}
    plain = make_project(tmp_path / "plain", files, config="[tool.ppaux-lint]\nstructural = false\n")
    monkeypatch.chdir(plain)
    assert reported(lint()) == {("capture.outputs.CaptureOutput", "PPA001")}
    configured = make_project(tmp_path / "fork", files, config="""
        [tool.ppaux-lint]
        structural = false

        [tool.ppaux-lint.protocols]
        forward-observer = ["myfork.forward.Observer"]
        """)
    monkeypatch.chdir(configured)
    assert lint() == []


def test_the_sglang_root_is_known_without_structural_recognition(lint_project):
    lint_project({"capture/outputs.py": CAPTURE_OUTPUTS,
                  "capture/observer.py": _capture_observer("(ForwardObserver)", " -> Optional[CaptureOutput]",
                                                           "return None")},
                 config="[tool.ppaux-lint]\nstructural = false\n")
    assert lint() == []


@pytest.mark.parametrize("value", [3, "myfork.Observer", [1]])
def test_forward_observer_config_is_validated(value):
    with pytest.raises(ConfigError, match=r"'tool\.ppaux-lint\.protocols\.forward-observer' must be a list"):
        parse_config({"protocols": {"forward-observer": value}}, None)


def test_unknown_protocol_key_names_forward_observer_among_the_known():
    with pytest.raises(ConfigError, match="forward-observer"):
        parse_config({"protocols": {"forward-observers": []}}, None)


def test_prefilter_and_cache_do_not_change_forward_routes(lint_project):
    lint_project({
        "pkg/doubles.py": DOUBLES,
        "pkg/other.py": "class Unrelated:\n    pass\n",
        "tests/test_wiring.py": """
            import torch

            from pkg.doubles import DeviceOutput, RecordingObserver


            def test_wiring(runner):
                runner.forward_observer = RecordingObserver(DeviceOutput(torch.ones(1)))
            """,
        "tests/test_plain.py": "from pkg.doubles import DeviceOutput\n\n\ndef test_plain():\n    DeviceOutput(1)\n",
    })
    assert lint(no_cache=True) == []
    assert lint(no_cache=True, prefilter=False) == []
    assert lint() == [] and lint() == []  # a cold cache, then a warm one: handoffs survive the round trip
    assert lint(["pkg/doubles.py"]) == []  # the file asked about alone: the wiring is still read


def test_inventory_shows_forward_outputs(lint_project):
    lint_project({"capture/outputs.py": CAPTURE_OUTPUTS,
                  "capture/observer.py": _capture_observer("(ForwardObserver)", " -> Optional[CaptureOutput]",
                                                           "return None")})
    data = build(run_analysis())
    (record,) = [r for r in data["outputs"] if r["fqn"] == "capture.outputs.CaptureOutput"]
    assert record["forward_only_by"] == ["capture.observer.HiddenStateCapture"]
    assert record["findings"] == [] and record["pp"]["status"] == "missing"
    out = io.StringIO()
    render_tree(data, out)
    assert "→ capture.outputs.CaptureOutput" in out.getvalue()
    assert "forward output of capture.observer.HiddenStateCapture (never crosses a stage" in out.getvalue()


def test_inventory_of_a_pp_output_has_no_forward_routes(lint_project):
    lint_project({"capture/outputs.py": CAPTURE_OUTPUTS})
    (record,) = build(run_analysis())["outputs"]
    assert record["forward_only_by"] == [] and record["findings"] == ["PPA001"]
