"""The ranks' parts in a launched verify run: rank 0 leads the rows, the last rank sends, the others wait.

Rank 0 plays SGLang's first PP stage and the last rank its last stage, so every round trip runs between
them. ``verify``'s rows run as usual (a ``Session`` whose runner is a ``Leader``); for each round trip they
ask for, rank 0 posts a command naming each rank's part (``pair.SEND``, ``RECEIVE`` or ``ALONE``), the
ranks named run their ``Half`` in a worker of their own, and rank 0 makes the row from the halves
(``combine``), naming the rank and host where it broke. Middle ranks read each command and wait for the
next. The end command carries the exit code, so that every rank exits with the same one.

No rank process ever runs the project's code, only its workers do, so a hang or a crash there costs one
row, as in a single-machine run, and the launcher never sees a rank fail. A rank that dies or falls silent
all the same (its node went down, it was killed) fails the row it was on (``RankLost``) and stops the run:
the remaining rows say they were not run, and the survivors exit 1.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ppaux_lint.runtime.hosts.pair import ALONE, RECEIVE, SEND, PairSpec
from ppaux_lint.runtime.run.verify import DIST_GRACE, STARTUP_TIMEOUT, Runner
from ppaux_lint.runtime.terms.helpers import Helpers
from ppaux_lint.runtime.terms.results import DRIVING, ERROR, FAIL, PASS, RECEIVING, SENDING, VerifyResult
from ppaux_lint.runtime.terms.targets import VerifyTarget
from ppaux_lint.runtime.torchrun.mailbox import Mailbox, RankLost
from ppaux_lint.support.records import dataclass

DIST = "dist"
_MARGIN = 10.0  # beyond the longest a half may take, before a waiting rank stops believing in it
_END = "end"


@dataclass(frozen=True)
class World:
    """Who is where: this rank, the size of the launch, each rank's host, the store and its namespace."""

    rank: int
    size: int
    hosts: tuple[str, ...]
    store: tuple[str, int]
    namespace: str
    backend: str

    @property
    def sender(self) -> int:
        return self.size - 1

    def name(self, rank: int) -> str:
        return f"rank {rank} ({self.hosts[rank]})"


@dataclass(frozen=True)
class HalfResult:
    """One rank's half of a round trip. ``broken``: its worker did not finish (a counterpart still waiting
    on it must stop); ``stopped``: this half was stopped because its counterpart broke, so it is not the
    one to blame."""

    result: VerifyResult
    broken: bool = False
    stopped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"result": self.result.to_wire(), "broken": self.broken, "stopped": self.stopped}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HalfResult:
        return cls(VerifyResult.from_wire(data["result"]), bool(data["broken"]), bool(data["stopped"]))


def half_limit(timeout: float) -> float:
    """The longest one rank may take over its half, from the command to its result."""
    return 2 * STARTUP_TIMEOUT + timeout + DIST_GRACE + _MARGIN


class Half:
    """This rank's part of each round trip, run in its own worker and watched against the counterpart's."""

    def __init__(self, world: World, mail: Mailbox, runner: Runner, device: str) -> None:
        self._world = world
        self._mail = mail
        self._runner = runner
        self.device = device

    def run(self, n: int, target: VerifyTarget, role: str, timeout: float) -> HalfResult | None:
        """Run round trip ``n``'s half and post it; None when the counterpart's worker could not start.

        Both sides first have their worker ready and say so, so that starting one (importing torch and
        the project) never eats into the budget of the other's half, and neither runs without the other.
        """
        world, mail = self._world, self._mail
        counterpart = None if role == ALONE else (0 if role == SEND else world.sender)
        problem = self._runner.start()
        mail.put(f"ready/{n}/{world.rank}", problem)
        half: HalfResult | None = None
        device = target.device or self.device
        if counterpart is not None and mail.wait(f"ready/{n}/{counterpart}", counterpart, half_limit(timeout)):
            pass  # the counterpart says why; this rank has nothing to add
        elif problem:
            half = HalfResult(_verdict(target, ERROR, f"the verify worker did not start: {problem}", device), True)
        else:
            pair = PairSpec(role, *world.store, f"{world.namespace}/pair/{n}", world.backend)
            watch = _Watch(world, mail, n, counterpart)
            result, broken = self._runner.supervise(target, device, DIST, timeout, pair=pair.to_json(), watch=watch)
            half = HalfResult(result, broken, watch.stopped)
        mail.put(f"half/{n}/{world.rank}", half.to_json() if half else None)
        return half

    def close(self) -> None:
        self._runner.close()

    def discard(self) -> None:
        self._runner.discard()


class _Watch:
    """Publishes the worker's step; stops it once the counterpart's half broke or its rank fell silent."""

    def __init__(self, world: World, mail: Mailbox, n: int, counterpart: int | None) -> None:
        self._world = world
        self._mail = mail
        self._key = f"half/{n}/{counterpart}"
        self._counterpart = counterpart
        self.stopped = False

    def __call__(self, step: str) -> str | None:
        self._mail.publish_step(step)
        if self._counterpart is None:
            return None
        try:
            theirs = self._mail.poll(self._key)
        except RuntimeError as exc:
            why = f"the launch's store stopped answering ({exc})"
        else:
            if theirs is not None and theirs["broken"]:
                why = theirs["result"]["message"]
            elif not self._mail.alive(self._counterpart):
                why = "it fell silent"
            else:
                return None
        self.stopped = True
        return f"stopped: {self._world.name(self._counterpart)} failed its half: {why}"


class Leader:
    """Rank 0: runs each round trip the rows ask for across the ranks (a ``verify.RoundTrips``)."""

    def __init__(self, world: World, mail: Mailbox, half: Half, helpers: Helpers) -> None:
        self._world = world
        self._mail = mail
        self._half = half
        self.helpers = helpers
        self._n = 0
        self._lost = ""

    def run(self, target: VerifyTarget, device: str, transport: str, timeout: float) -> VerifyResult:
        world = self._world
        if self._lost:
            return _verdict(target, ERROR, f"not run: {self._lost}", device, self.helpers.label)
        started = time.perf_counter()
        n, self._n = self._n, self._n + 1
        roles = _roles(target, world.sender)
        self._mail.put(f"cmd/{n}", {"op": "run", "target": target.to_json(), "timeout": timeout,
                                    "roles": {str(rank): role for rank, role in roles.items()}})
        try:
            halves = self._halves(n, target, roles, timeout)
            for rank in range(1, world.size):
                if not self._mail.alive(rank):
                    raise RankLost(rank, self._mail.step_of(rank), "no sign of life")
        except RankLost as lost:
            self._lost = f"{world.name(lost.rank)} left the run during {lost.step}: {lost.why}"
            phase = SENDING if lost.rank == world.sender else RECEIVING
            return replace(_verdict(target, FAIL, self._lost, device, self.helpers.label), phase=phase,
                           seconds=time.perf_counter() - started, **self._crossed(roles))
        return replace(combine(halves, world), symbol=target.symbol, seconds=time.perf_counter() - started,
                       **self._crossed(roles))

    def end(self, code: int) -> None:
        """Tell every rank the run is over and with which exit code; wait until the live ones heard it."""
        self._mail.put(f"cmd/{self._n}", {"op": _END, "code": code})
        for rank in range(1, self._world.size):
            try:
                self._mail.wait(f"bye/{rank}", rank, _MARGIN)
            except RankLost:
                continue  # gone already: nothing to tell it

    def close(self) -> None:
        self._half.close()

    def discard(self) -> None:
        self._half.discard()

    def _halves(self, n: int, target: VerifyTarget, roles: dict[int, str], timeout: float) -> dict[int, HalfResult]:
        sender = self._world.sender
        halves: dict[int, HalfResult | None] = {}
        if 0 in roles:
            halves[0] = self._half.run(n, target, roles[0], timeout)
        if sender in roles:
            theirs = self._mail.wait(f"half/{n}/{sender}", sender, half_limit(timeout))
            halves[sender] = HalfResult.from_json(theirs) if theirs else None
        return {rank: half for rank, half in halves.items() if half is not None}

    def _crossed(self, roles: dict[int, str]) -> dict[str, tuple]:
        ranks = tuple(sorted(roles, reverse=True))  # the sender first
        return {"ranks": ranks, "hosts": tuple(self._world.hosts[r] for r in ranks)}


def follow(world: World, mail: Mailbox, half: Half, timeout: float, agreed: Callable[[], None]) -> int:
    """Every rank but 0: run the half each command gives this rank, until the end command's exit code;
    ``agreed()`` runs once it is known, before rank 0 learns that this rank has it."""
    n = 0
    while True:
        command = mail.wait(f"cmd/{n}", 0, half_limit(timeout) * 2)
        if command["op"] == _END:
            agreed()
            mail.put(f"bye/{world.rank}", True)
            return int(command["code"])
        timeout = float(command["timeout"])
        role = command["roles"].get(str(world.rank))
        if role is not None:
            half.run(n, VerifyTarget.from_json(command["target"]), role, timeout)
        n += 1


def combine(halves: dict[int, HalfResult], world: World) -> VerifyResult:
    """The row of a round trip from its halves: the sender's when it passed (its tensors, its message),
    else the half to blame, its message naming the rank and host.

    Blamed first: a sender that failed before anything crossed; then the receiver; then the sender's
    later failure (a sender whose link broke because the receiver died says less than the receiver). A half
    that was stopped because the other broke is blamed last. Under ``--explore`` the words are the sender's
    (the shrunk counterexample, with the receiver's verdict on it), the blame still the blamed half's.
    """
    base = halves.get(world.sender) or halves[0]
    failed = [(rank, half) for rank, half in halves.items() if half.result.status != PASS]
    if not failed:
        chosen, blamed = base.result, None
    else:
        blamed, half = min(failed, key=lambda item: (
            item[1].stopped, not (item[0] == world.sender and item[1].result.phase in (DRIVING, SENDING)),
            item[0] != 0))
        # An explored failure: the sender shrank it, so its row says more than the first the receiver saw.
        chosen = next((h.result for h in halves.values() if h.result.counterexample), half.result)
    message = chosen.message
    if blamed is not None and chosen.status in (FAIL, ERROR):
        message = f"{world.name(blamed)}: {message}"
    receiver = halves.get(0)
    labels = list(dict.fromkeys(h.result.helpers for h in halves.values()))
    helpers = labels[0] if len(labels) == 1 else ", ".join(
        f"{h.result.helpers} (rank {rank})" for rank, h in sorted(halves.items(), reverse=True))
    return replace(chosen, message=message, tensors=base.result.tensors or chosen.tensors, transport=DIST,
                   device=(receiver or base).result.device, helpers=helpers)


def _roles(target: VerifyTarget, sender: int) -> dict[int, str]:
    if target.output is None:  # an observer probed on its own, where observers run
        return {0: ALONE}
    if target.observer is None:  # only the sending half, where outputs are made
        return {sender: ALONE}
    return {sender: SEND, 0: RECEIVE}


def _verdict(target: VerifyTarget, status: str, message: str, device: str, helpers: str = "") -> VerifyResult:
    return VerifyResult(target.symbol, status, message, device, DIST, helpers=helpers)
