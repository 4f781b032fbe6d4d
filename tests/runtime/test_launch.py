"""``verify --transport dist`` inside torchrun: the launch's ranks are the PP stages (``runtime/torchrun/launch.py``).

Nodes are simulated on this machine: two torchrun processes on 127.0.0.1 (``--nnodes 2 --node-rank R``),
each in its own working copy of the plugin and with its own host label, and one ``--standalone`` launch of
three ranks (pp-size 3). Each launch runs once, and its tests read its rows, exit codes and leftovers.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from explore_bugs import PAIRS as BUGS

from .conftest import Project, observer_class, output_class, plugin_module
from .test_send_rule import PROJECT as VIEWS

torch = pytest.importorskip("torch")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("torch.distributed with gloo is not available", allow_module_level=True)
if not sys.platform.startswith("linux"):
    pytest.skip("the leftover-process checks read /proc", allow_module_level=True)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 4  # verify's per-class limit in these runs
LAUNCH_LIMIT = 150  # for a whole launch; a launch that takes longer is killed and fails its test
_EXIT = re.compile(r"^ppaux-lint verify: rank (\d+) of (\d+) \(([^)]*)\): (.*); exit code (\d+)$", re.M)

GOOD = plugin_module(
    "from dataclasses import dataclass\n\nimport torch",
    output_class("GoodOutput", ("scores: torch.Tensor", "ids: torch.Tensor"),
                 "(copy_tensor(self.scores), copy_tensor(self.ids))", '{"scores": self.scores, "ids": self.ids}'),
    observer_class("GoodObserver", "GoodOutput", "GoodOutput(state, token_ids)",
                   'return GoodOutput(tensors["scores"], tensors["ids"])'),
)
"""Identical on every node: passes."""


def _module(prefix: str, body: str, rebuild: str, imports: str = "import torch") -> str:
    """An output ``{prefix}Output`` (one tensor) whose ``to_pp_tensors`` runs ``body``, and its observer."""
    return plugin_module(
        f"{imports}\nfrom dataclasses import dataclass",
        output_class(f"{prefix}Output", ("scores: torch.Tensor",), "copy_tensor(self.scores)", None)
        + "\n\n    def to_pp_tensors(self):\n" + "\n".join(f"        {line}" for line in body.splitlines()),
        observer_class(f"{prefix}Observer", f"{prefix}Output", f"{prefix}Output(state)", rebuild),
    )


KEYED = _module("Keyed", 'return {"scores": self.scores}', 'return KeyedOutput(tensors["score"])')
HUNG = _module("Hung", 'time.sleep(600)\nreturn {"scores": self.scores}', 'return HungOutput(tensors["scores"])',
               "import time\n\nimport torch")
# The sending rank's process dies mid-row: the class kills it (its worker's parent), after a pause in which
# the rank publishes the step, which the survivors name.
DYING = _module("Dying", 'time.sleep(1.5)\nstat = open(f"/proc/{os.getppid()}/stat").read().rsplit(")", 1)[1]'
                '\nos.kill(int(stat.split()[1]), signal.SIGKILL)\ntime.sleep(60)',
                'return DyingOutput(tensors["scores"])', "import os\nimport signal\nimport time\n\nimport torch")
AFTER = _module("After", 'return {"scores": self.scores}', 'return AfterOutput(tensors["scores"])')


def _skew(sends_ids: bool) -> str:
    """Two versions of one plugin: the receiver's reads ``ids``, which the sender's no longer sends."""
    fields = ("scores: torch.Tensor", "ids: torch.Tensor") if sends_ids else ("scores: torch.Tensor",)
    send = '{"scores": self.scores, "ids": self.ids}' if sends_ids else '{"scores": self.scores}'
    rebuild = 'SkewOutput(tensors["scores"], tensors["ids"])' if sends_ids else 'SkewOutput(tensors["scores"])'
    host = "(copy_tensor(self.scores), copy_tensor(self.ids))" if sends_ids else "copy_tensor(self.scores)"
    return plugin_module("from dataclasses import dataclass\n\nimport torch", output_class("SkewOutput", fields, host, send),
                         observer_class("SkewObserver", "SkewOutput", "SkewOutput(state, token_ids)",
                                        f"return {rebuild}"))


@dataclass
class Launched:
    """One torchrun process's outcome: its exit code, what it printed, and each of its ranks' exit lines."""

    code: int
    stdout: str
    stderr: str
    seconds: float

    def rows(self) -> dict[str, dict]:
        return {row["symbol"].rpartition(".")[2]: row for row in json.loads(self.stdout)}

    def rank_exits(self) -> dict[int, tuple[str, int]]:
        """rank -> (what it said before its exit code, the code)."""
        return {int(m[1]): (m[4], int(m[5])) for m in _EXIT.finditer(self.stderr)}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _launch(nodes: list[tuple[Path, list[str], str]], marker: str, options: tuple[str, ...] = ()) -> list[Launched]:
    """Start one torchrun per node (its working copy, launcher arguments, host label) and wait for all;
    ``options`` go to every rank's verify.

    Each torchrun leads a session of its own; on a timeout the sessions and every process carrying the
    test's marker are killed, by pid, so that nothing outlives the test.
    """
    started = time.monotonic()
    procs = []
    for cwd, launcher, host in nodes:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
               "GLOO_SOCKET_IFNAME": "lo", "PPAUX_LINT_HOST": host}
        if not host:
            del env["PPAUX_LINT_HOST"]
        command = [sys.executable, "-m", "torch.distributed.run", *launcher, "-m", "ppaux_lint", "verify",
                   "--transport", "dist", "--device", "cpu", "--timeout", str(TIMEOUT), "--output-format", "json",
                   *options, "."]
        procs.append(subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, start_new_session=True))
    try:
        outputs = [proc.communicate(timeout=max(1.0, LAUNCH_LIMIT - (time.monotonic() - started)))
                   for proc in procs]
    except subprocess.TimeoutExpired:
        for proc in procs:
            _kill(proc.pid, os.killpg)
        _kill_marked(marker)
        for proc in procs:
            proc.communicate()
        pytest.fail(f"the launch did not finish in {LAUNCH_LIMIT} s")
    seconds = time.monotonic() - started
    return [Launched(proc.returncode, out, err, seconds) for proc, (out, err) in zip(procs, outputs, strict=True)]


def _kill(pid: int, how=os.kill) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        how(pid, signal.SIGKILL)


def _kill_marked(marker: str) -> None:
    from .conftest import processes_with

    for pid in processes_with(marker):
        _kill(pid)


def _leftovers(marker: str, leftover_processes) -> list[int]:
    """The processes of the launch still alive a few seconds after it ended (they are then killed)."""
    deadline = time.monotonic() + 5
    while (left := leftover_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    _kill_marked(marker)
    return left


def _two_nodes(tmp_path_factory, copies: dict[str, dict[str, str]]) -> list[tuple[Path, list[str], str]]:
    """Node A (rank 0) and node B (rank 1), each in its own copy of the plugin ``plug`` (module -> source)."""
    port = _free_port()
    nodes = []
    for rank, (host, modules) in enumerate(copies.items()):
        project = Project(tmp_path_factory.mktemp(host))
        project.package("plug", modules)
        launcher = ["--nnodes", "2", "--nproc-per-node", "1", "--node-rank", str(rank),
                    "--master-addr", "127.0.0.1", "--master-port", str(port)]
        nodes.append((project.root, launcher, host))
    return nodes


# -- --explore under a launch: the sender explores with rank 0's seed ---------------------------------------


def test_a_launch_explores_on_the_sender_with_the_seed_rank_0_printed(tmp_path, process_marker, leftover_processes):
    project = Project(tmp_path / "bugs")
    project.package("bugs", {"pairs": BUGS})
    [launched] = _launch([(project.root, ["--standalone", "--nproc-per-node", "2"], "")], process_marker,
                         ("--explore", "10"))
    printed = re.findall(r"exploring 10 examples per class with --seed (\d+)", launched.stderr)
    assert len(printed) == 1, launched.stderr  # rank 0 only
    rows = launched.rows()
    assert f"explored 12 examples around it, seed {printed[0]}" in rows["TopkOutput"]["message"]
    assert rows["SqueezeOutput"]["counterexample"]["ids"]["shape"] == [1, 4]
    assert list(project.root.rglob(".hypothesis")) == []  # the ranks ran in the project
    assert _leftovers(process_marker, leftover_processes) == []


# -- --attn-tp-size under a launch: the sender cuts each stage as SGLang does at that size -------------------


def test_a_launch_sends_as_sglang_does_at_the_attention_tp_size_asked(tmp_path, process_marker, leftover_processes):
    project = Project(tmp_path / "views")
    project.package("views", {"m": VIEWS})
    [launched] = _launch([(project.root, ["--standalone", "--nproc-per-node", "2"], "")], process_marker,
                         ("--attn-tp-size", "2"))
    rows = launched.rows()
    assert rows["TransposedOutput"]["status"] == "pass", rows["TransposedOutput"]["message"]
    assert rows["OddOutput"]["status"] == "fail"
    assert "rank 1 (" in rows["OddOutput"]["message"]  # the sender refused it
    assert "because its numel 9 does not divide by 2" in rows["OddOutput"]["message"]
    assert _leftovers(process_marker, leftover_processes) == []


# -- pp-size 3 on one node: the last rank sends, rank 0 receives, rank 1 waits ------------------------------


@pytest.fixture(scope="module")
def pp3(tmp_path_factory, process_marker, leftover_processes):
    project = Project(tmp_path_factory.mktemp("pp3"))
    project.package("plug", {"good": GOOD, "keyed": KEYED})
    [launched] = _launch([(project.root, ["--standalone", "--nproc-per-node", "3"], "")], process_marker)
    return launched, _leftovers(process_marker, leftover_processes)


def test_pp3_rows_cross_from_the_last_rank_to_rank_0(pp3):
    launched, _ = pp3
    rows = launched.rows()
    host = socket.gethostname()  # without PPAUX_LINT_HOST, the real one
    assert {name: (row["status"], row["ranks"], row["hosts"]) for name, row in rows.items()} == {
        "GoodObserver": ("pass", [2, 0], [host, host]),
        "GoodOutput": ("pass", [2, 0], [host, host]),
        "KeyedObserver": ("fail", [2, 0], [host, host]),
        "KeyedOutput": ("fail", [2, 0], [host, host]),
    }, rows
    assert rows["GoodOutput"]["transport"] == "dist"
    assert {"name": "ids", "dtype": "int64", "shape": [2, 3]} in rows["GoodOutput"]["tensors"]


def test_pp3_a_failure_on_the_receiving_rank_names_rank_0(pp3):
    launched, _ = pp3
    message = launched.rows()["KeyedOutput"]["message"]
    assert message.startswith(f"through plug.keyed.KeyedObserver: rank 0 ({socket.gethostname()}): "
                              "pop_auxiliary_output_from_pp_tensors: KeyError: 'score': "
                              "plug.keyed.KeyedObserver.from_pp_tensors read it at "), message


def test_pp3_every_rank_exits_with_the_same_code(pp3):
    launched, leftovers = pp3
    assert launched.code == 1, launched.stderr[-3000:]
    assert launched.rank_exits() == dict.fromkeys(range(3), ("backend gloo", 1))
    # torchrun signals the other ranks once one exits 1: none may be reported killed for it.
    assert "exitcode  : -" not in launched.stderr
    assert leftovers == []


# -- two nodes whose copies differ, a hang, and a rank that dies --------------------------------------------


@pytest.fixture(scope="module")
def nodes(tmp_path_factory, process_marker, leftover_processes):
    shared = {"good": GOOD, "hung": HUNG, "zdying": DYING, "zz_after": AFTER}  # the dying rank's rows come last
    copies = _two_nodes(tmp_path_factory, {
        "node-a": {**shared, "skew": _skew(sends_ids=True), "extra": GOOD.replace("Good", "Extra")},
        "node-b": {**shared, "skew": _skew(sends_ids=False)},  # another version of the plugin, without plug.extra
    })
    launched = _launch(copies, process_marker)
    return launched, _leftovers(process_marker, leftover_processes)


def test_identical_copies_pass_across_nodes(nodes):
    (node_a, node_b), _ = nodes
    rows = node_a.rows()
    for name in ("GoodOutput", "GoodObserver"):
        assert rows[name]["status"] == "pass", rows[name]["message"]
        assert (rows[name]["ranks"], rows[name]["hosts"]) == ([1, 0], ["node-b", "node-a"])
    assert node_b.stdout == ""  # rank 0 alone reports


def test_version_skew_fails_with_the_receivers_key_error(nodes):
    (node_a, _), _ = nodes
    row = node_a.rows()["SkewOutput"]
    assert row["status"] == "fail"
    assert row["message"].startswith("through plug.skew.SkewObserver: rank 0 (node-a): pop_auxiliary_output_from_pp_tensors: "
                                     "KeyError: 'ids': plug.skew.SkewObserver.from_pp_tensors read it at ")
    assert row["message"].endswith("but that key was not sent: the output sent 'scores'")
    assert (row["ranks"], row["hosts"]) == ([1, 0], ["node-b", "node-a"])


def test_a_module_missing_on_the_sending_node_names_that_rank(nodes):
    (node_a, _), _ = nodes
    rows = node_a.rows()
    assert rows["ExtraOutput"]["status"] == "error"
    assert rows["ExtraOutput"]["message"] == (
        "rank 1 (node-b): import plug.extra.ExtraOutput: ModuleNotFoundError: No module named 'plug.extra'")
    # The observer imports where it runs, on rank 0, and is judged alone there.
    assert rows["ExtraObserver"]["status"] == "skip"
    assert rows["ExtraObserver"]["message"].startswith("not reached: plug.extra.ExtraOutput failed")
    assert rows["ExtraObserver"]["ranks"] == [0]


def test_a_hang_on_the_sending_rank_fails_its_row_in_time(nodes):
    (node_a, _), _ = nodes
    row = node_a.rows()["HungOutput"]
    assert row["status"] == "fail"
    assert row["message"] == f"rank 1 (node-b): timed out after {TIMEOUT} s during add_auxiliary_output_to_pp_tensors"
    assert row["seconds"] < TIMEOUT + 5 + 5  # the class's limit, the driver's grace, and some slack


def test_a_dying_rank_fails_its_row_and_the_run(nodes):
    (node_a, node_b), leftovers = nodes
    rows = node_a.rows()
    lost = "rank 1 (node-b) left the run during add_auxiliary_output_to_pp_tensors: no sign of life"
    assert rows["DyingOutput"]["status"] == "fail"
    assert rows["DyingOutput"]["message"].startswith(lost)
    assert rows["DyingOutput"]["ranks"] == [1, 0]
    # The observer's row would have judged the observer alone; nothing runs once a rank is lost.
    for name in ("DyingObserver", "AfterOutput", "AfterObserver"):
        assert rows[name]["status"] == "error"
        assert f"not run: {lost}" in rows[name]["message"], name
        assert rows[name]["ranks"] == rows[name]["hosts"] == [], name
    assert (node_a.code, node_b.code) == (1, 1)
    assert node_a.rank_exits() == {0: ("backend gloo", 1)}
    assert node_b.rank_exits() == {}  # killed: it said nothing
    assert leftovers == []
