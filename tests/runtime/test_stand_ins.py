"""Where SGLang is not installed, verify imports a plugin through ppaux-lint's stand-ins for SGLang's protocol
modules, judges it with the bundled helpers, and says so on every row and in the footer; an import of any
other part of SGLang is a skip that names the module, not a traceback.

The stand-ins serve only processes that load the ``stand-ins`` source (verify's workers and receiving rank);
the driver, here the test process itself, only decides.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import json

import pytest
from sglang_top_pair import CLASSES

from .conftest import plugin_module, sglang_modules_set_aside

pytest.importorskip("torch")

from ppaux_lint.runtime import core, stand_ins
from ppaux_lint.runtime.run.report import STAND_INS_NOTE
from ppaux_lint.runtime.terms.helpers import (
    STAND_INS,
    STAND_INS_LABEL,
    HelpersUnavailable,
    load_helpers,
)

pytestmark = pytest.mark.skipif(stand_ins.sglang_installed(), reason="sglang is installed here")

BEYOND = "which ppaux-lint's stand-ins do not provide (sglang is not installed): install sglang to verify it"


@pytest.fixture
def serving():
    """The stand-ins serving this process for one test, and gone after it."""
    with sglang_modules_set_aside():
        stand_ins.install()
        try:
            yield
        finally:
            stand_ins.uninstall()


def test_the_protocol_modules_a_plugin_imports_are_there(serving):
    auxiliary = importlib.import_module("sglang.srt.managers.auxiliary_output")
    observer = importlib.import_module("sglang.srt.sampling.sampling_observer")
    pp = importlib.import_module("sglang.srt.sampling.sampling_observer_pp")
    forward = importlib.import_module("sglang.srt.model_executor.forward_observer")

    assert stand_ins.serving()
    tokens = auxiliary.CommittedTokens(output_index=0, token_ids=(5, 7))
    assert [f.name for f in dataclasses.fields(tokens)] == ["output_index", "token_ids"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        tokens.output_index = 1
    assert observer.DeviceAuxiliaryOutput is auxiliary.DeviceAuxiliaryOutput  # the older location still works
    protocols = {auxiliary.DeviceAuxiliaryOutput: {"copy_to_host"}, auxiliary.HostAuxiliaryOutput: {"consume"},
                 observer.SamplingObserver: {"is_active", "before_grammar", "after_sample"},
                 forward.ForwardObserver: {"after_forward"}}
    for protocol, methods in protocols.items():
        assert protocol._is_protocol and methods <= set(vars(protocol)), protocol
    assert inspect.signature(forward.ForwardObserver.after_forward).parameters["can_run_graph"].kind == (
        inspect.Parameter.KEYWORD_ONLY)
    for name in ("PipelineParallelAuxiliaryOutput", "PipelineParallelSamplingObserver", "_OUTPUT_PREFIX",
                 "add_auxiliary_output_to_pp_tensors", "pop_auxiliary_output_from_pp_tensors"):
        assert getattr(pp, name) is getattr(core, name), name  # the bundled core's own objects, not copies


def test_any_other_part_of_sglang_is_named_not_faked(serving):
    with pytest.raises(ModuleNotFoundError) as module:
        importlib.import_module("sglang.srt.utils")
    assert stand_ins.beyond(module.value) == f"imports sglang.srt.utils, {BEYOND}"
    with pytest.raises(ImportError) as name:
        exec("from sglang.srt.managers.auxiliary_output import ScheduleBatch", {})  # SGLang: TYPE_CHECKING only
    assert stand_ins.beyond(name.value) == (
        f"imports ScheduleBatch from sglang.srt.managers.auxiliary_output, {BEYOND}")
    with pytest.raises(ModuleNotFoundError) as elsewhere:
        importlib.import_module("no_such_package_anywhere")
    assert stand_ins.beyond(elsewhere.value) is None


def test_a_real_sglang_wins_over_the_stand_ins(serving, tmp_path, monkeypatch):
    (tmp_path / "sglang").mkdir()
    (tmp_path / "sglang" / "__init__.py").write_text("REAL = True\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    assert stand_ins.sglang_installed()
    assert importlib.import_module("sglang").REAL and not stand_ins.serving()
    with pytest.raises(ModuleNotFoundError) as missing:
        importlib.import_module("sglang.srt")
    assert stand_ins.beyond(missing.value) is None  # the real one's own failure, worded as it is


def test_the_driver_decides_and_only_a_worker_serves():
    with sglang_modules_set_aside():
        try:
            for choice in ("auto", "bundled"):
                helpers = load_helpers(choice)
                assert (helpers.source, helpers.label, helpers.module) == (STAND_INS, STAND_INS_LABEL, core)
            assert importlib.util.find_spec("sglang") is None  # deciding installed nothing
            with pytest.raises(HelpersUnavailable, match=r"sglang is not installed$"):
                load_helpers("sglang")

            assert load_helpers(STAND_INS).label == STAND_INS_LABEL  # what a worker does with the source
            assert importlib.util.find_spec("sglang") is not None and not stand_ins.sglang_installed()
            with pytest.raises(HelpersUnavailable):
                load_helpers("sglang")  # the stand-ins are not SGLang's helpers
        finally:
            stand_ins.uninstall()


# -- end to end: the CLI, its workers and the dist receiving rank ---------------------------------------------

NEEDS = plugin_module(
    """
    from dataclasses import dataclass

    import torch
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
    from sglang.srt.model_executor.forward_observer import ForwardObserver
    from sglang.srt.sampling.sampling_observer import SamplingObserver
    from sglang.srt.sampling.sampling_observer_pp import PipelineParallelAuxiliaryOutput
    """,
    CLASSES,
    """
    @dataclass
    class NoneOutput(PipelineParallelAuxiliaryOutput):
        values: torch.Tensor
        to_pp_tensors = None

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)


    class Counter(ForwardObserver):
        def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
            return None
    """,
)
UTILS = plugin_module(
    """
    from dataclasses import dataclass

    import torch
    from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
    from sglang.srt.utils import get_bool_env_var
    """,
    """
    @dataclass
    class UtilsOutput(DeviceAuxiliaryOutput):
        ids: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return UtilsOutput(copy_tensor(self.ids))

        def to_pp_tensors(self):
            return {"ids": self.ids}
    """,
)
VERDICTS = {
    "needs.m.TopOutput": ("pass", "survived the round trip"),
    "needs.m.TopObserver": ("pass", "rebuilds needs.m.TopOutput"),
    # It subclasses SGLang's PP Protocol, which the stand-in serves as the bundled core's own, so the core gives
    # SGLang's answer: the Protocol's isinstance says yes, and calling None fails.
    "needs.m.NoneOutput": ("fail", "add_auxiliary_output_to_pp_tensors: TypeError: 'NoneType' object is not callable"),
    "needs.utils.UtilsOutput": ("skip", f"needs.utils.UtilsOutput imports sglang.srt.utils, {BEYOND}"),
}


@pytest.fixture(scope="module")
def needs(module_project):
    module_project.package("needs", {"m": NEEDS, "utils": UTILS})
    return module_project


@pytest.fixture(scope="module")
def rows(needs, run_cli):
    result = run_cli(str(needs.root), "--device", "cpu", "--output-format", "json")
    assert result.exit_code == 1, result.output
    return {row["symbol"]: row for row in json.loads(result.stdout)}


def test_every_row_is_judged_with_the_stand_ins_and_says_so(rows):
    assert set(rows) == set(VERDICTS)
    for symbol, (status, message) in VERDICTS.items():
        assert (rows[symbol]["status"], rows[symbol]["helpers"]) == (status, STAND_INS_LABEL), rows[symbol]
        assert message in rows[symbol]["message"], rows[symbol]["message"]
    assert importlib.util.find_spec("sglang") is None  # the driver (this process) served nothing


def test_the_footer_says_what_judged(needs, run_cli):
    result = run_cli(str(needs.root), "--device", "cpu")
    assert result.exit_code == 1
    assert result.stdout.rstrip().splitlines()[-2:] == [
        f"4 classes verified: 2 pass, 1 fail, 1 skip (helpers: {STAND_INS_LABEL})", STAND_INS_NOTE]


def test_the_receiving_rank_serves_them_too(needs, run_cli):
    """Under ``dist`` the observer is built and ``pop`` runs in the receiving rank, a process of its own."""
    result = run_cli(str(needs.root / "needs" / "m.py"), "--device", "cpu", "--transport", "dist",
                     "--output-format", "json")
    found = {row["symbol"]: row for row in json.loads(result.stdout)}
    assert (found["needs.m.TopObserver"]["status"], found["needs.m.TopObserver"]["transport"]) == ("pass", "dist")


def test_a_project_that_vendors_sglang_is_not_said_to_use_the_stand_ins(project, run_cli):
    """Its own ``sglang`` is on the workers' path, so the finder (last on ``sys.meta_path``) never serves; the
    rows must not claim it did."""
    project.write("sglang/__init__.py", "")
    project.write("sglang/srt/__init__.py", "")
    project.write("sglang/srt/managers/__init__.py", "")
    project.write("sglang/srt/managers/auxiliary_output.py",
                  "from typing import Protocol\n\n\nclass DeviceAuxiliaryOutput(Protocol):\n"
                  "    def copy_to_host(self, copy_tensor): ...\n")
    project.package("vend", {"m": UTILS.replace("from sglang.srt.utils import get_bool_env_var\n", "")})
    result = run_cli(str(project.root / "vend"), "--device", "cpu", "--output-format", "json")
    row = {r["symbol"]: r for r in json.loads(result.stdout)}["vend.m.UtilsOutput"]
    assert row["helpers"] == "bundled", row
