"""``verify --transport dist`` under a launcher: torchrun's ranks are the PP stages, on the nodes they run on.

A deployment's stages span several GPUs and often several machines, each with its own install of the
plugin, so what breaks between nodes (a plugin missing on one, another version on another, the backend and
devices the job really uses) shows only across them. Started by torchrun (``WORLD_SIZE``, ``RANK``,
``LOCAL_RANK``, ``MASTER_ADDR`` and ``MASTER_PORT`` set, as SLURM and Kubernetes jobs that run torchrun set
them), verify joins the launch's process group instead of starting ranks of its own. Every rank runs the
static pass over its own working copy; the ranks share what they found (``all_gather_object``, with any
usage error, so that every rank stops with the same one) and verify the union: rank 0's entry for a class
first, then the sender's, then any other rank's, so that a class one node lacks is still a row. Then
``stages.py`` runs the rows, rank 0 alone prints the report, and every rank exits with its exit code.

Torch-free at import: the CLI asks ``Launch.from_env`` before it knows that torch is there.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import signal
import socket
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import astuple, replace
from typing import TYPE_CHECKING, Any, TextIO

from ppaux_lint.runtime.run.plan import Plan, VerifyUsageError
from ppaux_lint.support.command import EXIT_ERROR
from ppaux_lint.support.errors import UsageError
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.runtime.terms.results import VerifyResult
    from ppaux_lint.runtime.terms.targets import VerifyTarget
    from ppaux_lint.runtime.torchrun.mailbox import Mailbox
    from ppaux_lint.runtime.torchrun.stages import Half, World

LAUNCH_ENV = ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
HOST_ENV = "PPAUX_LINT_HOST"
"""Names this rank's host in the report instead of its hostname (for nodes simulated on one machine)."""
SETUP_TIMEOUT = 600.0
"""For joining the group and for the slowest rank's static pass, which a huge project can make minutes long."""

Progress = Callable[..., "list[VerifyResult]"]
"""``progress(targets, run)``: calls ``run(on_start, on_result)`` and returns its results (the CLI's progress bar)."""


@dataclass(frozen=True)
class Launch:
    """This process's place in the launch, from the launcher's environment."""

    rank: int
    world_size: int
    local_rank: int
    master_addr: str
    master_port: int

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Launch | None:
        """The launch this process is part of, or None when no launcher started it."""
        if not all(env.get(name) for name in LAUNCH_ENV):
            return None
        values = {name: env[name] for name in LAUNCH_ENV}
        try:
            return cls(int(values["RANK"]), int(values["WORLD_SIZE"]), int(values["LOCAL_RANK"]),
                       values["MASTER_ADDR"], int(values["MASTER_PORT"]))
        except ValueError:
            shown = " ".join(f"{name}={value!r}" for name, value in values.items())
            raise VerifyUsageError(f"the launcher's environment is not a launch's: {shown}") from None


def host_name(env: Mapping[str, str] = os.environ) -> str:
    return env.get(HOST_ENV) or socket.gethostname()


def run_launched(launch: Launch, make_plan: Callable[[], Plan], report: Callable[[Plan, list[VerifyResult]], int],
                 progress: Progress, device: str) -> int:
    """Verify as one rank of ``launch``; return the exit code, the same on every rank.

    ``make_plan`` plans this rank's run (raising ``UsageError`` for what the user must fix); on rank 0,
    ``progress(targets, run)`` runs the rows and ``report(plan, results)`` prints them and returns the exit
    code. ``device`` is the ``--device`` asked for: ``auto`` and ``cuda`` mean this rank's own GPU.
    """
    if launch.world_size < 2:
        raise VerifyUsageError("the launch has 1 process, and a pipeline-parallel round trip needs 2 ranks: "
                               "start 2 or more (torchrun --nproc-per-node 2, or --nnodes 2)")
    from ppaux_lint.runtime import require_torch

    try:
        require_torch()
    except ImportError as exc:
        raise VerifyUsageError(str(exc)) from None
    import torch.distributed as dist

    host = host_name()
    try:
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=SETUP_TIMEOUT))
    except (RuntimeError, ValueError) as exc:
        where = f"{launch.master_addr}:{launch.master_port}"
        raise VerifyUsageError(f"cannot join the launch's process group at {where}: {exc}") from None
    try:
        code, note = _run(launch, host, make_plan, report, progress, device)
    finally:
        dist.destroy_process_group()
    announce_exit(launch, host, note, code, sys.stderr)
    return code


def announce_exit(launch: Launch, host: str, note: str, code: int, stream: TextIO) -> None:
    """Say this rank's exit code in one line, written in one call: the ranks share torchrun's stderr, and
    ``print`` writes the newline separately, which let another rank's line land inside this one."""
    stream.write(f"ppaux-lint verify: rank {launch.rank} of {launch.world_size} ({host}): {note}; "
                 f"exit code {code}\n")
    stream.flush()


def _run(launch: Launch, host: str, make_plan: Callable[[], Plan], report: Callable[[Plan, list[VerifyResult]], int],
         progress: Progress, device: str) -> tuple[int, str]:
    import torch.distributed as dist

    from ppaux_lint.runtime.run.verify import Exploration, Runner
    from ppaux_lint.runtime.torchrun.mailbox import Mailbox, RankLost
    from ppaux_lint.runtime.torchrun.stages import Half, World, follow

    plan, problem = None, ""
    try:
        plan = make_plan()
    except UsageError as exc:
        problem = str(exc)
    info: dict[str, Any] = {"host": host, "problem": problem, "namespace": uuid.uuid4().hex}
    if plan is not None:
        info.update(targets=[t.to_json() for t in plan.targets], helpers=plan.helpers.label,
                    device=rank_device(device, plan.device, launch.local_rank),
                    explore=astuple(plan.explore) if plan.explore else None, attn_tp_size=plan.attn_tp_size)
    infos: list[Any] = [None] * launch.world_size
    try:
        dist.all_gather_object(infos, info)
    except RuntimeError as exc:
        return 1, f"the launch's ranks did not all reach the start of the run ({' '.join(str(exc).split())})"
    for rank, other in enumerate(infos):
        if other["problem"]:
            raise VerifyUsageError(problem or f"rank {rank} ({other['host']}): {other['problem']}")
    assert plan is not None
    world = World(launch.rank, launch.world_size, tuple(i["host"] for i in infos),
                  (launch.master_addr, launch.master_port), f"ppaux-lint/{infos[0]['namespace']}",
                  _backend([(i["host"], i["device"]) for i in infos]))
    mail = Mailbox(launch.master_addr, launch.master_port, world.namespace, launch.rank)
    explore = Exploration(*infos[0]["explore"]) if infos[0]["explore"] else None  # rank 0's seed, on the sender
    runner = Runner(plan.paths, plan.helpers, explore=explore,
                    attn_tp_size=infos[0]["attn_tp_size"])  # rank 0's, as the sender cuts the stage for it
    half = Half(world, mail, runner, info["device"])
    try:
        try:
            if launch.rank == 0:
                code = _lead(world, mail, half, plan, merge_targets(infos), report, progress)
            else:
                code = follow(world, mail, half, plan.timeout, _agreed)
        except BaseException:
            half.discard()  # no waiting for a worker that may be stuck in project code
            raise
        half.close()
        return code, f"backend {world.backend}"
    except RankLost as lost:
        return 1, f"backend {world.backend}; {world.name(lost.rank)} left the run during {lost.step}: {lost.why}"
    finally:
        mail.close()


def _lead(world: World, mail: Mailbox, half: Half, plan: Plan, targets: list[VerifyTarget],
          report: Callable[[Plan, list[VerifyResult]], int], progress: Progress) -> int:
    from ppaux_lint.runtime.run.verify import verify
    from ppaux_lint.runtime.torchrun.stages import DIST, Leader

    leader = Leader(world, mail, half, plan.helpers)
    try:
        results = progress(targets, lambda on_start, on_result: verify(
            targets, device=half.device, transport=DIST, timeout=plan.timeout, helpers=plan.helpers,
            on_start=on_start, on_result=on_result, runner=leader))
        code = report(plan, [r if r.ranks is not None else replace(r, ranks=(), hosts=()) for r in results])
    except BaseException:
        with contextlib.suppress(RuntimeError):
            leader.end(EXIT_ERROR)
        raise
    _agreed()
    leader.end(code)
    return code


def _agreed() -> None:
    """Once the exit code is agreed, this rank ignores SIGTERM. As soon as one rank exits with a failure
    code, torchrun signals the others on its node, which are exiting with that same code and would be
    reported as killed instead. Ignored, not handled: Python restores the default action of a signal it
    handles while the interpreter shuts down, which is when the signal tends to arrive. (The report is
    out by now, and no process is started after this, so none inherits it.)"""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def merge_targets(infos: list[dict[str, Any]]) -> list[VerifyTarget]:
    """Every rank's classes, by name: rank 0's plan of a class first, then the sender's, then any other's."""
    from ppaux_lint.runtime.terms.targets import VerifyTarget

    order = [0, len(infos) - 1, *range(1, len(infos) - 1)]
    chosen: dict[str, dict[str, Any]] = {}
    for rank in order:
        for target in infos[rank]["targets"]:
            chosen.setdefault(target["symbol"], target)
    return [VerifyTarget.from_json(chosen[symbol]) for symbol in sorted(chosen)]


def rank_device(spec: str, resolved: str, local_rank: int) -> str:
    """``auto`` and ``cuda`` mean this rank's own GPU, ``cuda:LOCAL_RANK`` (torchrun's one process per GPU),
    modulo the GPUs this node has; ``cpu`` or an explicit ``cuda:N`` stays as asked."""
    if not resolved.startswith("cuda") or spec.strip().lower() not in ("auto", "cuda"):
        return resolved
    import torch

    return f"cuda:{local_rank % torch.cuda.device_count()}"


def _backend(places: list[tuple[str, str]]) -> str:
    """NCCL when every rank has a GPU of its own, as a GPU deployment's stages do; else gloo, through the host
    (``places`` are each rank's host and device)."""
    import torch.distributed as dist

    own_gpus = all(device.startswith("cuda") for _, device in places) and len(set(places)) == len(places)
    return "nccl" if own_gpus and dist.is_nccl_available() else "gloo"
