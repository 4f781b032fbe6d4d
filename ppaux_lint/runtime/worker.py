"""The process that imports the project and runs its round trips, one request at a time.

A long-lived worker pays for importing torch and the project once, not once
per class; the driver replaces it only after it hangs or dies. Importing this
module needs no torch, so that a worker without torch can still say so.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from typing import Any

from ppaux_lint.runtime.procs import Channel
from ppaux_lint.runtime.results import (
    ERROR,
    PASS,
    RECEIVING,
    SENDING,
    SKIP,
    VerifyResult,
)
from ppaux_lint.runtime.targets import VerifyTarget


def run_request(
    target: VerifyTarget,
    device: str,
    transport: str,
    timeout: float,
    notify: Any = None,
    paths: list[str] | None = None,
) -> VerifyResult:
    """Run ``target``'s round trip (or, without an output, its observer probe) here; never raises.

    ``notify(step, status, phase)`` hears of each step before it starts.
    """
    from ppaux_lint.runtime.roundtrip import Outcome, Steps, describe, format_detail

    started = time.perf_counter()
    progress = _Progress(notify)
    steps = Steps(progress)
    trip = _Trip(target, device, transport, time.monotonic() + timeout, steps, progress, paths or [])
    status, detail = PASS, ""
    try:
        message = trip.run()
    except Outcome as outcome:
        status, message, detail = outcome.status, outcome.message, outcome.detail
    except BaseException as exc:
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
    def __init__(self, target: VerifyTarget, device: str, transport: str, deadline: float, steps: Any,
                 progress: _Progress, paths: list[str]) -> None:
        self.target = target
        self.device = device
        self.transport = transport
        self.deadline = deadline
        self.steps = steps
        self.progress = progress
        self.paths = paths
        self.tensors: tuple = ()

    def run(self) -> str:
        import torch

        from ppaux_lint.runtime.examples import HOW_TO_PROVIDE, instantiate
        from ppaux_lint.runtime.peer import dist_round_trip
        from ppaux_lint.runtime.roundtrip import Outcome, receive_half, send_half
        from ppaux_lint.runtime.transport import (
            backend_for,
            local_transfer,
            sender_device,
        )

        target, steps = self.target, self.steps
        target_device = torch.device(self.device)
        if target.output is None:
            return self.probe(target_device)
        here = target_device
        if self.transport == "dist":
            here = sender_device(target_device, backend_for(target_device))
        if here.type == "cuda":
            torch.cuda.set_device(here)
        output, synthesised = instantiate(target.output, here, steps)
        try:
            stage, shipment, self.tensors = send_half(output, here, steps)
        except Outcome as outcome:
            if synthesised and outcome.in_project:
                raise Outcome(SKIP, f"{outcome.message}, on a synthesised example that may not be realistic; "
                              f"{HOW_TO_PROVIDE}", outcome.detail) from None
            raise
        self.progress.phase = RECEIVING
        if target.observer is None:
            raise Outcome(SKIP, _unpaired(target.output.symbol, len(self.tensors)))
        if self.transport == "dist":
            dist_round_trip(stage, shipment, asdict(target.observer), target_device, self.deadline, steps, self.paths)
        else:
            observer, _ = instantiate(target.observer, target_device, steps)
            with steps.step("transport", ERROR):
                received = local_transfer(stage, target_device)
            receive_half(received, observer, shipment, target_device, steps)
        return f"{_count(len(self.tensors))} and the host copy survived the round trip through {target.observer.symbol}"

    def probe(self, device: Any) -> str:
        """An observer with no output to pair: it can still prove that it cannot take part at all."""
        import torch

        from ppaux_lint.runtime.core import (
            PP_OUTPUT_KEY_PREFIX,
            PipelineParallelSamplingObserver,
            pop_auxiliary_output_from_pp_tensors,
        )
        from ppaux_lint.runtime.examples import instantiate
        from ppaux_lint.runtime.roundtrip import Outcome

        assert self.target.observer is not None
        if device.type == "cuda":
            torch.cuda.set_device(device)
        observer, _ = instantiate(self.target.observer, device, self.steps)
        self.progress.phase = RECEIVING
        if not isinstance(observer, PipelineParallelSamplingObserver):
            # pop refuses such an observer before it looks at the tensors, so any entry proves it.
            with self.steps.step("pop_auxiliary_output_from_pp_tensors"):
                pop_auxiliary_output_from_pp_tensors({PP_OUTPUT_KEY_PREFIX + "probe": torch.zeros(1)}, observer)
        raise Outcome(SKIP, self.target.reason or "no output to rebuild")


def _unpaired(symbol: str, count: int) -> str:
    return (
        f"no observer rebuilds it, so only the sending half ran ({_count(count)} added); to run the round "
        f'trip, name its observer in [tool.ppaux-lint.verify.pairs] ("{symbol}" = "pkg.mod.Observer")'
    )


def _count(n: int) -> str:
    return f"{n} tensor{'s' if n != 1 else ''}"


def main(argv: list[str]) -> None:
    """Serve requests from the driver until it closes stdin."""
    channel = Channel()
    paths = json.loads(argv[0]) if argv else []
    for path in reversed(paths):
        sys.path.insert(0, path)
    try:
        import torch  # noqa: F401 - imported once, up front, so that a request's time is its own

        import ppaux_lint.runtime.examples
        import ppaux_lint.runtime.transport  # noqa: F401
    except BaseException as exc:
        channel.send({"event": "fatal", "message": f"{type(exc).__name__}: {exc}"})
        return
    channel.send({"event": "ready"})
    for request in channel.requests():
        result = run_request(
            VerifyTarget.from_json(request["target"]),
            request["device"],
            request["transport"],
            float(request["timeout"]),
            lambda step, status, phase: channel.send({"event": "step", "step": step, "status": status, "phase": phase}),
            paths,
        )
        channel.send({"event": "result", "result": result.to_wire()})
