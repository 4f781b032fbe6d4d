"""An SGLang that is installed but does not import (``pip install sglang --no-deps``) is said so, once, and
never hides the real error.

SGLang 0.5.23's ``sglang/__init__.py`` imports its front end and utilities: installed without its
dependencies, ``import sglang`` stops at ``sglang/srt/utils/common.py``'s ``import orjson``. ``SITES`` cut
that install down to what matters here: the same package layout (``sglang.srt`` a namespace package) and the
same failing import, either in the package itself (``no-deps``, as 0.5.23 has it) or only in the helper
module (``helpers-only``, where the plugin's imports of the Protocols still work).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ppaux_lint.runtime import stand_ins
from ppaux_lint.runtime.terms.helpers import SGLANG_MODULE, HelpersUnavailable, load_helpers

from .conftest import plugin_module, sglang_modules_set_aside

pytest.importorskip("torch")

pytest_plugins = ["pytester"]

if importlib.util.find_spec("orjson") is not None:
    pytest.skip("orjson is installed, so SGLang's import of it cannot fail here", allow_module_level=True)

WARNING = (
    "SGLang 0.5.23 is installed but its helpers cannot be used: cannot import "
    "sglang.srt.sampling.sampling_observer_pp: ModuleNotFoundError: No module named 'orjson' (raised in "
    "sglang.srt.utils.common; a package SGLang imports is not installed: was sglang installed with --no-deps?); "
    "verify judges with the bundled core instead (docs/verify.md says what verify needs of an SGLang install)"
)
MANUAL = Path(__file__).resolve().parents[2] / "docs" / "verify.md"
NO_ORJSON = r"^No module named 'orjson'$"
PACKAGE_INIT = ("from sglang.srt.environ import redirect_third_party_caches\n"
                "from sglang.srt.utils.hf_transformers_patches import apply_all\n")


def partial_site(root: Path, shape: str) -> Path:
    """An ``sglang`` 0.5.23 under ``root`` whose import of ``orjson`` fails: in ``sglang/__init__.py``'s chain
    (``no-deps``) or in the helper module (``helpers-only``); its protocol modules are ppaux-lint's stand-ins'
    files, which count as an installed SGLang anywhere but under ppaux_lint/."""
    package = shutil.copytree(Path(stand_ins.__file__).parent / "sglang", root / "sglang",
                              ignore=shutil.ignore_patterns("__pycache__"))
    (package / "srt" / "__init__.py").unlink()  # a namespace package, as in the wheel
    files = {"srt/environ.py": "def redirect_third_party_caches():\n    pass\n",
             "srt/utils/__init__.py": "from sglang.srt.utils.common import *\n",
             "srt/utils/common.py": "import orjson\n",
             "srt/utils/hf_transformers_patches.py": "from sglang.srt.utils.common import *\n\n\n"
                                                     "def apply_all():\n    pass\n"}
    if shape == "no-deps":
        files["__init__.py"] = PACKAGE_INIT
    else:
        files["__init__.py"] = ""
        files["srt/sampling/sampling_observer_pp.py"] = "from sglang.srt.utils import common\n"
    for relative, text in files.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text, encoding="utf-8")
    metadata = root / "sglang-0.5.23.dist-info" / "METADATA"
    metadata.parent.mkdir()
    metadata.write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n", encoding="utf-8")
    return root


@pytest.fixture
def importable(monkeypatch):
    with sglang_modules_set_aside():
        yield lambda directory: monkeypatch.syspath_prepend(str(directory))


def test_auto_says_what_failed_and_leaves_no_half_imported_sglang(importable, tmp_path):
    importable(partial_site(tmp_path, "no-deps"))
    helpers = load_helpers("auto")
    assert (helpers.source, helpers.label, helpers.warning) == ("bundled", "bundled", WARNING)
    assert [name for name in sys.modules if name.split(".")[0] == "sglang"] == []
    for _ in range(2):  # the plugin's own import, then the one it falls back to: the real error both times
        with pytest.raises(ModuleNotFoundError, match=NO_ORJSON):
            importlib.import_module("sglang.srt.managers.auxiliary_output")


def test_a_plugins_second_try_meets_the_real_error_too(importable, tmp_path):
    """Without ppaux-lint's own attempt: the plugin's failed import leaves ``sglang.srt`` behind by itself."""
    importable(partial_site(tmp_path, "no-deps"))
    load_helpers("bundled")
    for name in ("sglang.srt.managers.auxiliary_output", "sglang.srt.sampling.sampling_observer"):
        with pytest.raises(ModuleNotFoundError, match=NO_ORJSON):
            importlib.import_module(name)


def test_sglang_helpers_that_do_not_import_are_one_line_of_usage_error(importable, tmp_path, project, run_cli):
    importable(partial_site(tmp_path / "site", "no-deps"))
    with pytest.raises(HelpersUnavailable) as caught:
        load_helpers("sglang")
    assert str(caught.value) == WARNING.split("cannot be used: ")[1].split("; verify judges")[0]
    project.package("plain", {"m": plugin_module("class Out:\n    def copy_to_host(self, c):\n"
                                                 "        return None\n")})
    result = run_cli(str(project.root), "--device", "cpu", "--helpers", "sglang")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"ppaux-lint: error: --helpers sglang: {caught.value}"]
    assert SGLANG_MODULE in result.stderr


PLUGIN = plugin_module(
    """
    import torch

    try:
        from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
    except ImportError:  # SGLang before 0.5.23 kept the Protocol beside the observer
        from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput
    """,
    """
    class Out(DeviceAuxiliaryOutput):
        @classmethod
        def ppaux_example(cls, device):
            return cls()

        def copy_to_host(self, copy_tensor):
            return None

        def to_pp_tensors(self):
            return {"x": torch.ones(3)}


    class Obs:
        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids) -> Out:
            return Out()

        def from_pp_tensors(self, tensors) -> Out:
            return Out()
    """,
)


@pytest.mark.parametrize(("shape", "status"), [("no-deps", "error"), ("helpers-only", "pass")])
def test_verify_falls_back_to_what_bundled_gives_and_warns_once(project, tmp_path, shape, status):
    site = partial_site(tmp_path / "site", shape)
    project.package("plug", {"m": PLUGIN})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}

    def verify(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ppaux_lint", "verify", str(project.root), "--device", "cpu",
                               "--output-format", "json", *args], capture_output=True, text=True, env=env,
                              timeout=300)

    auto, bundled = verify(), verify("--helpers", "bundled")
    assert auto.stderr.splitlines() == [f"ppaux-lint: warning: {WARNING}"]
    assert f"\nppaux-lint: warning: {WARNING}\n" in MANUAL.read_text(encoding="utf-8")  # quoted as it is
    assert bundled.stderr == ""
    rows = json.loads(auto.stdout)
    assert _without_times(rows) == _without_times(json.loads(bundled.stdout))
    assert [(row["symbol"], row["status"], row["helpers"]) for row in rows] == [
        ("plug.m.Obs", status, "bundled"), ("plug.m.Out", status, "bundled")]
    if status == "error":
        for row in rows:
            assert row["message"].startswith(f"import {row['symbol']}: ModuleNotFoundError: No module named 'orjson'")


def _without_times(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items() if key != "seconds"} for row in rows]


def test_round_trip_warns_as_verify_does(importable, tmp_path):
    from ppaux_lint.runtime.caller.direct import round_trip

    site = partial_site(tmp_path, "helpers-only")
    importable(site)
    namespace: dict = {}
    exec(compile(PLUGIN, str(tmp_path / "plugin.py"), "exec"), namespace)
    with pytest.warns(RuntimeWarning) as caught:
        rebuilt = round_trip(namespace["Out"](), namespace["Obs"]())
    assert [str(w.message) for w in caught] == [WARNING]
    assert isinstance(rebuilt, namespace["Out"])


def test_pytest_says_it_once_in_its_header(pytester: pytest.Pytester, monkeypatch, tmp_path):
    site = partial_site(tmp_path / "site", "helpers-only")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH")))))
    pytester.makepyprojecttoml('[project]\nname = "plug"\nversion = "0"\n')
    pytester.makepyfile(**{"plug/__init__": "", "plug/m": PLUGIN})
    result = pytester.runpytest_subprocess("--ppaux-verify", "plug", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert result.stdout.lines.count(f"ppaux-lint: warning: {WARNING}") == 1
