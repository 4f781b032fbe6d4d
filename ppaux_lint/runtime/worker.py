"""The process that imports the project and runs its round trips, one request at a time.

A long-lived worker pays for importing torch and the project once, not once
per class; the driver replaces it only after it hangs or dies. It loads the
transport helpers the driver names (``bundled``, ``stand-ins`` or ``sglang``) once, after the
project's paths are in place, and every round trip it runs is judged by them.
This module itself imports no torch, so that a worker without torch can still
say so.
"""

from __future__ import annotations

import functools
import json
import sys

from ppaux_lint.runtime.helpers import load_helpers
from ppaux_lint.runtime.procs import Channel, Child
from ppaux_lint.runtime.targets import VerifyTarget

RECEIVER = "ppaux_lint.runtime.receiver"
"""The ``dist`` transport's receiving rank (see ``peer.py``)."""


def main(argv: list[str]) -> None:
    """Serve requests from the driver until it closes stdin; ``argv`` is the project's paths (JSON), the
    helpers' source, and ``dist`` when the run's transport is, to start the receiving rank right away."""
    channel = Channel()
    paths, source = json.loads(argv[0]), argv[1]
    spawn = functools.partial(Child, RECEIVER, argv[:2], own_group=False)
    started = spawn() if argv[2:] == ["dist"] else None  # it imports torch while this process does
    for path in reversed(paths):
        sys.path.insert(0, path)
    try:  # torch is imported here, up front, so that a request's time is its own
        from ppaux_lint.runtime.peer import ReceivingRank
        from ppaux_lint.runtime.trip import run_request

        helpers = load_helpers(source)
    except BaseException as exc:  # noqa: BLE001 - reported to the driver instead
        channel.send({"event": "fatal", "message": f"{type(exc).__name__}: {exc}"})
        return
    receiver = ReceivingRank(spawn, started)
    channel.send({"event": "ready"})
    try:
        for request in channel.requests():
            result = run_request(
                VerifyTarget.from_json(request["target"]),
                request["device"],
                request["transport"],
                float(request["timeout"]),
                lambda step, status, phase: channel.send(
                    {"event": "step", "step": step, "status": status, "phase": phase}),
                helpers,
                request.get("pair"),
                int(request.get("explore", 0)),
                int(request.get("seed", 0)),
                receiver,
                attn_tp_size=int(request.get("attn_tp_size", 1)),
            )
            channel.send({"event": "result", "result": result.to_wire()})
    finally:
        receiver.retire()
