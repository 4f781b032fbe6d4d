"""The pieces of a launched run that need no launch: reading the launcher's environment, merging the ranks'
plans, choosing the backend, blaming the right half, and the reports' ranks and hosts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ppaux_lint.runtime.run.plan import VerifyUsageError
from ppaux_lint.runtime.terms.results import ERROR, FAIL, PASS, RECEIVING, SENDING, SKIP, VerifyResult
from ppaux_lint.runtime.terms.targets import ClassRef, VerifyTarget
from ppaux_lint.runtime.torchrun.launch import Launch, announce_exit, merge_targets

pytest.importorskip("torch")

from ppaux_lint.runtime.torchrun.stages import HalfResult, World, combine  # after the skip: it needs torch

ENV = {"WORLD_SIZE": "3", "RANK": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "node-a", "MASTER_PORT": "29500"}
WORLD = World(rank=0, size=3, hosts=("node-a", "node-b", "node-c"), store=("node-a", 29500), namespace="ns",
              backend="gloo")


def test_a_launch_is_read_from_the_launchers_environment():
    assert Launch.from_env(ENV) == Launch(rank=2, world_size=3, local_rank=0, master_addr="node-a", master_port=29500)


@pytest.mark.parametrize("missing", sorted(ENV))
def test_without_any_one_variable_there_is_no_launch(missing):
    assert Launch.from_env({k: v for k, v in ENV.items() if k != missing}) is None


def test_a_malformed_launch_is_a_usage_error():
    with pytest.raises(VerifyUsageError, match="WORLD_SIZE='three'"):
        Launch.from_env({**ENV, "WORLD_SIZE": "three"})


class _Writes:
    """A stream that keeps each write call apart, as the pipe torchrun's ranks share does."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_a_rank_says_its_exit_code_in_one_write_so_ranks_lines_cannot_interleave():
    stream = _Writes()
    announce_exit(Launch.from_env(ENV), "node-c", "backend gloo", 1, stream)
    assert stream.calls == ["ppaux-lint verify: rank 2 of 3 (node-c): backend gloo; exit code 1\n"]


def _target(symbol: str, module: str = "plug.m") -> dict:
    ref = ClassRef(symbol, module, symbol.rpartition(".")[2])
    return VerifyTarget(symbol, "output", ref).to_json()


def test_the_ranks_plans_merge_with_rank_0s_first_then_the_senders():
    infos = [
        {"targets": [_target("plug.a.Out", "plug.a")]},
        {"targets": [_target("plug.a.Out", "middle"), _target("plug.m.OnlyMiddle")]},
        {"targets": [_target("plug.a.Out", "sender"), _target("plug.b.OnlySender", "sender")]},
    ]
    merged = {t.symbol: t.output.module for t in merge_targets(infos)}
    assert merged == {"plug.a.Out": "plug.a", "plug.b.OnlySender": "sender", "plug.m.OnlyMiddle": "plug.m"}
    assert list(merged) == sorted(merged)


def test_nccl_only_when_every_rank_has_a_gpu_of_its_own(monkeypatch):
    import torch.distributed as dist

    from ppaux_lint.runtime.torchrun.launch import _backend

    monkeypatch.setattr(dist, "is_nccl_available", lambda: True)
    assert _backend([("a", "cuda:0"), ("b", "cuda:0")]) == "nccl"
    assert _backend([("a", "cuda:0"), ("a", "cuda:1")]) == "nccl"
    assert _backend([("a", "cuda:0"), ("a", "cuda:0")]) == "gloo"  # one GPU for two ranks: through the host
    assert _backend([("a", "cuda:0"), ("b", "cpu")]) == "gloo"


def _half(status: str, message: str, phase: str = RECEIVING, *, stopped: bool = False, device: str = "cpu",
          helpers: str = "bundled") -> HalfResult:
    return HalfResult(VerifyResult("plug.m.Out", status, message, device, "dist", phase=phase, helpers=helpers),
                      stopped=stopped)


def test_a_pass_is_the_senders_with_the_receivers_device():
    row = combine({2: _half(PASS, "2 tensors survived", device="cuda:1"), 0: _half(PASS, "", device="cuda:0")},
                  WORLD)
    assert (row.status, row.message, row.device) == (PASS, "2 tensors survived", "cuda:0")


@pytest.mark.parametrize(("sender", "receiver", "expected"), [
    # The sender broke before anything crossed: the receiver's complaint is only the consequence.
    (_half(ERROR, "import plug.m.Out: ModuleNotFoundError", SENDING), _half(ERROR, "transport: receiving"),
     "rank 2 (node-c): import plug.m.Out: ModuleNotFoundError"),
    # The receiver failed: the sender only relays its verdict.
    (_half(FAIL, "pop: KeyError: 'ids'"), _half(FAIL, "pop: KeyError: 'ids'"),
     "rank 0 (node-a): pop: KeyError: 'ids'"),
    # The receiver died, so the sender's link broke: the receiver is to blame.
    (_half(ERROR, "transport: sending: Connection closed"), _half(FAIL, "the worker process was killed"),
     "rank 0 (node-a): the worker process was killed"),
    # A half stopped because the other broke is blamed last.
    (_half(FAIL, "timed out during transport: sending"), _half(ERROR, "stopped: rank 2 failed", stopped=True),
     "rank 2 (node-c): timed out during transport: sending"),
])
def test_the_half_to_blame_is_named(sender, receiver, expected):
    assert combine({2: sender, 0: receiver}, WORLD).message == expected


def test_a_skip_names_no_rank():
    row = combine({2: _half(SKIP, "no observer rebuilds it", SENDING)}, WORLD)
    assert (row.status, row.message) == (SKIP, "no observer rebuilds it")


def test_helpers_that_differ_between_ranks_are_both_named():
    row = combine({2: _half(PASS, "ok", helpers="sglang 0.5.23"), 0: _half(PASS, "")}, WORLD)
    assert row.helpers == "sglang 0.5.23 (rank 2), bundled (rank 0)"


ROWS = [VerifyResult("plug.m.Out", PASS, "ok", "cpu", "dist", ranks=(2, 0), hosts=("node-c", "node-a")),
        VerifyResult("plug.m.Gone", ERROR, "not run", "cpu", "dist", ranks=(), hosts=())]


def test_json_names_what_each_row_crossed_only_under_a_launcher():
    from ppaux_lint.runtime.run.report import render_json

    launched = json.loads(render_json(ROWS))
    assert [(r["ranks"], r["hosts"]) for r in launched] == [([2, 0], ["node-c", "node-a"]), ([], [])]
    single = json.loads(render_json([VerifyResult("plug.m.Out", PASS, "ok", "cpu", "local")]))
    assert "ranks" not in single[0] and "hosts" not in single[0]
    assert VerifyResult.from_wire(ROWS[0].to_wire()) == ROWS[0]


def test_junit_and_table_name_the_ranks(tmp_path):
    from rich.console import Console

    from ppaux_lint.runtime.run.report import render_table, write_junit

    write_junit(ROWS, tmp_path / "junit.xml")
    case = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite/testcase")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert (properties["ranks"], properties["hosts"]) == ("2,0", "node-c,node-a")
    console = Console(record=True, width=200)
    render_table(ROWS, console, "bundled")
    text = console.export_text()
    assert "Ranks" in text and "2→0" in text
