"""Every stage in a process of its own: state an observer keeps in its process never reaches the other stage.

SGLang runs each PP stage in a scheduler process of its own, with an observer built there, so a module dict,
a class attribute or an ``lru_cache`` that the last stage's hooks fill is empty where the first stage runs
``from_pp_tensors`` and ``consume``. verify must give that verdict in every mode: the default run, at
attention-TP size 2 and over ``--transport dist``. Each observer also writes the pid of every process its
hooks and its rebuild ran in, so the test can see where each stage ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import plugin_module

torch = pytest.importorskip("torch")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)


def _pair(name: str, remember: str, recall: str, head: str = "") -> str:
    """An output subclass and its observer, whose hooks keep the vocabulary with ``remember`` (a statement) and
    whose rebuild reads it back with ``recall`` (an expression); ``head`` opens the observer's body."""
    body = textwrap.indent(head + "\n\n", "    ") if head else ""
    return f"""
class {name}Out(Out):
    pass


class {name}Observer(Hooks):
{body}    def remember(self, vocab):
        {remember}

    def recall(self):
        return 1.0 / {recall}

    def after_sample(self, state, token_ids) -> {name}Out:
        return {name}Out(chosen(state, token_ids), self.recall())

    def from_pp_tensors(self, tensors) -> {name}Out:
        record(type(self).__name__ + ".from_pp_tensors")
        return {name}Out(tensors["values"], self.recall())
"""


STATE = plugin_module(
    """
    import functools
    import os
    from dataclasses import dataclass

    import torch

    SEEN = {}


    def record(where):
        with open(os.path.join(os.environ["PPAUX_TEST_PIDS"], where), "a") as file:
            file.write(f"{os.getpid()}\\n")


    @functools.lru_cache(maxsize=None)
    def stash():
        return {}


    @dataclass
    class Host:
        values: torch.Tensor
        scale: float

        def consume(self, batch, commits):
            for req, value in zip(batch.reqs, self.values.tolist()):
                req.customized_info = {"value": value * self.scale}


    @dataclass
    class Out:
        values: torch.Tensor
        scale: float

        def copy_to_host(self, copy_tensor):
            return Host(copy_tensor(self.values), self.scale)

        def to_pp_tensors(self):
            return {"values": self.values}


    class Hooks:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            record(type(self).__name__ + ".before_grammar")
            self.remember(logits.shape[-1])
            return torch.log_softmax(logits.float(), dim=-1)


    def chosen(state, token_ids):
        return state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1).contiguous()
    """,
    *(_pair(*pair) for pair in [
        ("ModuleDict", 'SEEN["vocab"] = vocab', 'SEEN["vocab"]'),
        ("ClassAttribute", "type(self).vocab = vocab", "self.vocab", "vocab = None"),
        ("Cached", 'stash()["vocab"] = vocab', 'stash()["vocab"]'),
        ("OwnState", "pass", 'SEEN["own"]', 'def __init__(self):\n    SEEN.setdefault("own", 128)'),
    ]),
)

EXPECTED = {
    "ModuleDictOut": ("fail", "pop_auxiliary_output_from_pp_tensors: KeyError: 'vocab'"),
    "ClassAttributeOut": ("fail", "pop_auxiliary_output_from_pp_tensors: TypeError"),
    "CachedOut": ("fail", "pop_auxiliary_output_from_pp_tensors: KeyError: 'vocab'"),
    "OwnStateOut": ("pass", "survived the round trip"),
}
MODES = {"default": (), "attn-tp-2": ("--attn-tp-size", "2"), "dist": ("--transport", "dist")}


@pytest.fixture(scope="module", params=sorted(MODES))
def stage_rows(request, module_project, run_cli, process_marker, tmp_path_factory):
    pids = tmp_path_factory.mktemp("pids")
    module_project.package("plug", {"state": STATE})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PPAUX_TEST_PIDS", str(pids))
        result = run_cli(str(module_project.root), "--device", "cpu", "--timeout", "30", "--output-format", "json",
                         *MODES[request.param])
    rows = {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}
    return result, rows, lambda name: _pids(pids / name)


def _pids(record: Path) -> set[int]:
    return {int(line) for line in record.read_text().split()} if record.exists() else set()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_state_kept_on_the_last_stage_is_not_on_the_first(stage_rows, name):
    _, rows, _ = stage_rows
    status, fragment = EXPECTED[name]
    row = rows[name]
    assert row["status"] == status, row["message"]
    assert fragment in row["message"]
    assert row["example"] == "driven", row["message"]


def test_the_error_names_the_hook_and_class_that_raised(stage_rows):
    _, rows, _ = stage_rows
    assert "in ModuleDictObserver.recall, called from ModuleDictObserver.from_pp_tensors)" in rows["ModuleDictOut"]["message"]


def test_each_stage_runs_in_a_process_of_its_own(stage_rows):
    """The hooks ran in one process and the rebuild in another, neither of them this one, for every class."""
    _, _, pids = stage_rows
    observers = [name.replace("Out", "Observer") for name in EXPECTED]
    for name in observers:
        sending, receiving = pids(f"{name}.before_grammar"), pids(f"{name}.from_pp_tensors")
        assert len(sending) == 1 and len(receiving) == 1, (name, sending, receiving)
        assert sending != receiving and os.getpid() not in sending | receiving
    assert len(set().union(*(pids(f"{name}.from_pp_tensors") for name in observers))) == len(observers)


def test_the_run_leaves_no_process(stage_rows, process_marker, leftover_processes):
    result, _, _ = stage_rows
    assert result.exit_code == 1
    assert leftover_processes(process_marker) == []


def test_under_torchrun_the_stages_are_the_launch_s_ranks(tmp_path, process_marker, leftover_processes):
    """Under torchrun the sender and rank 0 are separate processes already: the same verdicts."""
    from .conftest import Project

    project = Project(tmp_path / "proj")
    project.package("plug", {"state": STATE})
    pids = tmp_path / "pids"
    pids.mkdir()
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")]),
           "GLOO_SOCKET_IFNAME": "lo", "PPAUX_TEST_PIDS": str(pids)}
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                           "-m", "ppaux_lint", "verify", "--transport", "dist", "--device", "cpu", "--timeout", "60",
                           "--output-format", "json", "."], cwd=project.root, env=env, capture_output=True,
                          text=True, timeout=400)
    start = done.stdout.index("[")
    rows = {row["symbol"].rpartition(".")[2]: row for row in json.loads(done.stdout[start:])}
    for name, (status, fragment) in EXPECTED.items():
        assert rows[name]["status"] == status, rows[name]["message"]
        assert fragment in rows[name]["message"]
    assert leftover_processes(process_marker) == []


RESTARTS = plugin_module(
    """
    import os
    from dataclasses import dataclass

    import torch

    SEEN = {}


    @dataclass
    class RestartOut:
        values: torch.Tensor

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.values)

        def to_pp_tensors(self):
            return {"values": self.values}


    class RestartObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            SEEN["filled"] = True
            return torch.log_softmax(logits.float(), dim=-1)

        def after_sample(self, state, token_ids) -> RestartOut:
            return RestartOut(state.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1).contiguous())

        def from_pp_tensors(self, tensors) -> RestartOut:
            with open(os.environ["PPAUX_TEST_PIDS"] + "/rebuilds", "a") as file:
                file.write(f"{os.getpid()} {'filled' in SEEN}\\n")
            if tensors["values"].shape[0] in (4, 5):  # only --explore drives such batches
                os._exit(3)
            return RestartOut(tensors["values"])
    """,
)


def test_a_receiving_rank_started_again_has_none_of_the_last_stage_s_state(project, run_cli, tmp_path):
    """Exploring, the rank dies at every batch above 3 and is started again for the next drawn example, while
    hypothesis shrinks: each new rank is a fresh interpreter, never a fork of the process the hooks ran in."""
    project.package("plug", {"restarts": RESTARTS})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PPAUX_TEST_PIDS", str(tmp_path))
        result = run_cli(str(project.root), "--device", "cpu", "--explore", "20", "--seed", "7", "--timeout", "120",
                         "--output-format", "json")
    rows = {row["symbol"].rpartition(".")[2]: row for row in json.loads(result.stdout)}
    assert rows["RestartOut"]["status"] == "fail", rows["RestartOut"]["message"]
    assert "the receiving rank exited with code 3" in rows["RestartOut"]["message"]
    rebuilds = [line.split() for line in (tmp_path / "rebuilds").read_text().splitlines()]
    assert len({pid for pid, _ in rebuilds}) > 1  # it was started again
    assert {filled for _, filled in rebuilds} == {"False"}
