"""The verify driver: every target gets a row, whatever the project's code does.

Round trips run in a worker process (``hosts/worker.py``) that judges each class in
a process of its own, and the driver watches each class with a deadline. When
a class hangs, the driver has the worker kill it (and everything it started);
when its process dies, the worker says how; either way the driver blames the
step the class last announced, and the next class runs in a fresh process;
so one broken class costs one row, never the run. Torch-free: the driver
itself imports none of the project's code and none of torch.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from ppaux_lint.contract import pp_errors
from ppaux_lint.rules import by_code
from ppaux_lint.rules.base import MAY_NOT_REACH
from ppaux_lint.runtime.guard.procs import Child, ChildGone
from ppaux_lint.runtime.hosts.worker import STAGES
from ppaux_lint.runtime.run.parts import part_verdict
from ppaux_lint.runtime.terms.helpers import BUNDLED_HELPERS, Helpers
from ppaux_lint.runtime.terms.results import (
    ANNOTATIONS,
    DRIVING,
    ERROR,
    FAIL,
    OWN,
    PASS,
    RECEIVING,
    SENDING,
    SKIP,
    SURVIVED,
    VerifyResult,
)
from ppaux_lint.runtime.terms.targets import OBSERVER, OUTPUT, VerifyTarget
from ppaux_lint.support.records import dataclass

STARTUP_TIMEOUT = 120.0
"""For importing torch in a fresh worker, and again for starting a class's process (a fork, or where the worker
cannot fork, a fresh interpreter that imports torch), apart from any class's budget."""
STOP_WAIT = 5.0
"""How long the worker may take to kill a class the driver stopped before the driver replaces the worker."""
DIST_GRACE = 5.0
"""Extra time the driver allows past a class's budget, for the worker to report a hang in its ``dist`` peer."""
LOCAL_GRACE = 0.5
POLL = 0.2
"""How often a watched run (``Runner.supervise``) asks its watcher whether to go on."""


def verify(
    targets: Iterable[VerifyTarget],
    *,
    device: str,
    transport: str,
    timeout: float,
    paths: Sequence[str] = (),
    helpers: Helpers = BUNDLED_HELPERS,
    on_start: Callable[[VerifyTarget], None] | None = None,
    on_result: Callable[[VerifyResult], None] | None = None,
    runner: RoundTrips | None = None,
    explore: Exploration | None = None,
    attn_tp_size: int = 1,
) -> list[VerifyResult]:
    """Run each target's round trip and return one result per target, in order (see ``Session``)."""
    results = []
    with Session(device=device, transport=transport, timeout=timeout, paths=paths, helpers=helpers,
                 runner=runner, explore=explore, attn_tp_size=attn_tp_size) as session:
        for target in targets:
            if on_start is not None:
                on_start(target)
            row = session.run(target)
            results.append(row)
            if on_result is not None:
                on_result(row)
    return results


class Session:
    """A verify run fed one target at a time, for front ends that decide which rows run, and when.

    ``verify`` runs a list; pytest's items run one by one, some deselected (``-k``) and some never reached
    (``-x``), so the plugin asks for each row as it comes. Either way one worker serves every row, each
    round trip in a process of its own, and rows that share a round trip share one run. ``device`` is the
    run's (already resolved) device, which a target's own ``device`` overrides; ``paths`` go first on the
    worker's ``sys.path``; ``helpers`` (resolved, so ``bundled`` or ``sglang``) is what the workers load to
    judge. Leaving the ``with`` block on an exception (an interrupt) stops the worker at once, killing the
    class it runs, instead of waiting for that class, which may be stuck in the project's code. ``runner``
    replaces the worker with another way to run round trips (under a launcher, ``stages.Leader`` runs each
    across two ranks). ``explore`` has each worker round trip explore (``driving/explore.py``), and
    ``attn_tp_size`` has it send as SGLang does between stages of that many attention-TP ranks
    (``sending/transport.py``); both are for the worker's runner only.
    """

    def __init__(self, *, device: str, transport: str, timeout: float, paths: Sequence[str] = (),
                 helpers: Helpers = BUNDLED_HELPERS, runner: RoundTrips | None = None,
                 explore: Exploration | None = None, attn_tp_size: int = 1) -> None:
        self._runner = runner or Runner(list(paths), helpers, explore=explore, receiver=True,
                                        attn_tp_size=attn_tp_size)
        self._runs: dict[tuple, VerifyResult] = {}
        self._device = device
        self._transport = transport
        self._timeout = timeout

    def run(self, target: VerifyTarget) -> VerifyResult:
        return _row(target, self._runs, self._runner, self._device, self._transport, self._timeout)

    def close(self) -> None:
        """Let the worker finish; kill it only if it does not."""
        self._runner.close()

    def discard(self) -> None:
        """Stop the worker now, and with it the class it runs."""
        self._runner.discard()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self.discard()


def _row(
    target: VerifyTarget,
    runs: dict[tuple, VerifyResult],
    runner: RoundTrips,
    device: str,
    transport: str,
    timeout: float,
) -> VerifyResult:
    device = target.device or device
    if target.skip:
        return VerifyResult(target.symbol, SKIP, target.skip, device, transport, helpers=runner.helpers.label)
    if target.output is None:
        return _with_findings(runner.run(target, device, transport, timeout), target)
    key = target.run_key
    if key not in runs:
        trip = VerifyTarget(target.output.symbol, OUTPUT, target.output, target.observer, target.device,
                            producer=target.producer)
        runs[key] = runner.run(trip, device, transport, timeout)
    result = _nothing_to_send(replace(runs[key], symbol=target.symbol), target)
    if target.role == OUTPUT and result.status == PASS and target.observer is not None:
        # Named right after the round trip it made, before the note on how the examples were made.
        through = f"{SURVIVED} through {target.observer.symbol}"
        result = replace(result, message=result.message.replace(SURVIVED, through, 1))
    if target.part:
        return part_verdict(_with_findings(result, target), target)
    if target.observer is None:
        return _with_findings(result, target)
    output, observer = target.output.symbol, target.observer.symbol
    # What only this observer's after_sample makes (no known output class) is its own output, with no row of
    # its own: a failure to send it is the observer's alone.
    own = target.role == OBSERVER and target.output.returned_by == target.symbol
    shared = (output, observer) if result.status == FAIL and not own else ()
    if target.role == OUTPUT:
        if shared and result.phase == RECEIVING:  # the failure came on the observer's side: say whose
            result = replace(result, message=f"through {observer}: {result.message}")
        return _with_findings(replace(result, pair=shared), target)
    if own and result.status == SKIP:  # its hooks made nothing to send: probed as before
        probe = replace(target, output=None, reason=f"{target.reason}; {result.message}")
        return _with_findings(runner.run(probe, device, transport, timeout), probe)
    # A failure while this very observer's hooks made the examples is its own; any other before the first
    # stage's turn is the output's (or another producer's): SGLang's pipeline fails there all the same, so
    # the observer's row reports that one failure, unless the observer, probed alone, fails on its own too.
    drove = own or (result.phase == DRIVING and target.producer is not None
                    and target.producer.symbol == target.symbol)
    if result.phase in (SENDING, DRIVING) and result.status != PASS and not drove:
        before = f"fails before {observer}'s turn: {result.message}"
        reason = f"not reached: {output} failed before the observer's turn ({result.message})"
        probe = replace(target, output=None, reason=reason)
        alone = runner.run(probe, device, transport, timeout)
        if not shared or alone.status not in (PASS, SKIP):
            if shared:
                alone = replace(alone, message=f"{alone.message}; besides, {output} {before}")
            return _with_findings(alone, probe)
        return _with_findings(replace(result, message=f"rebuilds {output}, which {before}", pair=shared), target)
    return _with_findings(replace(result, message=f"rebuilds {output}: {result.message}", pair=shared), target)


_EMPTY_SENT = "add_auxiliary_output_to_pp_tensors: " + pp_errors.raised(pp_errors.EMPTY_OUTPUT)
_EMPTY_RAISES = f'SGLang raises "{pp_errors.EMPTY_OUTPUT}"'
_PROVIDE = "a ppaux_example classmethod, or a factory in [tool.ppaux-lint.verify.examples]"


def _nothing_to_send(result: VerifyResult, target: VerifyTarget) -> VerifyResult:
    """Say what an output that sent no tensor proves, which depends on the example that sent nothing.

    SGLang raises for every output whose ``to_pp_tensors()`` is empty, so the row stays a fail: what the
    example shows is what SGLang does with it. Whether production ever sends such an output is another
    matter. One that the observer's own hooks returned, or the user's own, or one synthesised with a tensor
    for every tensor parameter, says the class sends nothing as production makes it. One synthesised with
    its optional tensors left at their default ``None`` (``examples.build_examples`` tries it first) shows
    only that the class sends nothing in that state, which production reaches only if something makes such
    an output; and its sibling with them set never ran. The example is read off the variant that
    ``Outcome.within`` put before the step's message, and ``result.example``; an explored failure (its
    variant ``explored, ...``) says what it is already and is left as it is.
    """
    if result.status != FAIL or not result.message.endswith(_EMPTY_SENT):
        return result
    variant = result.message[: -len(_EMPTY_SENT)].removesuffix(": ")
    if variant.startswith("with ") and variant.endswith(" left None"):
        names = variant[len("with "):-len(" left None")]
        sets = f"at least one of {names}" if ", " in names else names
        why = (f"for the example built from the annotations with {names} left None (the constructor's default): "
               "its to_pp_tensors() sends no tensor then. That is a production failure only if such an output is "
               f"ever made; if the code that makes its outputs always sets {sets}, the example is at fault, not the "
               f"class (provide a realistic one: {_PROVIDE}). The example with {names} set was not tried")
    elif variant.startswith("driven at "):
        producer = target.producer.symbol if target.producer else "its observer"
        why = (f"for the output that {producer}.after_sample returned, {variant}: its to_pp_tensors() sends no "
               "tensor, so SGLang raises the same way in production whenever the observer returns such an output")
    elif not variant and OWN in result.example.split("+"):
        why = ("for your own example (ppaux_example or the configured factory): its to_pp_tensors() sends no "
               "tensor, so an output like it fails the same way on a real pipeline stage")
    elif (not variant and result.example == ANNOTATIONS) or (variant.startswith("with ") and variant.endswith(" set")):
        filled = f" {variant}" if variant else ""
        why = (f"for the example built from the annotations{filled}, which has a tensor for each tensor parameter "
               "its constructor has, if any: its to_pp_tensors() still sends none, so every output of the class "
               "fails this way in production, unless its tensors come from arguments made empty here, such as an "
               f"unparameterised list or dict (then provide an example: {_PROVIDE})")
    else:
        return result
    return replace(result, message=f"{_EMPTY_RAISES} {why}")


def _with_findings(result: VerifyResult, target: VerifyTarget) -> VerifyResult:
    """Relate the static findings on the classes involved to the verdict.

    A failure typically confirms them, so a failed row just names them. A pass beside a finding looks like a
    contradiction and mostly is not one: the finding may be about a path the examples never took, or about
    something no round trip can see. Each rule says which (``Rule.passed_despite``); for a code no rule has,
    the row says no more than that the examples may not reach the code.
    """
    found = [(code, ref.symbol, role) for role, ref in ((OUTPUT, target.output), (OBSERVER, target.observer))
             if ref for code in ref.findings]
    if not found or result.status not in (PASS, FAIL):
        return result
    if result.status == FAIL:
        codes = ", ".join(f"{code} on {symbol}" for code, symbol, _ in found)
        return replace(result, message=f"{result.message} (static findings: {codes})")
    observer = target.observer.symbol if target.observer else "the observer"
    notes = [_passed_despite(code, symbol, role, observer) for code, symbol, role in found]
    return replace(result, message="; ".join([result.message, *notes]))


def _passed_despite(code: str, symbol: str, role: str, observer: str) -> str:
    """One finding beside a pass: what check says (its rule's summary), then why this round trip passed all
    the same, in the rule's own words (``Rule.passed_despite``)."""
    rule = by_code(code)
    why = rule.passed_despite if rule else MAY_NOT_REACH
    fill = {"role": role, "method": "to_pp_tensors" if role == OUTPUT else "from_pp_tensors", "observer": observer}
    said = f" ({rule.summary.replace('`', '')})" if rule else ""
    return f"check reports {code} on {symbol}{said}; this round trip passed because {why.format(**fill)}"


class RoundTrips(Protocol):
    """What a ``Session`` runs its round trips with: a ``Runner``, or under a launcher a ``stages.Leader``."""

    helpers: Helpers

    def run(self, target: VerifyTarget, device: str, transport: str, timeout: float) -> VerifyResult: ...

    def close(self) -> None: ...

    def discard(self) -> None: ...


@dataclass(frozen=True)
class Exploration:
    """``--explore``: how many variants of each example to try after it passes, and the seed that draws them."""

    count: int
    seed: int


class Runner:
    """Owns at most one worker at a time, and replaces it when it dies.

    The worker runs each request in a process of its own and ends it (and everything it started) when the
    driver stops it, so a class that hangs costs its row and never the worker. The worker also ends with
    this process however it ends, so it needs no tie to a launcher's rank. With ``explore``, every request
    asks the worker to explore too, inside the class's own deadline. With ``receiver`` (every run on one
    machine, whatever its transport) each class's process starts its receiving rank, the first stage. Every
    request carries ``attn_tp_size``, the attention-TP size the worker sends for.
    """

    def __init__(self, paths: list[str], helpers: Helpers, *, explore: Exploration | None = None,
                 receiver: bool = False, attn_tp_size: int = 1) -> None:
        self._paths = paths
        self.helpers = helpers
        self._explore = explore
        self._attn_tp_size = attn_tp_size
        self._receiver = receiver
        self._worker: Child | None = None

    def run(self, target: VerifyTarget, device: str, transport: str, timeout: float) -> VerifyResult:
        return self.supervise(target, device, transport, timeout)[0]

    def start(self) -> str:
        """Have a worker ready, apart from any class's budget; return why none could start, or ""."""
        return self._ready_worker()[1]

    def supervise(self, target: VerifyTarget, device: str, transport: str, timeout: float, *,
                  pair: dict[str, Any] | None = None,
                  watch: Callable[[str], str | None] | None = None) -> tuple[VerifyResult, bool]:
        """Run one request; return its result and whether the worker failed to finish it.

        ``pair`` goes to the worker with the request (a launched half, see ``hosts/pair.py``). ``watch(step)``
        hears of each step and is asked every ``POLL`` seconds; a reason it returns stops the request, and
        becomes the result's message. Without a request that finished (it hung, died, was stopped or never
        started) the second value is true: a counterpart waiting on this one must not wait any longer. The
        class's deadline starts once its process has started (``STARTUP_TIMEOUT`` until then).
        """
        started = time.perf_counter()

        def verdict(status: str, message: str, detail: str = "", phase: str = SENDING) -> VerifyResult:
            return VerifyResult(target.symbol, status, message, device, transport,
                                seconds=time.perf_counter() - started, detail=detail, phase=phase,
                                helpers=self.helpers.label)

        worker, problem = self._ready_worker()
        if worker is None:
            return verdict(ERROR, f"the verify worker did not start: {problem}"), True
        request = {"target": target.to_json(), "device": device, "transport": transport, "timeout": timeout,
                   "attn_tp_size": self._attn_tp_size}
        if self._explore is not None:
            request.update(explore=self._explore.count, seed=self._explore.seed)
        worker.send({**request, "pair": pair} if pair else request)
        step, status, phase = "the start of the round trip", ERROR, SENDING
        budget = timeout + (DIST_GRACE if transport == "dist" else LOCAL_GRACE)
        deadline, running = time.monotonic() + STARTUP_TIMEOUT, False
        while True:
            left = deadline - time.monotonic()
            try:
                event = worker.receive(min(left, POLL) if watch else left)
            except TimeoutError:
                if time.monotonic() < deadline:  # a watched run's poll
                    reason = watch(step) if watch else None
                    if reason is None:
                        continue
                elif running:
                    reason = f"timed out after {timeout:g} s during {step}"
                else:
                    reason = f"the class's process did not start within {STARTUP_TIMEOUT:g} s"
                self._stop(worker)
                return verdict(status, reason, phase=phase), True
            except ChildGone:
                how, tail = worker.exit_description(), worker.stderr_tail()
                self.discard()
                return verdict(status, f"the worker process {how} during {step}", tail, phase), True
            kind = event.get("event")
            if kind == "started":
                deadline, running = time.monotonic() + budget, True
            elif kind == "step":
                step, status, phase = event["step"], event["status"], event.get("phase", phase)
                if watch:
                    watch(step)
            elif kind == "result":
                return VerifyResult.from_wire(event["result"]), False
            elif kind == "ended":  # the class's process died: the words are the worker's, as they always were
                return verdict(status, f"the worker process {event['how']} during {step}", event.get("detail", ""),
                               phase), True
            elif kind == "fatal":
                return verdict(ERROR, f"the verify worker did not start: {event['message']}"), True

    def _stop(self, worker: Child) -> None:
        """Have the worker end the request it runs, and wait for its word that it has; a worker that does not
        answer in time is replaced."""
        worker.send({"op": "stop"})
        deadline = time.monotonic() + STOP_WAIT
        while True:
            try:
                event = worker.receive(deadline - time.monotonic())
            except (TimeoutError, ChildGone):
                self.discard()
                return
            if event.get("event") in ("result", "ended", "fatal"):
                return

    def _ready_worker(self) -> tuple[Child | None, str]:
        if self._worker is not None:
            return self._worker, ""
        args = [json.dumps(self._paths), self.helpers.source, *([STAGES] if self._receiver else [])]
        worker = Child("ppaux_lint.runtime.hosts.worker", args, own_group=True)
        try:
            event = worker.receive(STARTUP_TIMEOUT)
        except TimeoutError:
            problem = f"no answer in {STARTUP_TIMEOUT:g} s"
        except ChildGone:
            problem = f"it {worker.exit_description()}: {worker.stderr_tail()[-300:]}"
        else:
            if event.get("event") == "ready":
                self._worker = worker
                return worker, ""
            problem = str(event.get("message", event))
        worker.kill()
        return None, problem

    def discard(self) -> None:
        """Stop the worker now: told by the end of its input, it kills the class it runs and exits."""
        if self._worker is not None:
            self._worker.close(grace=STOP_WAIT)
            self._worker = None

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
