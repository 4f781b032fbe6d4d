"""The CUDA paths of verify: run only where a CUDA device is present (``-m cuda`` selects them)."""

from __future__ import annotations

import json

import pytest

from .conftest import observer_class, output_class, plugin_module

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

PAIRS = plugin_module(
    """
    from dataclasses import dataclass

    import torch


    @dataclass
    class Host:
        probs: torch.Tensor
        ids: torch.Tensor
    """,
    output_class("Out", ("probs: torch.Tensor", "ids: torch.Tensor"),
                 "Host(copy_tensor(self.probs), copy_tensor(self.ids))", '{"probs": self.probs, "ids": self.ids}'),
    observer_class("Obs", "Out", "Out(state, token_ids)", 'return Out(tensors["probs"], tensors["ids"])'),
    output_class("Strays", ("probs: torch.Tensor",), "copy_tensor(self.probs)", '{"probs": self.probs}'),
    observer_class("ToCpuObserver", "Strays", "Strays(state)", 'return Strays(tensors["probs"].cpu())'),
)


@pytest.fixture(scope="module")
def cuda_project(module_project):
    module_project.package("cudaplug", {"m": PAIRS})
    return module_project


def rows(result):
    return {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}


def test_devices_resolve():
    from ppaux_lint.runtime.terms.devices import resolve_device

    assert resolve_device("auto") == resolve_device("cuda") == "cuda:0"
    assert resolve_device(f"cuda:{torch.cuda.device_count() - 1}") == f"cuda:{torch.cuda.device_count() - 1}"


@pytest.mark.parametrize("transport", ["local", "dist"])
def test_round_trips_on_cuda(cuda_project, run_cli, transport):
    result = run_cli(str(cuda_project.root), "--device", "cuda", "--transport", transport, "--output-format", "json")
    by_name = rows(result)
    assert by_name["Out"]["status"] == "pass", by_name["Out"]["message"]
    assert by_name["Out"]["device"] == "cuda:0"
    assert by_name["Strays"]["status"] == "fail"
    assert "the rebuilt 'probs' is on cpu, not cuda:0" in by_name["Strays"]["message"]
