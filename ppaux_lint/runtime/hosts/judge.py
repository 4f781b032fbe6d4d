"""The process that judges one class: a fork of the verify worker, started for that class alone.

It runs one request (``trip.run_request``), reports it, and is then ended by the worker with everything it
started. So whatever the class's code leaves behind in its process (an alarm it scheduled, a thread, a signal
handler, a patched module, a process it forked) ends with the class's row and never reaches another class.
Where the worker cannot fork safely, this is a fresh interpreter instead, which imports what a fork would
have had already.

Unless it is one rank's half of a launch (where the other stage is another rank), it first starts its
receiving rank (``peer.py``), the first PP stage, the same way, before any of the project's code runs here:
the rank starts untouched, and imports the project and builds its observer for itself, as SGLang's first
stage does in a process of its own. A rank started again later, after the first broke, is a fresh
interpreter: a fork by then would carry whatever the project's code left in this process's modules.
"""

from __future__ import annotations

import functools
import json
import sys

from ppaux_lint.runtime.guard.procs import Channel, Child
from ppaux_lint.runtime.hosts.worker import STAGES
from ppaux_lint.runtime.terms.helpers import load_helpers
from ppaux_lint.runtime.terms.targets import VerifyTarget

RECEIVER = "ppaux_lint.runtime.hosts.receiver"
"""The receiving rank, where the first stage runs (see ``peer.py``)."""


def main(argv: list[str]) -> None:
    """Judge the one request the worker sends; ``argv`` is the worker's: the project's paths (JSON), the
    helpers' source, and ``STAGES`` unless the worker serves one rank of a launch."""
    channel = Channel()
    spawn = functools.partial(Child, RECEIVER, argv[:2], own_group=False, die_with_parent=True,
                              leave_behind=(channel,))
    started = spawn(fork=True) if argv[2:] == [STAGES] else None
    paths = json.loads(argv[0])
    if sys.path[:len(paths)] != paths:  # a fork of the worker has them first already
        sys.path[:0] = paths
    try:
        from ppaux_lint.runtime.hosts.peer import ReceivingRank
        from ppaux_lint.runtime.hosts.trip import run_request

        helpers = load_helpers(argv[1])
    except BaseException as exc:  # noqa: BLE001 - reported to the driver instead
        channel.send({"event": "fatal", "message": f"{type(exc).__name__}: {exc}"})
        return
    request = next(channel.requests(), None)
    if request is None:
        return
    channel.send({"event": "started"})
    result = run_request(
        VerifyTarget.from_json(request["target"]),
        request["device"],
        request["transport"],
        float(request["timeout"]),
        lambda step, status, phase: channel.send({"event": "step", "step": step, "status": status, "phase": phase}),
        helpers,
        request.get("pair"),
        int(request.get("explore", 0)),
        int(request.get("seed", 0)),
        ReceivingRank(spawn, started),
        attn_tp_size=int(request.get("attn_tp_size", 1)),
    )
    channel.send({"event": "result", "result": result.to_wire()})
