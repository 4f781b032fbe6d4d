"""The round trip of the caller's own instances, in the caller's process: ``round_trip`` and ``pp_round_trip``.

``verify`` builds its own examples and judges them in a worker, reporting a row. A user's test already has
a realistic output and a configured observer, and wants the rebuilt output back to assert on, or SGLang's
exception to ``pytest.raises``. So this runs verify's own halves (``send_half`` and ``receive_half``) over
one of its transports, here, and turns their verdicts back into what raised: the exception itself when the
helpers or the project's code raised one (the ``Outcome`` it became says so by its ``__cause__``), else a
``RoundTripFailed`` with verify's message.

The caller's own observer rebuilds, in the caller's process, on purpose (the test holds both instances and
wants the result there), so state the observer keeps in this process (a module dict its hooks filled) is
there for the rebuild, as it is not on SGLang's first stage: ``verify`` runs the first stage in a process of
its own for that (``hosts/peer.py``), and docs/pytest.md says what this round trip does not catch.

Either comes out of ``round_trip`` without ppaux-lint's own frames in its traceback, so that a failing test
shows the caller's line, then the project's code that raised if any, then the error: the machinery that
ran the round trip stands between those and says nothing the message does not (``__tracebackhide__`` hides
``round_trip``'s own frame from pytest).
"""

from __future__ import annotations

import os
import types
import warnings
from collections.abc import Callable
from typing import Any

import torch

import ppaux_lint
from ppaux_lint.runtime.sending.roundtrip import Falsified, Outcome, Steps, receive_half, send_half
from ppaux_lint.runtime.sending.transport import local_transfer
from ppaux_lint.runtime.terms.devices import resolve_device
from ppaux_lint.runtime.terms.helpers import AUTO, load_helpers

LOCAL, DIST = "local", "dist"
DIST_TIMEOUT = 60.0
_OWN_CODE = os.path.join(os.path.dirname(os.path.abspath(ppaux_lint.__file__)), "")  # ppaux_lint/


class RoundTripFailed(AssertionError):
    """Nothing raised, yet the rebuilt output is not the one sent, or the stage dict was disturbed.

    The message is verify's (``copy_to_host differs: host.mask is missing``), so a test fails with the same
    words a ``verify`` row would carry. One that exploring found (``explore=``) carries, as in verify's JSON,
    the shrunk ``counterexample`` and the ``reproducer`` to paste, both in its message too.
    """

    def __init__(self, message: str, counterexample: dict[str, Any] | None = None, reproducer: str = "") -> None:
        super().__init__(message)
        self.counterexample = counterexample
        self.reproducer = reproducer


def round_trip(output: Any, observer: Any, *, device: str = "cpu", transport: str = LOCAL,
               helpers: str = AUTO, timeout: float = DIST_TIMEOUT, explore: int = 0,
               seed: int | None = None) -> Any:
    """Send ``output`` from the last PP stage and rebuild it with ``observer`` on the first; return the result.

    The path is verify's: ``add_auxiliary_output_to_pp_tensors`` into a stage dict that holds other stage
    tensors too, the transport (``local``: fresh buffers in this process; ``dist``: a real gloo link to a
    second process and back, see ``relay.py``) onto ``device`` (``cpu``, ``cuda``, ``cuda:N`` or ``auto``),
    then ``pop_auxiliary_output_from_pp_tensors`` with ``observer``, judged by ``helpers`` (``auto``: SGLang's
    own when they import). Whatever the helpers or the project's code raise is raised as it is, e.g.
    ``RuntimeError: auxiliary output does not support pipeline-parallel transport``; verify's pass criteria
    that fail without an exception raise ``RoundTripFailed``. ``timeout`` bounds the ``dist`` link.

    With ``explore``, that many variants of ``output`` follow it, as ``verify --explore`` draws them from
    ``seed`` (else a random one), over the local transport; the first that fails, shrunk, raises
    ``RoundTripFailed`` whatever it raised, so that the counterexample is in the message. The rebuilt
    ``output`` itself is returned.
    """
    __tracebackhide__ = True
    if transport not in (LOCAL, DIST):
        raise ValueError(f"unknown transport {transport!r}: use {LOCAL} or {DIST}")
    if explore and transport != LOCAL:
        raise ValueError(f"explore runs over the {LOCAL} transport only")
    target = torch.device(resolve_device(device))
    judges = load_helpers(helpers)
    if judges.warning:  # an installed SGLang that does not import: say so, as verify does
        warnings.warn(judges.warning, RuntimeWarning, stacklevel=2)

    def judged(value: Any) -> Any:
        steps = Steps()
        stage, shipment, _ = send_half(value, target, steps, judges)
        if transport == DIST:
            from ppaux_lint.runtime.caller.relay import relay_transfer

            received = relay_transfer(stage, shipment, target, timeout)
        else:
            received = local_transfer(stage, target)
        return receive_half(received, observer, shipment, target, steps, judges)

    try:
        rebuilt = judged(output)
    except Outcome as outcome:
        failure = outcome
    else:
        if explore:
            _explore(output, judged, explore, seed)
        return rebuilt
    cause = failure.__cause__
    if cause is None:
        raise RoundTripFailed(failure.message)
    raise cause.with_traceback(_outside_ppaux_lint(cause.__traceback__))


def _outside_ppaux_lint(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` less the frames of ppaux-lint's own code (the helpers, the halves, the transport)."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_OWN_CODE):
            kept.append(tb)
        tb = tb.tb_next
    trimmed = None
    for entry in reversed(kept):
        trimmed = types.TracebackType(trimmed, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return trimmed


def _explore(output: Any, judged: Callable[[Any], Any], count: int, seed: int | None) -> None:
    __tracebackhide__ = True
    import random

    from ppaux_lint.runtime.driving.explore import explore

    try:
        explore(output, judged, count, random.randrange(2**32) if seed is None else seed)
    except Falsified as found:
        raise RoundTripFailed(f"{found.message}\n\nto reproduce, paste into the class:\n{found.reproducer}",
                              found.counterexample, found.reproducer) from None
