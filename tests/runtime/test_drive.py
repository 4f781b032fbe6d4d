"""Driving the observer through its own hooks (``drive.py``, ``supply.py``) and comparing what the host
consumes (``consume.py``): units first, then ``verify`` end to end on bugs that only a driven observer
shows, next to the same classes' annotation-built verdicts."""

from __future__ import annotations

import json

import pytest

from .conftest import plugin_module

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.driving.batch_info import SamplingInfoStandIn, sampling_info  # noqa: E402
from ppaux_lint.runtime.driving.drive import (  # noqa: E402
    GREEDY,
    REAL_VOCAB,
    Drive,
    NotDriven,
    Refused,
    default_drives,
    drive,
    make_logits,
    run_sampler,
)
from ppaux_lint.runtime.sending.consume import Scene, consume, first_difference, snapshot  # noqa: E402
from ppaux_lint.runtime.sending.roundtrip import Outcome, Steps  # noqa: E402

CPU = torch.device("cpu")


class _Recorder:
    """An observer that records what it was called with and returns what it is told to."""

    def __init__(self, active=True, state="logits", output=None):
        self.active, self.state, self.output = active, state, output
        self.calls = []

    def is_active(self, sampling_info):
        self.calls.append(("is_active", sampling_info))
        return self.active

    def before_grammar(self, logits, sampling_info):
        self.calls.append(("before_grammar", logits, sampling_info))
        return logits if self.state == "logits" else self.state

    def after_sample(self, state, token_ids):
        self.calls.append(("after_sample", state, token_ids))
        return self.output if self.output is not None else {"ids": token_ids}


def test_the_hooks_run_in_sglangs_order_with_logits_and_sampled_ids():
    observer = _Recorder()
    driven = drive(observer, Drive(3, vocab=50), CPU, Steps())
    names = [call[0] for call in observer.calls]
    assert names == ["is_active", "before_grammar", "after_sample"]
    logits, info = observer.calls[1][1], observer.calls[1][2]
    assert logits.shape == (3, 50) and logits.dtype == torch.float32
    assert info is observer.calls[0][1] and info.vocab_size == 50
    ids = observer.calls[2][2]
    assert ids.dtype == torch.int32 and ids.shape == (3,) and bool(((ids >= 0) & (ids < 50)).all())
    assert driven.token_ids == tuple(ids.tolist())


def test_a_sampled_drive_rewrites_the_logits_in_place_between_the_hooks_and_gives_int32_ids():
    """SGLang's sampler divides the very logits before_grammar saw by the temperatures and overwrites them with
    their softmax before after_sample runs; its torch paths return int32 ids."""
    plan = Drive(3, vocab=50)
    observer = _Recorder()
    drive(observer, plan, CPU, Steps())
    seen, info = observer.calls[1][1], observer.calls[1][2]
    raw = make_logits(plan, CPU)
    assert torch.allclose(seen, torch.softmax(raw / info.temperatures, dim=-1))
    assert observer.calls[2][1] is seen  # the state, a view of the logits, now holds probabilities
    assert observer.calls[2][2].dtype == torch.int32


def test_a_greedy_drive_takes_the_argmax_as_int64_and_leaves_the_logits_alone():
    plan = Drive(2, vocab=50, sampler=GREEDY)
    observer = _Recorder()
    driven = drive(observer, plan, CPU, Steps())
    seen, info = observer.calls[1][1], observer.calls[1][2]
    raw = make_logits(plan, CPU)
    assert torch.equal(seen, raw)
    assert info.is_all_greedy and bool((info.top_ks == 1).all()) and bool((info.temperatures == 1).all())
    ids = observer.calls[2][2]
    assert ids.dtype == torch.int64 and torch.equal(ids, raw.argmax(dim=-1))
    assert driven.drive.describe() == "batch 2, greedy, vocab 50"


def test_the_default_drives_take_both_samplers_and_a_real_vocabulary_with_ids_past_int16():
    drives = default_drives(CPU)
    assert {d.sampler for d in drives} == {"sampled", GREEDY}
    real = [d for d in drives if d.vocab == REAL_VOCAB]
    assert real, "no drive over a real vocabulary"
    ids = drive(_Recorder(), real[0], CPU, Steps()).token_ids
    assert min(ids) > torch.iinfo(torch.int16).max and max(ids) < REAL_VOCAB
    assert min(d.batch for d in drives) >= 1  # SGLang never samples a 0-row batch


def test_a_drive_repeats_from_its_seed_and_differs_across_seeds():
    first, again, other = (make_logits(Drive(2, seed=s), CPU) for s in (4, 4, 5))
    assert torch.equal(first, again) and not torch.equal(first, other)
    info = sampling_info(2, 128, CPU)
    assert torch.equal(run_sampler(first, info, Drive(2, seed=4)), run_sampler(again, info, Drive(2, seed=4)))


@pytest.mark.parametrize("values", ["normal", "peaked", "flat", "extreme", "top"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("sampler", ["sampled", GREEDY])
def test_every_kind_of_logits_can_be_sampled(values, dtype, sampler):
    plan = Drive(4, vocab=64, dtype=dtype, values=values, sampler=sampler)
    logits = make_logits(plan, CPU)
    assert logits.dtype == getattr(torch, dtype) and logits.shape == (4, 64)
    raw = logits.clone()
    ids = run_sampler(logits, sampling_info(4, 64, CPU, greedy=sampler == GREEDY), plan)
    assert bool((torch.gather(raw.float(), 1, ids.long()[:, None]) > float("-inf")).all())


@pytest.mark.parametrize(("observer", "words"), [
    (_Recorder(active=False), "is not active"),
    (_Recorder(state=None), "no state from before_grammar"),
])
def test_an_observer_that_produces_nothing_is_not_driven(observer, words):
    with pytest.raises(NotDriven, match=words):
        drive(observer, Drive(1), CPU, Steps())
    assert "after_sample" not in [call[0] for call in observer.calls]


class _Sendable(dict):
    def to_pp_tensors(self):
        return dict(self)


def test_an_output_of_another_class_is_not_driven():
    with pytest.raises(NotDriven, match="returned a _Sendable from after_sample, not a list"):
        drive(_Recorder(output=_Sendable(ids=torch.zeros(1))), Drive(1), CPU, Steps(), expected=list)


@pytest.mark.parametrize("output", [{"ids": "the ids"}, 5, object()], ids=["dict", "int", "object"])
def test_a_return_sglang_cannot_send_is_refused_not_passed_over(output):
    """Under PP, SGLang's send raises for what has no ``to_pp_tensors``, at every batch: the observer's failure,
    never a drive to fall back from to an example built from annotations."""
    with pytest.raises(Refused, match=r"which has no to_pp_tensors: add_auxiliary_output_to_pp_tensors: "
                                      r"RuntimeError: auxiliary output does not support pipeline-parallel"):
        drive(_Recorder(output=output), Drive(1), CPU, Steps(), expected=list)


def test_a_hook_that_raises_is_an_outcome_naming_the_hook():
    class Broken(_Recorder):
        def after_sample(self, state, token_ids):
            return state.squeeze().argmax(dim=1)  # fine at batch 2, an IndexError at batch 1

    assert drive(Broken(), Drive(2), CPU, Steps()).output.shape == (2,)
    with pytest.raises(Outcome, match=r"observer\.after_sample: IndexError"):
        drive(Broken(), Drive(1), CPU, Steps())


def test_half_types_are_driven_only_where_they_are_fast():
    assert {d.dtype for d in default_drives(CPU)} == {"float32"}
    assert sorted({d.batch for d in default_drives(CPU) if d.sampler == "sampled"}) == [1, 2, 3]
    assert {d.dtype for d in default_drives(torch.device("cuda"))} == {"float32", "bfloat16", "float16"}


def test_the_stand_in_sampling_info_is_shaped_as_sglangs():
    info = sampling_info(3, 16, CPU)
    assert isinstance(info, SamplingInfoStandIn)  # SGLang itself is not installed here
    assert info.temperatures.shape == (3, 1) and info.top_ks.dtype == torch.int32
    assert info.top_ps.shape == info.min_ps.shape == (3,) and info.vocab_size == 16
    assert int(info.top_ks.max()) <= 16


class _Host:
    def __init__(self, scores, label):
        self.scores, self.label = scores, label

    def consume(self, batch, commits):
        for row, (req, commit) in enumerate(zip(batch.reqs, commits, strict=True)):
            req.customized_info = {self.label: [float(self.scores[row])]}
            req.seen = commit.token_ids


def test_consume_writes_are_snapshotted_per_request():
    scene = Scene((5, 9))
    written = consume(_Host(torch.tensor([0.5, 0.25]), "p"), scene)
    reqs = written["reqs"]
    assert [r["customized_info"] for r in reqs] == [{"'p'": [0.5]}, {"'p'": [0.25]}]
    assert [r["seen"] for r in reqs] == [[5], [9]]


def test_the_first_difference_is_named_by_its_path():
    scene = Scene((5, 9))
    original = consume(_Host(torch.tensor([0.5, 0.25]), "p"), scene)
    assert first_difference(original, consume(_Host(torch.tensor([0.5, 0.25]), "p"), scene)) == ""
    assert first_difference(original, consume(_Host(torch.tensor([0.5, 0.75]), "p"), scene)) == (
        "batch.reqs[1].customized_info['p'][0]: 0.75 != 0.25")
    assert first_difference(original, consume(_Host(torch.tensor([0.5, 0.25]), "q"), scene)) == (
        "batch.reqs[0].customized_info['p'] was written for the original only")


class _KeepingHost:
    """Writes each request's score into a deque, a set and a closure, the containers a snapshot once took by
    their repr (a closure's repr holds its address, which differs between any two host objects)."""

    def __init__(self, scores):
        self.scores = scores

    def consume(self, batch, commits):
        from collections import deque

        for row, req in enumerate(batch.reqs):
            score = self.scores[row : row + 1]
            req.recent = deque([score])
            req.tags = frozenset({float(score)})
            req.reader = lambda score=score: score


def test_consume_compares_deques_sets_and_callables_by_what_they_hold():
    scene = Scene((5, 9))
    original = consume(_KeepingHost(torch.tensor([0.5, 0.25])), scene)
    assert first_difference(original, consume(_KeepingHost(torch.tensor([0.5, 0.25])), scene)) == ""
    lost = consume(_KeepingHost(torch.tensor([0.5, 0.75])), scene)
    assert first_difference(original, lost) == "batch.reqs[1].recent[0]: values differ first at [0]: 0.75 != 0.25"


def test_consume_is_judged_with_torch_as_it_was_whatever_the_plugin_patched(monkeypatch):
    """A plugin that makes ``torch.is_tensor`` say no and a tensor's ``clone`` or ``__eq__`` lie still has its
    lost value found."""
    scene = Scene((5, 9))
    original = consume(_Host(torch.tensor([0.5, 0.25]), "p"), scene)
    monkeypatch.setattr(torch, "is_tensor", lambda value: False)
    monkeypatch.setattr(torch.Tensor, "clone", lambda self, *args, **kwargs: torch.zeros_like(self))
    monkeypatch.setattr(torch.Tensor, "__eq__", lambda self, other: torch.ones(self.shape, dtype=torch.bool))
    monkeypatch.setattr(torch, "equal", lambda a, b: True)
    kept = consume(_KeepingHost(torch.tensor([0.5, 0.25])), scene)
    lost = consume(_KeepingHost(torch.tensor([0.5, 0.75])), scene)
    assert first_difference(kept, lost) == "batch.reqs[1].recent[0]: values differ first at [0]: 0.75 != 0.25"
    assert first_difference(original, consume(_Host(torch.tensor([0.5, 0.75]), "p"), scene)) == (
        "batch.reqs[1].customized_info['p'][0]: 0.75 != 0.25")


def test_a_host_without_consume_has_nothing_to_compare():
    assert consume(object(), Scene((1,))) is None


def test_snapshots_hold_tensors_as_cpu_copies_and_nan_matches_nan():
    value = torch.tensor([1.0, float("nan")])
    shot = snapshot({"t": value, "f": float("nan")})
    value[0] = 7.0
    assert shot["'t'"][0] == 1.0
    assert first_difference(shot, snapshot({"t": torch.tensor([1.0, float("nan")]), "f": float("nan")})) == ""


# End to end: each observer's bug lives in its own code; the annotation-built example of the same output
# (an observer that cannot be driven because it needs a handle it is not given) passes.
DRIVEN = plugin_module(
    """
    from __future__ import annotations

    from dataclasses import dataclass

    import torch


    @dataclass
    class Host:
        ids: torch.Tensor
        note: float

        def consume(self, batch, commits):
            for row, req in enumerate(batch.reqs):
                req.customized_info = {"top": [self.ids[row].tolist()], "note": [self.note]}


    @dataclass
    class TopOutput:
        ids: torch.Tensor
        note: float = 0.0

        def copy_to_host(self, copy_tensor):
            return Host(copy_tensor(self.ids), self.note)

        def to_pp_tensors(self):
            return {"ids": self.ids}


    class _Base:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return torch.log_softmax(logits.float(), dim=-1)

        def from_pp_tensors(self, tensors) -> TopOutput:
            return TopOutput(tensors["ids"])


    class ColumnObserver(_Base):
        def after_sample(self, state, token_ids) -> TopOutput:
            return TopOutput(state.topk(2, dim=-1).indices[:, 0])


    class HealedObserver(_Base):
        def after_sample(self, state, token_ids) -> TopOutput:
            return TopOutput(state.topk(4, dim=-1).indices[:, :2])


    class NoteObserver(_Base):
        def after_sample(self, state, token_ids) -> TopOutput:
            return TopOutput(token_ids.clone(), note=float(state.max()))


    class BatchOneObserver(_Base):
        def after_sample(self, state, token_ids) -> TopOutput:
            return TopOutput(state.squeeze().argmax(dim=1))


    class InactiveObserver(_Base):
        def is_active(self, sampling_info):
            return bool(sampling_info.custom_params)

        def after_sample(self, state, token_ids) -> TopOutput:
            return TopOutput(token_ids)
    """
)
_OUTPUTS = {name: f"TopOutput{name}" for name in ("Column", "Healed", "Note", "BatchOne", "Inactive")}


def _project_source() -> str:
    """One output class per observer (a subclass each), so that each row's producer is its observer."""
    lines = [DRIVEN]
    for name, output in _OUTPUTS.items():
        lines += ["", "", "@dataclass", f"class {output}(TopOutput):", "    pass", "", "",
                  f"class {name}Observer2({name}Observer):",
                  f"    def after_sample(self, state, token_ids) -> {output}:",
                  "        made = super().after_sample(state, token_ids)",
                  f"        return {output}(made.ids, made.note)",
                  "", f"    def from_pp_tensors(self, tensors) -> {output}:",
                  f'        return {output}(tensors["ids"])']
    return "\n".join(lines)


@pytest.fixture(scope="module")
def driven_rows(module_project, run_cli):
    module_project.write("plug/__init__.py", "")
    module_project.write("plug/observers.py", _project_source())
    result = run_cli(str(module_project.root), "--device", "cpu", "--output-format", "json")
    return {row["symbol"].rsplit(".", 1)[1]: row for row in json.loads(result.stdout)}


def test_over_the_dist_transport_the_receiving_rank_judges_consume_the_same_way(driven_rows, module_project,
                                                                                run_cli):
    """The original's consume runs on the sending rank; what it wrote crosses as a snapshot."""
    result = run_cli(str(module_project.root), "--device", "cpu", "--output-format", "json", "--transport", "dist")
    rows = {row["symbol"].rsplit(".", 1)[1]: row for row in json.loads(result.stdout)}
    for name in _OUTPUTS:
        assert rows[_OUTPUTS[name]]["status"] == driven_rows[_OUTPUTS[name]]["status"], rows[_OUTPUTS[name]]
    assert "batch.reqs[0].customized_info['note'][0]" in _row(rows, "Note")["message"]


def _row(rows, name):
    return rows[_OUTPUTS[name]]


def test_a_strided_view_kept_by_the_observer_is_refused(driven_rows):
    row = _row(driven_rows, "Column")
    assert row["status"] == "fail" and row["example"] == "driven", row["message"]
    assert "driven at batch 2" in row["message"] and "contiguous" in row["message"]


def test_a_view_that_sglangs_reshape_copies_arrives(driven_rows):
    row = _row(driven_rows, "Healed")
    assert row["status"] == "pass" and row["example"] == "driven", row["message"]
    assert ("through plug.observers.HealedObserver2 (driven by its observer's hooks at batches 1, 2, 3; batch 2, "
            "greedy; batch 1, vocab 151936, ids at its top)") in row["message"]


def test_a_value_the_host_consumes_but_the_stage_never_sent_is_a_difference(driven_rows):
    row = _row(driven_rows, "Note")
    assert row["status"] == "fail", row["message"]
    assert "consume(batch, commits) wrote differently" in row["message"]
    assert "batch.reqs[0].customized_info['note'][0]: 0.0 != " in row["message"]


def test_a_hook_that_breaks_at_one_batch_fails_naming_it(driven_rows):
    row = _row(driven_rows, "BatchOne")
    assert row["status"] == "fail", row["message"]
    assert "at batch 1 (batches 2, 3; batch 2, greedy drove fine)" in row["message"]
    assert "observer.after_sample: IndexError" in row["message"]


def test_an_observer_that_makes_no_output_falls_back_to_annotations_and_says_why(driven_rows):
    row = _row(driven_rows, "Inactive")
    assert row["status"] == "pass" and row["example"] == "annotations", row["message"]
    assert ("example built from annotations: plug.observers.InactiveObserver2 is not active for the stand-in "
            "batch") in row["message"]


_IDS = """
    from dataclasses import dataclass

    import torch


    @dataclass
    class IdsOutput:
        ids: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.ids)

        def to_pp_tensors(self):
            return {"ids": self.ids}


    class {name}:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits

        def after_sample(self, state, token_ids) -> IdsOutput:
            return IdsOutput(token_ids.long())

        def from_pp_tensors(self, tensors) -> IdsOutput:
            return IdsOutput({rebuilt})
"""
NARROW = plugin_module(_IDS.replace("{name}", "NarrowObserver").replace(
    "{rebuilt}", 'tensors["ids"].to(torch.int16).to(torch.int64))  # wraps past 32767'))
CAPPED = plugin_module(_IDS.replace("{name}", "CappedObserver").replace(
    "{rebuilt}", 'tensors["ids"][:3])  # our deployment batches at most 3 requests'))


def test_ids_narrowed_to_int16_fail_by_default_over_a_real_vocabulary(project, run_cli):
    """Real vocabularies need more than 16 bits: the default drives sample ids near the top of one."""
    project.write("narrow.py", NARROW)
    plain = json.loads(run_cli(str(project.root), "--device", "cpu", "--output-format", "json").stdout)
    row = next(r for r in plain if r["symbol"] == "narrow.IdsOutput")
    assert row["status"] == "fail", row["message"]
    # the observer's from_pp_tensors loses them, so the pair's one failure is named through it (issue 34 item 6)
    assert row["message"].startswith("through narrow.NarrowObserver: driven at batch 1, vocab 151936, ids at its "
                                     "top: "), row["message"]


@pytest.mark.parametrize(("hook", "said"), [
    ("raise SystemExit(0)", "observer.after_sample: SystemExit: 0"),
    ("raise KeyboardInterrupt", "observer.after_sample: KeyboardInterrupt"),
    ("return 5", "observer.after_sample returned a int, which has no to_pp_tensors"),
], ids=["exit", "interrupt", "unsendable"])
def test_an_observer_that_exits_or_returns_what_sglang_cannot_send_fails_its_rows(project, run_cli, hook, said):
    """What the class does is its own row: an exit in a hook, or a return SGLang's send refuses, at every drive,
    is no reason to fall back to an example built from annotations (and pass)."""
    project.write("stops.py", plugin_module(_IDS.replace("{name}", "StopObserver").replace(
        "{rebuilt}", 'tensors["ids"]').replace("return IdsOutput(token_ids.long())", hook)))
    result = run_cli(str(project.root), "--device", "cpu", "--output-format", "json")
    rows = {r["symbol"]: r for r in json.loads(result.stdout)}
    assert result.exit_code == 1, result.stdout
    row = rows["stops.IdsOutput"]
    assert row["status"] == "fail" and "driving stops.StopObserver at batch 1: " + said in row["message"], row


def test_explore_drives_the_observer_with_drawn_batches_and_shrinks(project, run_cli):
    """The default drives' batches hide the bug; a drawn one shows it, and the row says at which drive."""
    project.write("capped.py", CAPPED)
    plain = json.loads(run_cli(str(project.root), "--device", "cpu", "--output-format", "json").stdout)
    assert {row["status"] for row in plain} == {"pass"}
    explored = run_cli(str(project.root), "--device", "cpu", "--output-format", "json", "--explore", "30",
                       "--seed", "3")
    row = next(r for r in json.loads(explored.stdout) if r["symbol"] == "capped.IdsOutput")
    assert row["status"] == "fail", row["message"]
    assert row["message"].startswith("through capped.CappedObserver: explored, seed 3: fails driven at batch "), \
        row["message"]
    assert row["counterexample"]["drive"]["batch"] > 3
    assert "observer = CappedObserver()" in row["reproducer"]


def test_consume_raising_at_some_batches_fails_and_at_every_batch_is_said():
    from ppaux_lint.runtime.driving.examples import Example
    from ppaux_lint.runtime.hosts.trip import _consume_verdict

    one, two = (Example(None, False, f"driven at batch {n}", Scene((n,))) for n in (1, 2))
    assert _consume_verdict([(one, ""), (two, "")]) == []
    with pytest.raises(Outcome, match=r"^driven at batch 1: host\.consume\(batch, commits\) raised TypeError: x "
                                      r"\(driven at batch 2 consumed fine\)") as raised:
        _consume_verdict([(one, "TypeError: x"), (two, "")])
    assert raised.value.status == "fail"
    assert _consume_verdict([(one, "AttributeError: y"), (two, "AttributeError: y")]) == [
        "consume(batch, commits) raised on the stand-in batch for every example, so what it writes was not "
        "compared: AttributeError: y"]


PACKED = plugin_module(
    """
    from dataclasses import dataclass

    import torch


    LANES = ("red", "green", "blue")  # the dashboard shows three requests at a time


    @dataclass
    class PackedHost:
        ids: torch.Tensor

        def consume(self, batch, commits):
            for row, req in enumerate(batch.reqs):
                req.customized_info = {"lane": [LANES[row]], "id": [int(self.ids[row])]}


    @dataclass
    class PackedOutput:
        ids: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return PackedHost(copy_tensor(self.ids))

        def to_pp_tensors(self):
            return {"ids": self.ids}


    class PackedObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits

        def after_sample(self, state, token_ids) -> PackedOutput:
            return PackedOutput(token_ids.clone())

        def from_pp_tensors(self, tensors) -> PackedOutput:
            return PackedOutput(tensors["ids"])
    """
)


def test_explore_fails_a_drawn_drive_whose_consume_raises_where_the_base_drives_did_not(project, run_cli):
    project.write("packed.py", PACKED)
    result = run_cli(str(project.root), "--device", "cpu", "--output-format", "json", "--explore", "30",
                     "--seed", "3")
    row = next(r for r in json.loads(result.stdout) if r["symbol"] == "packed.PackedOutput")
    assert row["status"] == "fail", row["message"]
    assert "host.consume(batch, commits) raised IndexError: tuple index out of range, which it did not at the " \
           "base drives" in row["message"]
    assert row["counterexample"]["drive"]["batch"] > 3
