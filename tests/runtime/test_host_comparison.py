"""The host copies of the original and the rebuilt output, compared whatever holds the data and whatever the
plugin does to torch.

Each output here keeps a ``scale`` on the Python side that ``to_pp_tensors`` never sends, as plugins do by
mistake: the rebuilt output's ``to_pp_tensors`` still matches, and only its host copy shows what was lost.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import observer_class, plugin_module

torch = pytest.importorskip("torch")
numpy = pytest.importorskip("numpy")

from ppaux_lint.runtime import RoundTripFailed, round_trip  # noqa: E402
from ppaux_lint.runtime.driving.drive import default_drives  # noqa: E402

from .test_compare import HOSTS  # noqa: E402


@dataclass
class ScaledOutput:
    values: torch.Tensor
    scale: float = 1.0
    kind: str = "deque"

    def to_pp_tensors(self):
        return {"values": self.values}

    def copy_to_host(self, copy_tensor):
        return HOSTS[self.kind](copy_tensor(self.values) * self.scale)


class ScaledObserver:
    def __init__(self, kind):
        self.kind = kind

    def from_pp_tensors(self, tensors):
        return ScaledOutput(tensors["values"], kind=self.kind)  # the scale never crossed


KINDS = ("deque", "frozenset", "callable host object", "lambda closure", "partial argument", "bound method",
         "numpy array")


@pytest.mark.parametrize("kind", KINDS)
def test_a_round_trip_that_lost_data_kept_in_any_container_fails(kind):
    with pytest.raises(RoundTripFailed, match=r"^copy_to_host differs: host\S*: values differ"):
        round_trip(ScaledOutput(torch.tensor([1.0, 2.0]), scale=3.0, kind=kind), ScaledObserver(kind))


@pytest.mark.parametrize("kind", KINDS)
def test_a_round_trip_that_kept_the_data_in_any_container_passes(kind):
    rebuilt = round_trip(ScaledOutput(torch.tensor([1.0, 2.0]), kind=kind), ScaledObserver(kind))
    assert torch.equal(rebuilt.values, torch.tensor([1.0, 2.0]))


# -- a plugin that patches torch when it is imported -------------------------------------------------------

PATCHING = plugin_module(
    "from dataclasses import dataclass\n\nimport numpy\nimport torch",
    '''
    # What a plugin may do to torch for its own reasons, at import, before verify compares anything.
    _from_numpy = torch.from_numpy
    torch.equal = lambda a, b: True
    torch.Tensor.equal = lambda self, other: True
    torch.Tensor.__eq__ = lambda self, other: torch.ones(self.shape, dtype=torch.bool)
    torch.Tensor.isnan = lambda self: torch.ones(self.shape, dtype=torch.bool)
    torch.from_numpy = lambda array: _from_numpy(numpy.zeros_like(array))
    numpy.array_equal = lambda a, b, equal_nan=False: True
    ''',
    '''
    @dataclass
    class PatchingOutput:
        values: torch.Tensor
        scale: float = 1.0

        @classmethod
        def ppaux_example(cls, device):
            return cls(torch.tensor([1.0, 2.0], device=device), scale=3.0)

        def to_pp_tensors(self):
            return {"values": self.values}

        def copy_to_host(self, copy_tensor):
            scaled = copy_tensor(self.values) * self.scale
            return {"tensor": scaled, "array": scaled.numpy()}
    ''',
    observer_class("PatchingObserver", "PatchingOutput", "PatchingOutput(state)",
                   'return PatchingOutput(tensors["values"])  # the scale never crossed'),
)


@pytest.mark.parametrize("transport", ["local", "dist"])
def test_a_plugin_that_patches_torch_at_import_still_fails_a_lossy_round_trip(project, run_cli, transport):
    project.package("patching", {"m": PATCHING})
    result = run_cli(str(project.root), "--device", "cpu", "--transport", transport, "--output-format", "json")
    rows = {row["symbol"]: row for row in json.loads(result.stdout)}
    row = rows["patching.m.PatchingOutput"]
    assert row["status"] == "fail", row["message"]
    assert ("copy_to_host differs: host['tensor']: values differ first at [0]: 1.0 != 3.0; "
            "copy_to_host differs: host['array']: values differ first at [0]: 1.0 != 3.0") in row["message"]


def test_every_module_that_imports_the_project_s_code_takes_the_comparison_s_functions_first():
    """The project's code is imported only through ``loader.py``; each module that calls it must have brought in
    ``compare.py`` (which takes torch's and numpy's functions) by the time it can, in a process of its own."""
    package = Path(__file__).resolve().parents[2] / "ppaux_lint"
    importers = sorted(".".join(("ppaux_lint", *path.relative_to(package).with_suffix("").parts))
                       for path in (package / "runtime").rglob("*.py")
                       if "from ppaux_lint.runtime.driving.loader import" in path.read_text(encoding="utf-8"))
    assert importers
    for module in importers:
        probe = f"import sys, {module}; print('ppaux_lint.runtime.sending.compare' in sys.modules)"
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
        assert done.stdout.strip() == "True", module


# -- what the host sees is what consume writes ------------------------------------------------------------------

NARROWING = plugin_module(
    "import torch",
    '''
    class RowsHost:
        def __init__(self, values):
            self.values = values

        def consume(self, batch, commits):
            for row, req in enumerate(batch.reqs):
                req.customized_info = {"v": [self.values[row].tolist()]}
    ''',
    '''
    class SilentHost:
        def __init__(self, values):
            self.values = values

        def consume(self, batch, commits):
            pass
    ''',
    '''
    class IdsOutput:
        def __init__(self, ids):
            self.ids = ids

        def copy_to_host(self, copy_tensor):
            return RowsHost(copy_tensor(self.ids))

        def to_pp_tensors(self):
            return {"ids": self.ids.to(torch.int32)}


    class IdsObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits.shape[0]

        def after_sample(self, state, token_ids):
            return IdsOutput(token_ids.to(torch.int64))

        def from_pp_tensors(self, tensors):
            return IdsOutput(tensors["ids"])
    ''',
    '''
    class HalfOutput:
        def __init__(self, probs):
            self.probs = probs

        def copy_to_host(self, copy_tensor):
            return RowsHost(copy_tensor(self.probs))

        def to_pp_tensors(self):
            return {"probs": self.probs.to(torch.float16)}


    class HalfObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return torch.softmax(logits.float(), dim=-1)

        def after_sample(self, state, token_ids):
            return HalfOutput(state.gather(-1, token_ids.long().unsqueeze(-1)).squeeze(-1))

        def from_pp_tensors(self, tensors):
            return HalfOutput(tensors["probs"])
    ''',
    '''
    class SilentOutput:
        def __init__(self, ids):
            self.ids = ids

        def copy_to_host(self, copy_tensor):
            return SilentHost(copy_tensor(self.ids))

        def to_pp_tensors(self):
            return {"ids": self.ids.to(torch.int32)}


    class SilentObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits.shape[0]

        def after_sample(self, state, token_ids):
            return SilentOutput(token_ids.to(torch.int64))

        def from_pp_tensors(self, tensors):
            return SilentOutput(tensors["ids"])
    ''',
)
SAME = ("copy_to_host differs (host.values: dtype int32 != int64), but consume(batch, commits) wrote the same for "
        "both, and consume is all that SGLang's first stage does with a host copy")


@pytest.mark.parametrize("transport", ["local", "dist"])
def test_a_host_copy_that_differs_is_judged_by_what_consume_writes(project, run_cli, transport):
    project.package("narrow", {"m": NARROWING})
    result = run_cli(str(project.root), "--device", "cpu", "--transport", transport, "--output-format", "json")
    rows = {row["symbol"]: row for row in json.loads(result.stdout)}

    ids = rows["narrow.m.IdsOutput"]  # int32 on the host where the original has int64: consume writes the same ints
    assert ids["status"] == "pass", ids["message"]
    assert f"driven at batch 1: {SAME}" in ids["message"]
    more = len(default_drives(torch.device("cpu"))) - 1  # every default drive after the first
    assert f"(the same at {more} more examples)" in ids["message"]
    assert rows["narrow.m.IdsObserver"]["status"] == "pass"

    half = rows["narrow.m.HalfOutput"]  # float16 on the host: consume writes other floats
    assert half["status"] == "fail"
    assert ("consume(batch, commits) wrote differently for the rebuilt output: batch.reqs[0].customized_info['v'][0]: "
            in half["message"]), half["message"]
    assert "(copy_to_host differs: host.values: dtype float16 != float32, values differ first at [0]: " in (
        half["message"])

    silent = rows["narrow.m.SilentOutput"]  # consume writes nothing: the batch says nothing, the host copy fails
    assert silent["status"] == "fail"
    assert "copy_to_host differs: host.values: dtype int32 != int64" in silent["message"]
