"""One round trip, in this process: the pass criteria, the steps, and the local transport."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.core import PP_OUTPUT_KEY_PREFIX  # noqa: E402
from ppaux_lint.runtime.hosts.trip import IN_PROCESS, run_request  # noqa: E402
from ppaux_lint.runtime.sending.roundtrip import Outcome  # noqa: E402
from ppaux_lint.runtime.sending.transport import local_transfer  # noqa: E402
from ppaux_lint.runtime.terms.targets import ClassRef, VerifyTarget  # noqa: E402

MODULE = '''
from dataclasses import dataclass

import torch


@dataclass
class Host:
    values: torch.Tensor


@dataclass
class Out:
    values: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        return cls(torch.arange(3.0, device=device))

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.values))

    def to_pp_tensors(self):
        return {"values": self.values}


class Obs:
    def from_pp_tensors(self, tensors):
        return Out(tensors["values"])


class Widening:
    def from_pp_tensors(self, tensors):
        return Out(tensors["values"].double())


class ExtraKey(Out):
    def to_pp_tensors(self):
        return {"values": self.values, "bonus": self.values}


class ExtraObs:
    def from_pp_tensors(self, tensors):
        return ExtraKey(tensors["values"])


class Bare:
    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.values))


class BareObs:
    def from_pp_tensors(self, tensors):
        return Bare(tensors["values"])


class HostLosesValues(Out):
    def copy_to_host(self, copy_tensor):
        return Host(copy_tensor(self.values) * 0)


class LossyObs:
    def from_pp_tensors(self, tensors):
        return HostLosesValues(tensors["values"])


class CannotCopy(Out):
    def copy_to_host(self, copy_tensor):
        raise RuntimeError("no host buffer")


class CannotCopyObs:
    def from_pp_tensors(self, tensors):
        return CannotCopy(tensors["values"])


class Mixin:
    def to_pp_tensors(self):
        return {"values": self.values.view(-1)}


class BaseLike(Mixin):
    def copy_to_host(self, copy_tensor):
        return None


class Provided(BaseLike):
    @classmethod
    def ppaux_example(cls, device):
        return cls()


class NotAnObserver:
    def after_sample(self, state, token_ids):
        return None
'''


@pytest.fixture(scope="module")
def mod(module_project):
    module_project.package("rtmod", {"m": MODULE})
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(module_project.root))
        yield "rtmod.m"


def ref(module: str, name: str) -> ClassRef:
    return ClassRef(f"{module}.{name}", module, name)


def trip(mod: str, output: str | None, observer: str | None, **kw):
    target = VerifyTarget(f"{mod}.{output or observer}", "output" if output else "observer",
                          ref(mod, output) if output else None, ref(mod, observer) if observer else None, **kw)
    steps: list = []
    result = run_request(target, "cpu", IN_PROCESS, 30.0, lambda *event: steps.append(event))
    return result, steps


def test_a_faithful_pair_passes_and_reports_its_tensors(mod):
    result, steps = trip(mod, "Out", "Obs")
    assert result.status == "pass", result.message
    assert [(t.name, t.dtype, t.shape) for t in result.tensors] == [("values", "float32", (3,))]
    assert steps == [
        (f"import {mod}.Out", "error", "sending"),
        (f"example of {mod}.Out", "error", "sending"),
        ("add_auxiliary_output_to_pp_tensors", "fail", "sending"),
        ("original.copy_to_host", "fail", "sending"),
        (f"import {mod}.Obs", "error", "receiving"),
        (f"example of {mod}.Obs", "error", "receiving"),
        ("transport", "error", "receiving"),
        ("pop_auxiliary_output_from_pp_tensors", "fail", "receiving"),
        ("rebuilt.to_pp_tensors", "fail", "receiving"),
        ("rebuilt.copy_to_host", "fail", "receiving"),
    ]


@pytest.mark.parametrize(("observer", "fragments"), [
    ("Widening", ["the rebuilt 'values' differs: dtype float64 != float32",
                  "copy_to_host differs: host.values: dtype float64 != float32"]),
    ("ExtraObs", ["the rebuilt output's to_pp_tensors() has unexpected 'bonus'"]),
    ("BareObs", ["the rebuilt rtmod.m.Bare has no to_pp_tensors()"]),
    ("LossyObs", ["copy_to_host differs: host.values: values differ"]),
    ("CannotCopyObs", ["rebuilt.copy_to_host: RuntimeError: no host buffer (at "]),
])
def test_each_pass_criterion_fails_on_its_own(mod, observer, fragments):
    result, _ = trip(mod, "Out", observer)
    assert result.status == "fail"
    for fragment in fragments:
        assert fragment in result.message


def test_an_output_nobody_rebuilds_is_skipped_after_its_sending_half(mod):
    result, _ = trip(mod, "Out", None)
    assert result.status == "skip"
    assert result.message.startswith("no observer rebuilds it, so only the sending half ran (1 tensor added)")
    assert '"rtmod.m.Out" = "pkg.mod.Observer"' in result.message


def test_project_code_failing_on_a_synthesised_example_is_a_skip(mod):
    result, _ = trip(mod, "BaseLike", None)
    assert result.status == "skip"
    assert "on a synthesised example that may not be realistic" in result.message
    assert "AttributeError" in result.message and "ppaux_example" in result.message


def test_project_code_failing_on_the_users_own_example_is_a_fail(mod):
    result, _ = trip(mod, "Provided", None)
    assert result.status == "fail"
    assert "add_auxiliary_output_to_pp_tensors: AttributeError" in result.message
    assert "in Mixin.to_pp_tensors" in result.message and "Traceback" in result.detail


def test_an_observer_probe(mod):
    able, _ = trip(mod, None, "Obs", reason="rebuilds nothing known")
    unable, _ = trip(mod, None, "NotAnObserver", reason="rebuilds nothing known")
    assert (able.status, able.message) == ("skip", "rebuilds nothing known")
    assert unable.status == "fail"
    assert unable.message == ("pop_auxiliary_output_from_pp_tensors: RuntimeError: "
                              "sampling observer does not support pipeline-parallel transport")


def test_an_unimportable_class_is_skipped(mod):
    target = VerifyTarget("x.f.<locals>.C", "output",
                          ClassRef("x.f.<locals>.C", "x", "f.<locals>.C", unimportable="defined inside a function"))
    result = run_request(target, "cpu", IN_PROCESS, 30.0)
    assert (result.status, result.message) == ("skip", "x.f.<locals>.C is defined inside a function")


def test_a_missing_module_is_an_error(mod):
    result, _ = trip("rtmod.nowhere", "Out", "Obs")
    assert result.status == "error"
    assert result.message.startswith("import rtmod.nowhere.Out: ModuleNotFoundError")


def test_a_harness_failure_is_an_error_row_not_an_exception(mod):
    target = VerifyTarget(f"{mod}.Out", "output", ref(mod, "Out"), ref(mod, "Obs"))
    result = run_request(target, "not-a-device", IN_PROCESS, 30.0)
    assert result.status == "error" and result.message.startswith("verify itself failed: RuntimeError")


def test_the_local_transport_delivers_fresh_contiguous_buffers():
    sent = {"a": torch.arange(6.0).reshape(2, 3), "b": torch.ones(0), "meta": "kept"}
    received = local_transfer(sent, torch.device("cpu"))
    assert received["meta"] == "kept"
    for key in ("a", "b"):
        assert received[key] is not sent[key]
        assert torch.equal(received[key], sent[key])
    assert received["a"].data_ptr() != sent["a"].data_ptr()


def test_the_local_transport_refuses_what_torch_distributed_refuses():
    # A column stays a strided view through SGLang's reshape (test_send_rule.py has the whole rule).
    with pytest.raises(Outcome) as caught:
        local_transfer({PP_OUTPUT_KEY_PREFIX + "t": torch.ones(2, 3)[:, 0]}, torch.device("cpu"))
    assert caught.value.status == "fail" and "torch.distributed.send refuses it" in caught.value.message
