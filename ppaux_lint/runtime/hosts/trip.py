"""One round trip (or observer probe) in the worker's process, from imports to verdict.

The steps, their statuses and the phase they run in are announced as they
start, which is how the driver can blame the right step when this process
hangs or dies. An output with several examples (optional tensors left
``None``, then set) makes one round trip per example, and passes only if
every one does.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

import torch

from ppaux_lint.runtime.driving.examples import HOW_TO_PROVIDE, Example, instantiate
from ppaux_lint.runtime.driving.supply import Supply, drive_outputs, supply
from ppaux_lint.runtime.hosts.pair import ALONE, SEND, PairLink, PairSpec
from ppaux_lint.runtime.hosts.peer import ClassLink, ReceivingRank
from ppaux_lint.runtime.sending.roundtrip import (
    Falsified,
    Outcome,
    Shipment,
    Steps,
    describe,
    format_detail,
    receive_half,
    send_half,
    where_in_project,
)
from ppaux_lint.runtime.sending.transport import backend_for, local_transfer, pack, sender_device
from ppaux_lint.runtime.terms.helpers import BUNDLED_HELPERS, Helpers
from ppaux_lint.runtime.terms.results import (
    DRIVEN,
    DRIVING,
    ERROR,
    FAIL,
    PASS,
    RECEIVING,
    SENDING,
    SKIP,
    SURVIVED,
    TensorInfo,
    VerifyResult,
)
from ppaux_lint.runtime.terms.targets import ClassRef, VerifyTarget

IN_PROCESS = "in-process"
"""The transport of ppaux-lint's own warm-up round trip alone (``warmup.py``): both stages in this process.
Every run of a project's classes puts the first stage in a process of its own."""


def run_request(
    target: VerifyTarget,
    device: str,
    transport: str,
    timeout: float,
    notify: Any = None,
    helpers: Helpers = BUNDLED_HELPERS,
    pair: dict[str, Any] | None = None,
    explore: int = 0,
    seed: int = 0,
    receiver: ReceivingRank | None = None,
    attn_tp_size: int = 1,
) -> VerifyResult:
    """Run ``target``'s round trip (or, without an output, its observer probe) here, judged by ``helpers``;
    never raises.

    ``notify(step, status, phase)`` hears of each step before it starts. ``pair`` (a ``PairSpec``) makes
    this one rank's half of a launched run instead (see ``pair.py``); without one, every transport but
    ``IN_PROCESS`` sends to ``receiver``, the class's receiving rank, where the first stage runs; the
    class's group is left standing at the end, since the caller (``judge.py``) is a process the worker ends
    with the row. ``explore`` variants of the example, drawn from ``seed``, follow a passing round trip (see
    ``driving/explore.py``). Every transport sends each stage as SGLang does between stages of ``attn_tp_size``
    attention-TP ranks (see ``sending/transport.py``).
    """
    started = time.perf_counter()
    progress = _Progress(notify)
    steps = Steps(progress)
    deadline = time.monotonic() + timeout
    spec = PairSpec.from_json(pair) if pair else None
    trip = _Trip(target, device, steps, progress, helpers, explore, seed)
    status, detail, found, reproducer = PASS, "", None, ""
    try:
        message = _run(trip, spec, transport, deadline, receiver, attn_tp_size)
    except Outcome as outcome:
        status, message, detail = outcome.status, outcome.message, outcome.detail
        if isinstance(outcome, Falsified):
            found, reproducer = outcome.counterexample, outcome.reproducer
    except BaseException as exc:  # noqa: BLE001 - a harness bug must still yield a row
        where = where_in_project(exc)
        if where:  # the project's code raised it between steps (a host object's consume, a property): its own
            status, message = FAIL, f"{describe(exc)}{where}, raised after {progress.step}"
        else:
            status, message = ERROR, f"verify itself failed: {describe(exc)}"
        detail = format_detail(exc)
    return VerifyResult(
        symbol=target.symbol,
        status=status,
        message=message,
        device=device,
        transport=transport,
        tensors=trip.tensors,
        seconds=time.perf_counter() - started,
        detail=detail,
        phase=progress.phase,
        helpers=helpers.label,
        counterexample=found,
        reproducer=reproducer,
        example=trip.example,
    )


def _run(trip: _Trip, spec: PairSpec | None, transport: str, deadline: float,
         receiver: ReceivingRank | None, attn_tp_size: int) -> str:
    """Pick where the first stage runs, then run: in the receiving rank (every run on one machine), in another
    rank of a launch, or here (the worker's own warm-up, and a launched rank alone in its class)."""
    target, steps, helpers = trip.target, trip.steps, trip.helpers
    if spec is None and transport != IN_PROCESS:
        assert receiver is not None, "the first stage runs in the class's receiving rank"
        delivery = _Spawned(receiver, target.observer, deadline, steps, attn_tp_size, transport == "dist")
        try:
            return trip.run(delivery)
        finally:
            delivery.close(last=True)  # the worker ends this process with the row
    if spec is None or spec.role == ALONE:
        return trip.run(_Local(target.observer, steps, helpers, attn_tp_size))
    with PairLink(spec, torch.device(trip.device), deadline, steps, attn_tp_size) as link:
        if spec.role == SEND:
            return trip.run(link)
        assert target.observer is not None
        trip.progress.phase = RECEIVING
        link.receive(target.observer, helpers)
        return ""


class _Progress:
    """Forwards step announcements, stamped with the phase the round trip is in, and keeps the last one, which
    says where the project's code was when it raised outside any step."""

    def __init__(self, notify: Any) -> None:
        self._notify = notify
        self.phase = SENDING
        self.step = "the start of the round trip"

    def __call__(self, step: str, status: str) -> None:
        self.step = step
        if self._notify is not None:
            self._notify(step, status, self.phase)


class _Local:
    """In-process: fresh buffers on the target device, rebuilt by one observer for every example. Only
    ppaux-lint's own warm-up round trip (``warmup.py``) rebuilds so (a launched rank alone in its class never
    rebuilds): a project's observer would share this process's modules with the one its hooks ran in, which
    SGLang's stages never do."""

    def __init__(self, observer: ClassRef | None, steps: Steps, helpers: Helpers, attn_tp_size: int) -> None:
        self._ref = observer
        self._steps = steps
        self._helpers = helpers
        self._attn_tp_size = attn_tp_size
        self._observer: Any = None

    def sender_device(self, device: torch.device) -> torch.device:
        return device

    def deliver(self, stage: dict[str, Any], shipment: Shipment, device: torch.device,
                example: Example) -> list[str]:
        assert self._ref is not None
        if self._observer is None:
            self._observer = instantiate(self._ref, device, self._steps)
        with self._steps.step("transport", ERROR):
            received = local_transfer(stage, device, self._attn_tp_size)
        notes: list[str] = []
        receive_half(received, self._observer, shipment, device, self._steps, self._helpers, notes)
        return notes


class _Spawned:
    """The first stage in the class's receiving rank, a process of its own (``peer.py``) that builds its own
    observer and imports the project afresh, over a group of the class's own, made when its first example
    crosses. ``across_devices`` (``--transport dist``) lets the two ranks take two GPUs over NCCL where there
    are two; otherwise both stages use the target device, linked by gloo."""

    def __init__(self, receiver: ReceivingRank, observer: ClassRef | None, deadline: float, steps: Steps,
                 attn_tp_size: int, across_devices: bool) -> None:
        self._receiver = receiver
        self._ref = observer
        self._deadline = deadline
        self._steps = steps
        self._attn_tp_size = attn_tp_size
        self._across_devices = across_devices
        self._link: ClassLink | None = None

    def _backend(self, device: torch.device) -> str:
        return backend_for(device) if self._across_devices else "gloo"

    def sender_device(self, device: torch.device) -> torch.device:
        return sender_device(device, self._backend(device))

    def deliver(self, stage: dict[str, Any], shipment: Shipment, device: torch.device,
                example: Example) -> list[str]:
        assert self._ref is not None
        parcel = pack(stage, self._attn_tp_size)  # a refused stage fails before the receiving rank hears of it
        if self._link is not None and self._link.out_of_step:  # an earlier example broke it (while exploring)
            self._link.close()
            self._link = None
        if self._link is None:
            self._link = self._receiver.open(self._ref, device, self._backend(device), self._deadline, self._steps)
        return self._link.deliver(parcel, shipment, self._steps)

    def close(self, last: bool = False) -> None:
        if self._link is not None:
            self._link.close(last)


class _Delivery(Protocol):
    """How the stage dict reaches the observer, and on which device the sender builds it; ``deliver`` returns
    the notes on a pass (``roundtrip.receive_half``)."""

    def sender_device(self, device: torch.device) -> torch.device: ...

    def deliver(self, stage: dict[str, Any], shipment: Shipment, device: torch.device,
                example: Example) -> list[str]: ...


class _Trip:
    """A round trip's state, kept on an object so that what it learnt (the tensors sent) outlives a failure."""

    def __init__(self, target: VerifyTarget, device: str, steps: Steps, progress: _Progress,
                 helpers: Helpers, explore: int = 0, seed: int = 0) -> None:
        self.target = target
        self.explore = explore
        self.seed = seed
        self.device = device
        self.steps = steps
        self.progress = progress
        self.helpers = helpers
        self.tensors: tuple[TensorInfo, ...] = ()
        self.example = ""
        self.notes: list[str] = []  # what passing examples' receiving halves noted, each after its variant

    def run(self, delivery: _Delivery) -> str:
        target = self.target
        target_device = torch.device(self.device)
        if target.output is None:
            return self.probe(target_device)
        here = delivery.sender_device(target_device)
        if here.type == "cuda":
            torch.cuda.set_device(here)
        self.progress.phase = DRIVING  # the producer's hooks run: a failure here is the observer's
        try:
            drove = drive_outputs(target, here, self.steps)
        except Outcome:
            self.example = DRIVEN  # a hook raised at some drives, while others made what the row judges
            raise
        self.progress.phase = SENDING
        supplied = supply(target, here, self.steps, drove)
        examples = supplied.examples
        self.example = "+".join(dict.fromkeys(e.how for e in examples))
        consumed: list[tuple[Example, str]] = []
        for example in examples:
            try:
                consumed.append((example, self.trip(example, here, target_device, delivery)))
            except Outcome as outcome:
                if not example.variant:
                    raise
                raise outcome.within(example.variant) from None
        consume_note = _consume_verdict(consumed)
        if target.observer is None:
            raise Outcome(SKIP, f"{_unpaired(target.output.symbol, len(self.tensors))} ({supplied.note})")
        notes = [supplied.note] + [e.variant for e in examples if e.how != DRIVEN and e.variant] + consume_note
        host_notes = _first_of(self.notes)  # before exploring, whose variants' notes go unsaid
        notes += host_notes
        if self.explore:
            consumes = any(example.scene is not None and not error for example, error in consumed)
            notes.append(self.explored(supplied, examples[-1], here, target_device, delivery, consumes))
        survived = f"{_count(len(self.tensors))} {'' if host_notes else 'and the host copy '}{SURVIVED}"
        return f"{survived} ({'; '.join(notes)})"

    def explored(self, supplied: Supply, example: Example, here: torch.device, target_device: torch.device,
                 delivery: _Delivery, consumes: bool) -> str:
        """Explore around the examples: by driving the observer with drawn inputs when they were driven, else
        around the example with the most tensors set; the row keeps the base example's tensors. A drawn
        drive whose host ``consume`` raises fails when the base drives' did not (``consumes``), as
        ``_consume_verdict`` judges the base ones.

        Hypothesis is imported only here, so that a worker that does not explore runs without it."""
        tensors = self.tensors

        def judge(value: Example) -> None:
            error = self.trip(value, here, target_device, delivery)
            if error and consumes:
                raise Outcome(FAIL, f"host.consume(batch, commits) raised {error}, which it did not at the base "
                                    "drives, so SGLang's first stage raises there too")

        try:
            if supplied.observer is not None and supplied.drives:
                from ppaux_lint.runtime.driving.explore_drive import explore_drives

                return explore_drives(supplied.observer, type(example.value), judge, self.explore, self.seed,
                                      here, self.steps)
            from ppaux_lint.runtime.driving.explore import explore

            return explore(example.value, lambda value: judge(Example(value, False)), self.explore, self.seed)
        finally:
            self.tensors = tensors

    def trip(self, example: Example, here: torch.device, target_device: torch.device, delivery: _Delivery) -> str:
        """One example's round trip; without an observer, only its sending half. Returns what the original's
        ``consume`` raised, if it did (``_consume_verdict`` judges that across the examples)."""
        self.progress.phase = SENDING
        try:
            stage, shipment, self.tensors = send_half(example.value, here, self.steps, self.helpers, example.scene)
        except Outcome as outcome:
            if example.synthesised and outcome.provoked:
                raise Outcome(SKIP, f"{outcome.message}, on a synthesised example that may not be realistic; "
                              f"{HOW_TO_PROVIDE}", outcome.detail) from None
            raise
        self.progress.phase = RECEIVING
        if self.target.observer is not None:
            noted = delivery.deliver(stage, shipment, target_device, example)
            self.notes += [f"{example.variant}: {note}" if example.variant else note for note in noted]
        return shipment.consume_error

    def probe(self, device: torch.device) -> str:
        """An observer with no output to pair: it can still prove that it cannot take part at all."""
        assert self.target.observer is not None
        if device.type == "cuda":
            torch.cuda.set_device(device)
        observer = instantiate(self.target.observer, device, self.steps)
        self.progress.phase = RECEIVING
        if not isinstance(observer, self.helpers.observer_protocol):
            # pop refuses such an observer before it looks at the tensors, so any entry proves it.
            with self.steps.step("pop_auxiliary_output_from_pp_tensors"):
                self.helpers.pop({self.helpers.prefix + "probe": torch.zeros(1)}, observer)
        raise Outcome(SKIP, self.target.reason or "no output to rebuild")


def _consume_verdict(consumed: list[tuple[Example, str]]) -> list[str]:
    """Judge what the originals' ``consume`` raised on the stand-in batch, across a row's examples.

    Raising at some driven batches while the others consume fine is the host object's own failure, which
    SGLang's first stage meets at that batch, PP or not: the row fails. Raising at every batch may be the
    stand-in batch's doing (a request field it lacks), so what ``consume`` writes goes uncompared, and the
    row says so instead of passing in silence.
    """
    raised = [(example, error) for example, error in consumed if error]
    if not raised:
        return []
    example, error = raised[0]
    fine = [e.variant for e, failed in consumed if e.scene is not None and not failed]
    if fine:
        raise Outcome(FAIL, f"{example.variant}: host.consume(batch, commits) raised {error} ({', '.join(fine)} "
                            "consumed fine), so SGLang's first stage raises there too")
    return [f"consume(batch, commits) raised on the stand-in batch for every example, so what it writes was not "
            f"compared: {error}"]


def _first_of(notes: list[str]) -> list[str]:
    """The first example's note, and how many more examples had one: they say much the same, batch by batch."""
    if not notes:
        return []
    more = len(notes) - 1
    return [notes[0] + (f" (the same at {more} more example{'s' if more != 1 else ''})" if more else "")]


def _unpaired(symbol: str, count: int) -> str:
    return (
        f"no observer rebuilds it, so only the sending half ran ({_count(count)} added); to run the round "
        f'trip, name its observer in [tool.ppaux-lint.verify.pairs] ("{symbol}" = "pkg.mod.Observer")'
    )


def _count(n: int) -> str:
    return f"{n} tensor{'s' if n != 1 else ''}"
