"""One round trip (or observer probe) in the worker's process, from imports to verdict.

The steps, their statuses and the phase they run in are announced as they
start, which is how the driver can blame the right step when this process
hangs or dies. An output with several examples (optional tensors left
``None``, then set) makes one round trip per example, and passes only if
every one does.
"""

from __future__ import annotations

import time
from typing import Any

import torch

from ppaux_lint.runtime.examples import HOW_TO_PROVIDE, Example, examples_of, instantiate
from ppaux_lint.runtime.helpers import BUNDLED_HELPERS, Helpers
from ppaux_lint.runtime.peer import dist_round_trip
from ppaux_lint.runtime.results import (
    ERROR,
    PASS,
    RECEIVING,
    SENDING,
    SKIP,
    TensorInfo,
    VerifyResult,
)
from ppaux_lint.runtime.roundtrip import (
    Outcome,
    Steps,
    describe,
    format_detail,
    receive_half,
    send_half,
)
from ppaux_lint.runtime.targets import VerifyTarget
from ppaux_lint.runtime.transport import backend_for, local_transfer, sender_device


def run_request(
    target: VerifyTarget,
    device: str,
    transport: str,
    timeout: float,
    notify: Any = None,
    paths: list[str] | None = None,
    helpers: Helpers = BUNDLED_HELPERS,
) -> VerifyResult:
    """Run ``target``'s round trip (or, without an output, its observer probe) here, judged by ``helpers``;
    never raises.

    ``notify(step, status, phase)`` hears of each step before it starts.
    """
    started = time.perf_counter()
    progress = _Progress(notify)
    steps = Steps(progress)
    trip = _Trip(target, device, transport, time.monotonic() + timeout, steps, progress, paths or [], helpers)
    status, detail = PASS, ""
    try:
        message = trip.run()
    except Outcome as outcome:
        status, message, detail = outcome.status, outcome.message, outcome.detail
    except BaseException as exc:  # noqa: BLE001 - a harness bug must still yield a row
        status, message, detail = ERROR, f"verify itself failed: {describe(exc)}", format_detail(exc)
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
    )


class _Progress:
    """Forwards step announcements, stamped with the phase the round trip is in."""

    def __init__(self, notify: Any) -> None:
        self._notify = notify
        self.phase = SENDING

    def __call__(self, step: str, status: str) -> None:
        if self._notify is not None:
            self._notify(step, status, self.phase)


class _Trip:
    """A round trip's state, kept on an object so that what it learnt (the tensors sent) outlives a failure."""

    def __init__(self, target: VerifyTarget, device: str, transport: str, deadline: float, steps: Steps,
                 progress: _Progress, paths: list[str], helpers: Helpers) -> None:
        self.target = target
        self.device = device
        self.transport = transport
        self.deadline = deadline
        self.steps = steps
        self.progress = progress
        self.paths = paths
        self.helpers = helpers
        self.tensors: tuple[TensorInfo, ...] = ()
        self._observer: Any = None  # the local transport's observer, one for every example as on a real stage

    def run(self) -> str:
        target = self.target
        target_device = torch.device(self.device)
        if target.output is None:
            return self.probe(target_device)
        here = target_device
        if self.transport == "dist":
            here = sender_device(target_device, backend_for(target_device))
        if here.type == "cuda":
            torch.cuda.set_device(here)
        examples = examples_of(target.output, here, self.steps)
        for example in examples:
            try:
                self.trip(example, here, target_device)
            except Outcome as outcome:
                if not example.variant:
                    raise
                raise Outcome(outcome.status, f"{example.variant}: {outcome.message}", outcome.detail,
                              outcome.in_project) from None
        if target.observer is None:
            raise Outcome(SKIP, _unpaired(target.output.symbol, len(self.tensors)))
        survived = f"{_count(len(self.tensors))} and the host copy survived the round trip"
        if len(examples) > 1:
            survived += f" ({'; '.join(e.variant for e in examples)})"
        return survived

    def trip(self, example: Example, here: torch.device, target_device: torch.device) -> None:
        """One example's round trip; without an observer, only its sending half."""
        steps, helpers = self.steps, self.helpers
        self.progress.phase = SENDING
        try:
            stage, shipment, self.tensors = send_half(example.value, here, steps, helpers)
        except Outcome as outcome:
            if example.synthesised and outcome.in_project:
                raise Outcome(SKIP, f"{outcome.message}, on a synthesised example that may not be realistic; "
                              f"{HOW_TO_PROVIDE}", outcome.detail) from None
            raise
        self.progress.phase = RECEIVING
        observer_ref = self.target.observer
        if observer_ref is None:
            return
        if self.transport == "dist":
            dist_round_trip(stage, shipment, observer_ref, target_device, self.deadline, steps, self.paths, helpers)
            return
        if self._observer is None:
            self._observer = instantiate(observer_ref, target_device, steps)
        with steps.step("transport", ERROR):
            received = local_transfer(stage, target_device)
        receive_half(received, self._observer, shipment, target_device, steps, helpers)

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


def _unpaired(symbol: str, count: int) -> str:
    return (
        f"no observer rebuilds it, so only the sending half ran ({_count(count)} added); to run the round "
        f'trip, name its observer in [tool.ppaux-lint.verify.pairs] ("{symbol}" = "pkg.mod.Observer")'
    )


def _count(n: int) -> str:
    return f"{n} tensor{'s' if n != 1 else ''}"
