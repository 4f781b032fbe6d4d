"""Verify's verdicts, as plain data that crosses process boundaries as JSON."""

from __future__ import annotations

from typing import Any

from ppaux_lint.support.records import dataclass

PASS = "pass"
FAIL = "fail"
SKIP = "skip"
ERROR = "error"
STATUSES = (PASS, FAIL, SKIP, ERROR)

DRIVEN = "driven"  # how a row's example was made: by its observer's own hooks,
OWN = "own"  # ... by the user (ppaux_example, a configured factory),
ANNOTATIONS = "annotations"  # ... or from the constructor's annotations

SURVIVED = "survived the round trip"  # what a passing round trip's message says, whatever precedes or follows

DRIVING = "driving"  # the phase in which the producing observer's hooks make the examples (on the sending side)
SENDING = "sending"  # the phase of a round trip that the output's own code runs in
RECEIVING = "receiving"  # ... and the one where the observer's code runs


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dtype: str  # torch's name without the "torch." prefix, e.g. "float32"
    shape: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TensorInfo:
        return cls(str(data["name"]), str(data["dtype"]), tuple(int(n) for n in data["shape"]))


@dataclass(frozen=True)
class VerifyResult:
    """The verdict on one class.

    ``message`` is one line for tables and JSON; ``detail`` holds what a
    person debugging it wants next (a traceback, a worker's last words) and
    goes only where there is room for it, such as the JUnit report. ``phase``
    says whether the round trip got as far as the observer, which decides
    whether an observer's row inherits the verdict. ``helpers`` names the
    transport helpers that judged it (``bundled``, ``sglang 0.5.23``), since
    the two can disagree (see ``helpers.py``). Under a launcher (``torchrun/launch.py``)
    ``ranks`` are the ranks the row's round trip ran on (sender first, as
    ``(2, 0)`` at pp-size 3; one rank for a half that runs alone; none for a
    row that never ran) and ``hosts`` their hosts; a single-machine run has
    neither (``None``). A failure that ``--explore`` found carries the shrunk ``counterexample`` (each
    tensor's shape, dtype and first values) and a ``reproducer``, a ``ppaux_example`` to paste. ``example``
    says how the examples that crossed were made (``driven``, ``own``, ``annotations``, several joined by
    ``+``; "" when none crossed). ``pair`` names the output and the observer of a round trip whose one failure
    both their rows report (``verify._row``), so that a report counts it once; ``()`` on any other row.
    """

    symbol: str
    status: str
    message: str
    device: str
    transport: str
    tensors: tuple[TensorInfo, ...] = ()
    seconds: float = 0.0
    detail: str = ""
    phase: str = ""
    helpers: str = ""
    ranks: tuple[int, ...] | None = None
    hosts: tuple[str, ...] | None = None
    counterexample: dict[str, Any] | None = None
    reproducer: str = ""
    example: str = ""
    pair: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The documented ``--output-format json`` object; ``ranks`` and ``hosts`` only under a launcher, ``pair``
        only on a row that shares its pair's failure."""
        data: dict[str, Any] = {
            "symbol": self.symbol,
            "status": self.status,
            "message": self.message,
            "device": self.device,
            "transport": self.transport,
            "tensors": [t.to_json() for t in self.tensors],
            "seconds": round(self.seconds, 6),
            "helpers": self.helpers,
            "example": self.example,
        }
        if self.ranks is not None:
            data.update(ranks=list(self.ranks), hosts=list(self.hosts or ()))
        if self.counterexample is not None:
            data.update(counterexample=self.counterexample, reproducer=self.reproducer)
        if self.pair:
            data.update(pair=list(self.pair))
        return data

    def to_wire(self) -> dict[str, Any]:
        """Everything, for the worker-to-driver channel."""
        return {**self.to_json(), "detail": self.detail, "phase": self.phase}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> VerifyResult:
        return cls(
            symbol=str(data["symbol"]),
            status=str(data["status"]),
            message=str(data["message"]),
            device=str(data["device"]),
            transport=str(data["transport"]),
            tensors=tuple(TensorInfo.from_json(t) for t in data.get("tensors", ())),
            seconds=float(data.get("seconds", 0.0)),
            detail=str(data.get("detail", "")),
            phase=str(data.get("phase", "")),
            helpers=str(data.get("helpers", "")),
            ranks=None if data.get("ranks") is None else tuple(int(r) for r in data["ranks"]),
            hosts=None if data.get("hosts") is None else tuple(str(h) for h in data["hosts"]),
            counterexample=data.get("counterexample"),
            reproducer=str(data.get("reproducer", "")),
            example=str(data.get("example", "")),
            pair=tuple(str(symbol) for symbol in data.get("pair", ())),
        )


def failures(results: list[VerifyResult]) -> int:
    """How many failures the failed rows report: the two rows of a pair that share one count once."""
    return len({r.pair or (r.symbol,) for r in results if r.status == FAIL})


def exit_code(results: list[VerifyResult], *, strict: bool) -> int:
    """1 when anything failed or errored (or, with ``strict``, was skipped), else 0."""
    bad = {FAIL, ERROR} | ({SKIP} if strict else set())
    return 1 if any(r.status in bad for r in results) else 0
