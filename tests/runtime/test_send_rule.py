"""What crosses a PP stage and what torch refuses, as SGLang's scheduler sends it (``transport.pack``).

SGLang sends every non-empty tensor whose numel divides by the attention-TP size as
``tensor.reshape(attn_tp_size, -1)[attn_tp_rank]``, any other whole, and ``torch.distributed.send``
refuses a non-contiguous one. So ``x.t()`` and ``x[:, :2]`` arrive (the reshape copies them), ``x[:, 0]``
and ``table[..., 0]`` are refused (it keeps them as strided views), and at attention-TP size 2 a view of
odd numel is refused even when the reshape would have copied it. The rule is held against real gloo groups
(2 processes at size 1, 4 at size 2 with attention-TP subgroups and a real ``all_gather``), against the
local transport, and through ``ppaux-lint verify`` end to end, both transports.
"""

from __future__ import annotations

import json
import multiprocessing
import queue
from typing import Any

import pytest

from .conftest import Project, plugin_module

torch = pytest.importorskip("torch")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)

from ppaux_lint.runtime.sending.roundtrip import Outcome  # noqa: E402
from ppaux_lint.runtime.sending.transport import local_transfer, loopback_env, pack  # noqa: E402

from .gloo_ranks import OPS, STARTUP, run_rank, views  # noqa: E402

CPU = torch.device("cpu")
GLOO_TIMEOUT = 60.0
REFUSED_BY_TORCH = "input tensor has to be contiguous"


def refusal(view: torch.Tensor, attn_tp_size: int) -> str | None:
    """The message ``pack`` refuses ``view`` with at ``attn_tp_size``, or None when it would be sent."""
    try:
        pack({"t": view}, attn_tp_size)
    except Outcome as outcome:
        assert outcome.status == "fail"
        return outcome.message
    return None


x = torch.arange(12.0).reshape(4, 3)
table = torch.arange(24.0).reshape(4, 3, 2)
odd = torch.arange(9.0).reshape(3, 3).t()  # numel 9: sent whole at attention-TP size 2
even = torch.arange(16.0).reshape(4, 4).t()


@pytest.mark.parametrize("attn_tp_size", [1, 2])
@pytest.mark.parametrize("view", [x.t(), x[:, :2], even], ids=["x.t()", "x[:, :2]", "even 4x4 .t()"])
def test_views_the_reshape_copies_arrive_as_fresh_contiguous_buffers(view, attn_tp_size):
    received = local_transfer({"t": view, "meta": "kept"}, CPU, attn_tp_size)
    assert not view.is_contiguous()
    assert received["meta"] == "kept"
    assert received["t"].is_contiguous() and torch.equal(received["t"], view)
    assert received["t"].untyped_storage().data_ptr() != view.untyped_storage().data_ptr()


@pytest.mark.parametrize("attn_tp_size", [1, 2])
@pytest.mark.parametrize("view", [x[:, 0], table[..., 0]], ids=["x[:, 0]", "table[..., 0]"])
def test_views_the_reshape_keeps_are_refused_naming_the_reshape(view, attn_tp_size):
    message = refusal(view, attn_tp_size)
    assert message is not None
    assert message.startswith(f"the tensor under 't' (shape {list(view.shape)}, strides {view.stride()}) is sent as "
                              f"tensor.reshape({attn_tp_size}, -1)[rank] by SGLang's send_tensor_dict at "
                              f"attention-TP size {attn_tp_size}, which keeps a non-contiguous view")
    assert message.endswith("torch.distributed.send refuses it (gloo: 'input tensor has to be contiguous'); "
                            "return .contiguous() tensors from to_pp_tensors")
    with pytest.raises(Outcome):
        local_transfer({"t": view}, CPU, attn_tp_size)


def test_an_odd_numel_is_sent_whole_at_attention_tp_size_2_so_a_healable_view_is_refused():
    assert refusal(odd, 1) is None
    assert torch.equal(local_transfer({"t": odd}, CPU, 1)["t"], odd)
    message = refusal(odd, 2)
    assert message is not None
    assert ("(shape [3, 3], strides (1, 3)) is sent whole by SGLang's send_tensor_dict at attention-TP size 2, "
            "because its numel 9 does not divide by 2, and it is not contiguous; torch.distributed.send refuses it"
            in message)
    assert refusal(even, 2) is None  # the same view at an even numel is copied by the reshape


@pytest.mark.parametrize("attn_tp_size", [1, 2])
def test_pieces_are_rows_of_the_reshape_when_the_numel_divides_else_the_whole_tensor(attn_tp_size):
    parcel = pack({"x": x.t(), "odd": odd.contiguous(), "empty": x[:0], "meta": 3}, attn_tp_size)
    assert parcel.attn_tp_size == attn_tp_size
    assert [key for key, _ in parcel.metadata] == ["x", "odd", "empty", "meta"]
    assert [p.shape for p in parcel.pieces["x"]] == [torch.Size([12 // attn_tp_size])] * attn_tp_size
    assert torch.equal(torch.cat(parcel.pieces["x"]), x.t().reshape(-1))
    odd_pieces = [p.shape for p in parcel.pieces["odd"]]
    assert odd_pieces == ([torch.Size([9])] if attn_tp_size == 1 else [torch.Size([3, 3])])
    assert parcel.pieces["empty"] == ()


@pytest.mark.parametrize("attn_tp_size", [1, 2])
def test_empty_tensors_are_not_sent_and_arrive_as_empty_buffers_of_their_shape(attn_tp_size):
    strided_empty = torch.ones(0, 3).t()
    received = local_transfer({"a": x[:0], "b": strided_empty}, CPU, attn_tp_size)
    assert received["a"].shape == (0, 3) and received["b"].shape == (3, 0)
    assert received["b"].dtype == strided_empty.dtype


def test_a_zero_dimensional_tensor_crosses_whole_at_attention_tp_size_2():
    received = local_transfer({"t": torch.tensor(7.0)}, CPU, 2)["t"]
    assert received.shape == () and received.item() == 7.0


def _gloo_run(attn_tp_size: int) -> dict[int, dict[tuple[str, str], Any]]:
    """Each rank's outcomes from a real run of ``gloo_ranks`` with two stages of ``attn_tp_size`` ranks;
    skips when gloo cannot start here."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the forkserver start method to start gloo ranks")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["torch.distributed"])  # imported once by the server, not once per rank
    world = 2 * attn_tp_size
    store = torch.distributed.TCPStore("127.0.0.1", 0, world, is_master=True, wait_for_workers=False)
    results = context.Queue()
    ranks = [context.Process(target=run_rank, args=(rank, world, store.port, loopback_env(), results))
             for rank in range(world)]
    for process in ranks:
        process.start()
    try:
        reports = [results.get(timeout=GLOO_TIMEOUT) for _ in ranks]
    except queue.Empty:
        pytest.fail(f"the gloo ranks did not report within {GLOO_TIMEOUT:g} s")
    finally:
        for process in ranks:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
    problems = [report[2] for report in reports if report[1] == STARTUP]
    if problems:
        pytest.skip(f"gloo cannot start here: {problems[0]}")
    return dict(reports)


@pytest.mark.parametrize("attn_tp_size", [1, 2])
def test_real_gloo_send_and_isend_refuse_exactly_what_pack_refuses(attn_tp_size):
    outcomes = _gloo_run(attn_tp_size)
    senders, receivers = range(attn_tp_size), range(attn_tp_size, 2 * attn_tp_size)
    verdicts = set()
    for name, view in views().items():
        ours = refusal(view, attn_tp_size)
        verdicts.add(ours is None)
        for op in OPS:
            refused = [outcomes[rank][name, op] for rank in senders]
            assert all((why is not None) == (ours is not None) for why in refused), (name, op, refused, ours)
            assert all(REFUSED_BY_TORCH in why for why in refused if why is not None), refused
            if ours is None:  # what torch sent arrived whole, as the local transport delivers it
                assert all(outcomes[rank][name, op] for rank in receivers), (name, op)
                assert torch.equal(local_transfer({"t": view}, CPU, attn_tp_size)["t"], view)
    assert verdicts == {True, False}  # both sides of the rule were exercised


PROJECT = plugin_module(
    """
    from __future__ import annotations

    import torch
    """,
    *(f'''
    class {name}Output:
        def __init__(self, values):
            self.values = values

        @classmethod
        def ppaux_example(cls, device):
            return cls({example})

        def copy_to_host(self, copy_tensor):
            return copy_tensor({view})

        def to_pp_tensors(self):
            return {{"values": {view}}}


    class {name}Observer:
        def is_active(self, sampling_info):
            return True

        def after_sample(self, state, token_ids) -> {name}Output:
            return {name}Output(state)

        def from_pp_tensors(self, tensors) -> {name}Output:
            return {name}Output({rebuild})
    ''' for name, example, view, rebuild in [
        ("Transposed", "torch.arange(6.0, device=device).reshape(2, 3)", "self.values.t()", 'tensors["values"].t()'),
        ("Sliced", "torch.arange(12.0, device=device).reshape(4, 3)", "self.values[:, :2]", 'tensors["values"]'),
        ("Column", "torch.arange(12.0, device=device).reshape(4, 3)", "self.values[:, 0]", 'tensors["values"]'),
        ("Odd", "torch.arange(9.0, device=device).reshape(3, 3)", "self.values.t()", 'tensors["values"].t()'),
    ]),
)
KEY = "'__sampling_observer_output__.values'"
RUNS = {  # (transport, attention-TP size, whether the config sets it rather than the flag)
    "local-2-flag": ("local", 2, False),
    "dist-1-default": ("dist", 1, False),
    "dist-2-config": ("dist", 2, True),
}


def expected_rows(attn_tp_size: int) -> dict[str, tuple[str, str]]:
    column = f"is sent as tensor.reshape({attn_tp_size}, -1)[rank] by SGLang's send_tensor_dict"
    odd_row = ("pass", "survived the round trip") if attn_tp_size == 1 else (
        "fail", "is sent whole by SGLang's send_tensor_dict at attention-TP size 2, because its numel 9 does not "
                "divide by 2")
    return {"Transposed": ("pass", "survived the round trip"), "Sliced": ("pass", "survived the round trip"),
            "Column": ("fail", f"the tensor under {KEY} (shape [4], strides (3,)) {column}"), "Odd": odd_row}


@pytest.fixture(scope="module")
def rows(tmp_path_factory, run_cli):
    """Every run's output rows, by run and class; one small project per run, since the config differs."""
    found = {}
    for run, (transport, attn_tp_size, by_config) in RUNS.items():
        project = Project(tmp_path_factory.mktemp(run))
        project.package("views", {"m": PROJECT})
        if by_config:
            project.write("pyproject.toml", f"[tool.ppaux-lint.verify]\nattn-tp-size = {attn_tp_size}\n")
        flags = [] if by_config or attn_tp_size == 1 else ["--attn-tp-size", str(attn_tp_size)]
        result = run_cli(str(project.root), "--device", "cpu", "--transport", transport, "--timeout", "30",
                         "--output-format", "json", *flags)
        assert result.exit_code == 1, result.output
        found[run] = {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}
    return found


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("name", ["Transposed", "Sliced", "Column", "Odd"])
def test_verify_end_to_end(rows, run, name):
    transport, attn_tp_size, _ = RUNS[run]
    status, fragment = expected_rows(attn_tp_size)[name]
    for row in (rows[run][f"{name}Output"], rows[run][f"{name}Observer"]):
        assert row["status"] == status, row["message"]
        assert fragment in row["message"]
        assert row["transport"] == transport


def test_attention_tp_size_must_be_positive_on_the_command_line(run_cli, tmp_path):
    result = run_cli(str(tmp_path), "--attn-tp-size", "0")
    assert result.exit_code == 2
    assert "--attn-tp-size" in result.stderr


def test_attention_tp_size_must_be_positive_in_the_config(run_cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ppaux-lint.verify]\nattn-tp-size = 0\n")
    result = run_cli(str(tmp_path), "--device", "cpu")
    assert result.exit_code == 2
    assert "'tool.ppaux-lint.verify.attn-tp-size' must be a positive integer, not 0" in result.stderr


def test_the_flag_wins_over_the_config_and_the_config_over_the_default(tmp_path):
    from ppaux_lint.runtime.run.plan import plan_verify

    assert plan_verify([tmp_path], device="cpu").attn_tp_size == 1
    (tmp_path / "pyproject.toml").write_text("[tool.ppaux-lint.verify]\nattn-tp-size = 4\n")
    assert plan_verify([tmp_path], device="cpu").attn_tp_size == 4
    assert plan_verify([tmp_path], device="cpu", attn_tp_size=2).attn_tp_size == 2


def test_a_front_end_without_click_gets_the_same_refusal_of_size_0(tmp_path):
    from ppaux_lint.runtime.run.plan import VerifyUsageError, plan_verify

    with pytest.raises(VerifyUsageError) as caught:
        plan_verify([tmp_path], device="cpu", attn_tp_size=0, option_prefix="--ppaux-")
    assert str(caught.value) == "--ppaux-attn-tp-size must be at least 1, not 0"
