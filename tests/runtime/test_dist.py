"""``verify --transport dist``: two torch.distributed ranks (gloo on CPU), hangs and crashes in the receiver."""

from __future__ import annotations

import json

import pytest

from .conftest import observer_class, plugin_module

torch = pytest.importorskip("torch")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

PAIRS = plugin_module(
    """
    import os
    import time

    import torch


    class Host:
        def __init__(self, scores, ids):
            self.scores = scores
            self.ids = ids


    class GoodOutput:
        def __init__(self, scores, ids):
            self.scores = scores
            self.ids = ids

        @classmethod
        def ppaux_example(cls, device):
            return cls(torch.rand(3, 5, device=device), torch.arange(3, device=device))

        def copy_to_host(self, copy_tensor):
            return Host(copy_tensor(self.scores), copy_tensor(self.ids))

        def to_pp_tensors(self):
            return {"scores": self.scores, "ids": self.ids, "empty": self.ids[:0]}
    """,
    observer_class("GoodObserver", "GoodOutput", "GoodOutput(state, token_ids)",
                   'return GoodOutput(tensors["scores"], tensors["ids"])'),
    """
    class KeyedOutput(GoodOutput):
        pass


    class KeyedObserver(GoodObserver):
        def from_pp_tensors(self, tensors) -> KeyedOutput:
            return KeyedOutput(tensors["score"], tensors["ids"])


    class LostOutput(GoodOutput):
        pass
    """,
    observer_class("NoRebuildObserver", "LostOutput", "LostOutput(state, token_ids)", None),
    """
    class HungOutput(GoodOutput):
        pass


    class HangingObserver(GoodObserver):
        def from_pp_tensors(self, tensors) -> HungOutput:
            time.sleep(600)


    class CrashedOutput(GoodOutput):
        pass


    class CrashingObserver(GoodObserver):
        def from_pp_tensors(self, tensors) -> CrashedOutput:
            os._exit(5)
    """,
)

EXPECTED = {
    "GoodOutput": ("pass", "3 tensors and the host copy survived the round trip through plug.m.GoodObserver"),
    "GoodObserver": ("pass", "rebuilds plug.m.GoodOutput"),
    "KeyedOutput": ("fail", "pop_auxiliary_output_from_pp_tensors: KeyError: 'score'"),
    "LostOutput": ("fail", "sampling observer does not support pipeline-parallel transport"),
    "NoRebuildObserver": ("fail", "sampling observer does not support pipeline-parallel transport"),
    "HungOutput": ("fail", "the receiving rank timed out during pop_auxiliary_output_from_pp_tensors"),
    "CrashedOutput": ("fail", "the receiving rank exited with code 5 during pop_auxiliary_output_from_pp_tensors"),
}


@pytest.fixture(scope="module")
def dist_rows(module_project, run_cli, process_marker):
    module_project.package("plug", {"m": PAIRS})
    result = run_cli(str(module_project.root), "--device", "cpu", "--transport", "dist", "--timeout", "8",
                     "--output-format", "json")
    return result, {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dist_row(dist_rows, name):
    _, rows = dist_rows
    status, fragment = EXPECTED[name]
    assert rows[name]["status"] == status, rows[name]["message"]
    assert fragment in rows[name]["message"]
    assert rows[name]["transport"] == "dist"


def test_empty_tensors_cross_as_sglang_sends_them(dist_rows):
    _, rows = dist_rows
    assert {"name": "empty", "dtype": "int64", "shape": [0]} in rows["GoodOutput"]["tensors"]


def test_the_run_goes_on_and_leaves_no_process(dist_rows, process_marker, leftover_processes):
    result, rows = dist_rows
    assert result.exit_code == 1
    assert len(rows) == 10
    assert leftover_processes(process_marker) == []
