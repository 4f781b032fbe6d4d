"""``--helpers``: SGLang's own helpers judge when SGLang is there, the bundled core otherwise, and every row
and the table's footer say which judged.

The SGLang here is 0.5.23's real helper module, from the wheel (``sglang_site``), so where the two
implementations disagree the test shows SGLang's own answer, not our idea of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SGLANG_VERSION, plugin_module, sglang_modules_set_aside

torch = pytest.importorskip("torch")

from ppaux_lint.runtime import core  # noqa: E402
from ppaux_lint.runtime.terms.helpers import (  # noqa: E402
    SGLANG_MODULE,
    STAND_INS,
    STAND_INS_LABEL,
    HelpersUnavailable,
    load_helpers,
)

LABEL = f"sglang {SGLANG_VERSION}"
NOT_PP = "RuntimeError: auxiliary output does not support pipeline-parallel transport"
OBSERVER_NOT_PP = "RuntimeError: sampling observer does not support pipeline-parallel transport"
CALLED_NONE = "TypeError: 'NoneType' object is not callable"


@pytest.fixture
def importable(monkeypatch):
    """``importable(directory)``: make the ``sglang`` under ``directory`` the one this process imports."""
    with sglang_modules_set_aside():
        yield lambda directory: monkeypatch.syspath_prepend(str(directory))


@pytest.fixture
def no_sglang(monkeypatch):
    with sglang_modules_set_aside():
        monkeypatch.setitem(sys.modules, "sglang", None)  # any import of sglang.* now fails
        yield


def broken_site(root: Path, body: str) -> Path:
    module = root / "sglang" / "srt" / "sampling" / "sampling_observer_pp.py"
    module.parent.mkdir(parents=True)
    module.write_text(body, encoding="utf-8")
    return root


def test_bundled_means_the_core(importable, tmp_path):
    importable(broken_site(tmp_path, ""))  # an SGLang is installed, so the plugin imports its own modules
    helpers = load_helpers("bundled")
    assert (helpers.source, helpers.label, helpers.module) == ("bundled", "bundled", core)


def test_without_sglang_auto_and_bundled_judge_among_stand_ins_and_sglang_is_refused(no_sglang):
    for choice in ("auto", "bundled"):
        helpers = load_helpers(choice)
        assert (helpers.source, helpers.label, helpers.module) == (STAND_INS, STAND_INS_LABEL, core)
    with pytest.raises(HelpersUnavailable, match=f"^cannot import {SGLANG_MODULE}: sglang is not installed$"):
        load_helpers("sglang")


def test_any_failure_while_importing_sglang_falls_back(importable, tmp_path):
    importable(broken_site(tmp_path, 'raise RuntimeError("CUDA driver\\nis too old")\n'))
    assert load_helpers("auto").source == "bundled"
    with pytest.raises(HelpersUnavailable) as caught:
        load_helpers("sglang")
    assert str(caught.value).endswith("RuntimeError: CUDA driver is too old")  # one line for the CLI


def test_a_module_without_sglangs_names_is_not_taken_for_sglang(importable, tmp_path):
    """A hand-made stand-in at SGLang's path imports, but without ``_OUTPUT_PREFIX`` it must not judge."""
    names = ("PipelineParallelAuxiliaryOutput", "PipelineParallelSamplingObserver",
             "add_auxiliary_output_to_pp_tensors", "pop_auxiliary_output_from_pp_tensors")
    importable(broken_site(tmp_path, " = ".join(names) + " = None\n"))
    assert load_helpers("auto").source == "bundled"
    with pytest.raises(HelpersUnavailable, match="has no _OUTPUT_PREFIX, so it is not SGLang's helper module"):
        load_helpers("sglang")


def test_auto_takes_sglangs_module_and_names_its_version(importable, sglang_site):
    importable(sglang_site)
    helpers = load_helpers("auto")
    assert (helpers.source, helpers.label) == ("sglang", LABEL)
    assert Path(helpers.module.__file__).is_relative_to(sglang_site)
    assert helpers.prefix == core._OUTPUT_PREFIX


def test_the_imported_packages_own_version_wins_over_the_installed_metadata(importable, sglang_site, tmp_path):
    site = shutil.copytree(sglang_site, tmp_path / "site")
    (site / "sglang" / "__init__.py").write_text('__version__ = "0.6.0.dev1"\n', encoding="utf-8")
    importable(site)
    assert load_helpers("sglang").label == "sglang 0.6.0.dev1"


def test_where_the_implementations_differ(sglang_pp):
    """An explicit subclass (or a registered class) passes SGLang's isinstance whatever its members are."""

    class NoneOutput(sglang_pp.PipelineParallelAuxiliaryOutput):
        to_pp_tensors = None

    class Registered:
        pass

    sglang_pp.PipelineParallelAuxiliaryOutput.register(Registered)
    for output, theirs in ((NoneOutput(), TypeError), (Registered(), AttributeError)):
        with pytest.raises(theirs):
            sglang_pp.add_auxiliary_output_to_pp_tensors({}, output)
        with pytest.raises(RuntimeError, match="does not support pipeline-parallel transport"):
            core.add_auxiliary_output_to_pp_tensors({}, output)


# -- end to end: the CLI, its workers and the dist peer all load the chosen helpers --------------------------

PROTO = plugin_module(
    """
    from dataclasses import dataclass

    import torch
    from sglang.srt.sampling.sampling_observer_pp import (
        PipelineParallelAuxiliaryOutput,
        PipelineParallelSamplingObserver,
    )
    """,
    """
    @dataclass
    class NoneOutput(PipelineParallelAuxiliaryOutput):
        values: torch.Tensor
        to_pp_tensors = None

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)


    @dataclass
    class RegisteredOutput:
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)


    PipelineParallelAuxiliaryOutput.register(RegisteredOutput)


    @dataclass
    class GoodOutput(PipelineParallelAuxiliaryOutput):
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            return {"values": self.values}


    class GoodObserver(PipelineParallelSamplingObserver):
        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids) -> GoodOutput:
            return GoodOutput(state)

        def from_pp_tensors(self, tensors) -> GoodOutput:
            return GoodOutput(tensors["values"])
    """,
)

RELAY = plugin_module(
    """
    from dataclasses import dataclass

    import torch
    from sglang.srt.sampling.sampling_observer_pp import (
        PipelineParallelAuxiliaryOutput,
        PipelineParallelSamplingObserver,
    )
    """,
    """
    @dataclass
    class RelayOutput(PipelineParallelAuxiliaryOutput):
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            return {"values": self.values}


    class NoneObserver(PipelineParallelSamplingObserver):
        from_pp_tensors = None

        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids) -> RelayOutput:
            return RelayOutput(state)
    """,
)

CONFIG = """
[project]
name = "proto"
version = "0"

[tool.ppaux-lint.verify]
helpers = "bundled"

[tool.ppaux-lint.verify.pairs]
"proto.relay.RelayOutput" = "proto.relay.NoneObserver"
"""

P = "proto."
# symbol -> (fragment with the bundled core, fragment with SGLang's helpers)
VERDICTS = {
    P + "m.NoneOutput": ("add_auxiliary_output_to_pp_tensors: " + NOT_PP,
                         "add_auxiliary_output_to_pp_tensors: " + CALLED_NONE),
    P + "m.RegisteredOutput": ("add_auxiliary_output_to_pp_tensors: " + NOT_PP,
                               "add_auxiliary_output_to_pp_tensors: AttributeError: 'RegisteredOutput' object has no "
                               "attribute 'to_pp_tensors'"),
    P + "relay.RelayOutput": ("pop_auxiliary_output_from_pp_tensors: " + OBSERVER_NOT_PP,
                              "pop_auxiliary_output_from_pp_tensors: " + CALLED_NONE),
    P + "relay.NoneObserver": ("pop_auxiliary_output_from_pp_tensors: " + OBSERVER_NOT_PP,
                               "pop_auxiliary_output_from_pp_tensors: " + CALLED_NONE),
}
PASSES = {P + "m.GoodOutput", P + "m.GoodObserver"}


@pytest.fixture(scope="module")
def proto(module_project, sglang_site):
    """``proto(*args)``: ppaux-lint verify in a fresh process that imports SGLang from ``sglang_site``."""
    module_project.write("pyproject.toml", CONFIG)
    module_project.package("proto", {"m": PROTO, "relay": RELAY})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(sglang_site), os.environ.get("PYTHONPATH"))))}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ppaux_lint", "verify", *args, "--device", "cpu"],
                              capture_output=True, text=True, env=env, timeout=300, cwd=module_project.root)

    return run


@pytest.fixture(scope="module")
def bundled_rows(proto):
    done = proto(".", "--output-format", "json")  # the config asks for the bundled core
    assert done.returncode == 1, done.stderr
    return {row["symbol"]: row for row in json.loads(done.stdout)}


@pytest.fixture(scope="module")
def sglang_rows(proto):
    done = proto(".", "--output-format", "json", "--helpers", "sglang")  # the flag beats the config
    assert done.returncode == 1, done.stderr
    return {row["symbol"]: row for row in json.loads(done.stdout)}


@pytest.mark.parametrize("symbol", sorted(VERDICTS))
def test_each_implementation_gives_its_own_verdict(bundled_rows, sglang_rows, symbol):
    ours, theirs = VERDICTS[symbol]
    for rows, fragment in ((bundled_rows, ours), (sglang_rows, theirs)):
        assert rows[symbol]["status"] == "fail"
        assert fragment in rows[symbol]["message"], rows[symbol]["message"]


def test_every_row_names_the_helpers_that_judged_it(bundled_rows, sglang_rows):
    assert set(bundled_rows) == set(sglang_rows) == set(VERDICTS) | PASSES
    assert {row["helpers"] for row in bundled_rows.values()} == {"bundled"}
    assert {row["helpers"] for row in sglang_rows.values()} == {LABEL}
    assert all(sglang_rows[s]["status"] == bundled_rows[s]["status"] == "pass" for s in PASSES)


def test_auto_picks_sglang_and_the_footer_says_so(proto):
    done = proto(".", "--helpers", "auto")
    assert done.returncode == 1, done.stderr
    assert done.stdout.rstrip().splitlines()[-1] == (
        f"6 classes verified: 2 pass, 4 fail (3 failures: a pair's two rows share one) (helpers: {LABEL})")


def test_the_dist_peer_rebuilds_with_the_same_helpers(proto):
    """``pop`` runs in the receiving rank there: only its own SGLang helpers can raise the TypeError."""
    done = proto("proto/relay.py", "--output-format", "json", "--helpers", "sglang", "--transport", "dist")
    assert done.returncode == 1, done.stderr
    rows = {row["symbol"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {P + "relay.RelayOutput", P + "relay.NoneObserver"}
    for symbol, row in rows.items():
        assert (row["status"], row["transport"], row["helpers"]) == ("fail", "dist", LABEL)
        assert VERDICTS[symbol][1] in row["message"], row["message"]


# -- usage errors ----------------------------------------------------------------------------------------


@pytest.fixture
def plain(project):
    project.package("plain", {"m": plugin_module("import torch", "class Out:\n    def copy_to_host(self, c):\n"
                                                                 "        return None\n")})
    return project


def test_sglang_helpers_that_cannot_be_imported_are_a_usage_error(plain, run_cli, no_sglang):
    result = run_cli(str(plain.root), "--device", "cpu", "--helpers", "sglang")
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line == f"ppaux-lint: error: --helpers sglang: cannot import {SGLANG_MODULE}: sglang is not installed"


def test_sglang_helpers_asked_for_in_the_config_name_the_config(plain, run_cli, no_sglang):
    plain.write("pyproject.toml", '[tool.ppaux-lint.verify]\nhelpers = "sglang"\n')
    result = run_cli(str(plain.root), "--device", "cpu")
    assert result.exit_code == 2
    assert result.stderr.startswith("ppaux-lint: error: 'tool.ppaux-lint.verify.helpers' = \"sglang\" in ")
    assert str(plain.root / "pyproject.toml") in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_unknown_helpers_setting_is_a_config_error(plain, run_cli):
    plain.write("pyproject.toml", '[tool.ppaux-lint.verify]\nhelpers = "newest"\n')
    result = run_cli(str(plain.root), "--device", "cpu")
    assert result.exit_code == 2
    assert "'tool.ppaux-lint.verify.helpers' must be one of auto, bundled, sglang, not 'newest'" in result.stderr


def test_an_unknown_helpers_flag_is_a_usage_error(plain, run_cli):
    result = run_cli(str(plain.root), "--device", "cpu", "--helpers", "newest")
    assert result.exit_code == 2
    assert "'newest' is not one of 'auto', 'bundled', 'sglang'" in result.output
