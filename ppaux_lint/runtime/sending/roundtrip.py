"""The two halves of a round trip, as the last and the first PP stage run them.

The sending half is what the last stage does (``add`` into a dict that also
carries other stage tensors); the receiving half is what the first stage does
(``pop`` with its own observer), followed by verify's pass criteria. They are
separate so that the ``dist`` transport can run them in separate processes;
what the receiving half needs to judge the result travels as a
``Shipment`` of CPU snapshots.
"""

from __future__ import annotations

import contextlib
import dis
import os
import sys
import sysconfig
import traceback
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

import ppaux_lint.runtime
from ppaux_lint.runtime.sending.causes import missing_key
from ppaux_lint.runtime.sending.compare import (
    Leaf,
    device_of,
    differences,
    flatten,
    is_tensor,
    on_cpu,
    tensor_difference,
    tensor_summary,
)
from ppaux_lint.runtime.sending.consume import Scene, consume, first_difference, host_verdict, wrote_nothing
from ppaux_lint.runtime.terms.helpers import BUNDLED_HELPERS, SGLANG_MODULE, Helpers
from ppaux_lint.runtime.terms.results import ERROR, FAIL, TensorInfo
from ppaux_lint.support.records import dataclass

# Frames in these directories (ppaux-lint's runtime, torch, the standard library) are never the project's
# code, so never where a failure "is".
_LIBRARY_DIRS = tuple(
    os.path.join(os.path.abspath(d), "")
    for d in (os.path.dirname(ppaux_lint.runtime.__file__), os.path.dirname(torch.__file__),
              sysconfig.get_paths()["stdlib"])
)
_DETAIL_LIMIT = 4000


class Outcome(Exception):
    """Ends a round trip early with a verdict other than pass.

    ``provoked`` marks an exception that the project's own code met working on
    its values (see the function ``provoked``), which matters when that code
    ran on a synthesised example: the example, not the code, may be what is
    wrong.
    """

    def __init__(self, status: str, message: str, detail: str = "", provoked: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.detail = detail
        self.provoked = provoked

    def within(self, variant: str) -> Outcome:
        """The same verdict, saying which of a class's examples (``with mask set``) it was on, if it has several."""
        if not variant:
            return self
        return Outcome(self.status, f"{variant}: {self.message}", self.detail, self.provoked)

    def to_verdict(self) -> dict[str, str]:
        """The verdict as one rank reports it to the other (over a channel or a process group)."""
        return {"status": self.status, "message": self.message, "detail": self.detail}

    @classmethod
    def from_verdict(cls, verdict: dict[str, Any]) -> Outcome:
        """The outcome another rank reported with ``to_verdict``."""
        return cls(verdict["status"], verdict["message"], verdict.get("detail", ""))


class Falsified(Outcome):
    """A round trip that failed on a variant ``--explore`` drew (``driving/explore.py``): the verdict on the shrunk
    variant, its ``counterexample`` as JSON, and a ``reproducer`` to paste."""

    def __init__(self, outcome: Outcome, counterexample: dict[str, Any], reproducer: str) -> None:
        super().__init__(outcome.status, outcome.message, outcome.detail, outcome.provoked)
        self.counterexample = counterexample
        self.reproducer = reproducer


Notify = Callable[[str, str], None]


class Steps:
    """Runs the named steps of a round trip and turns what they raise into an ``Outcome``.

    Each step is announced before it starts, with the status it earns if it
    goes wrong, so that when the process hangs or dies mid-step the driver
    still knows which step it was and whose fault that is. Whatever a step
    raises is its verdict, ``SystemExit`` and ``KeyboardInterrupt`` too: the
    project's code raising them ends its own round trip, nothing more (the
    class runs in a process of its own, where no one else's Ctrl-C arrives).
    """

    def __init__(self, notify: Notify | None = None) -> None:
        self._notify = notify or (lambda step, status: None)

    def announce(self, name: str, status: str) -> None:
        """Tell the driver a step began that runs elsewhere (in the ``dist`` peer)."""
        self._notify(name, status)

    @contextlib.contextmanager
    def step(self, name: str, status: str = FAIL,
             explain: Callable[[BaseException], str] | None = None) -> Iterator[None]:
        """``explain(exc)``, when it has words for what the step raised, says where and why instead of the
        bare place in the project's code."""
        self._notify(name, status)
        try:
            yield
        except Outcome:
            raise
        except BaseException as exc:  # the step's verdict, whatever the project's code raised
            where = where_in_project(exc)
            why = explain(exc) if explain is not None else ""
            raise Outcome(status, f"{name}: {describe(exc)}{f': {why}' if why else where}", format_detail(exc),
                          bool(where) and provoked(exc)) from exc


@dataclass
class Shipment:
    """What the receiving half compares against, from the sending side.

    ``others`` are snapshots (the receiving side must leave those tensors
    alone, so their values before are needed); ``sent`` and ``host`` are the
    original's own tensors, which nothing on the receiving side can reach
    once the transport has made new buffers. ``scene`` is the batch the
    original's host object consumed (``consume.py``), ``consumed`` what it
    wrote there (``None``: it has no ``consume``) and ``consume_error`` what
    its ``consume`` raised, if it did.
    """

    others: dict[str, torch.Tensor]
    sent: dict[str, torch.Tensor]
    host: dict[str, Leaf]
    scene: Scene | None = None
    consumed: Any = None
    consume_error: str = ""

    def to_cpu(self) -> Shipment:
        """A copy that unpickles in a process on any device, for the ``dist`` transport (``consumed`` is a
        snapshot, on the CPU already)."""
        parts = (on_cpu(part) for part in (self.others, self.sent, self.host))
        return Shipment(*parts, self.scene, self.consumed, self.consume_error)


OTHER_STAGE_TENSORS = ("hidden_states", "residual")


def send_half(
    output: Any, device: torch.device, steps: Steps, helpers: Helpers = BUNDLED_HELPERS,
    scene: Scene | None = None,
) -> tuple[dict[str, Any], Shipment, tuple[TensorInfo, ...]]:
    """Run ``helpers``' ``add`` on a stage dict like the scheduler's; return it, the shipment and the tensors'
    shapes. With a ``scene`` (a driven example's), the original's host object consumes it here, before
    anything crosses, as it would had the stage not been split. Other examples consume nothing: the plain
    values a host object writes (a label, a window) come from whoever built the example, and only a driven
    example was built by an observer configured as the rebuilding one is."""
    stage: dict[str, Any] = {
        name: torch.arange(8, dtype=torch.float32, device=device).reshape(2, 4) * (i + 1)
        for i, name in enumerate(OTHER_STAGE_TENSORS)
    }
    others = {name: tensor.cpu().clone() for name, tensor in stage.items()}
    with steps.step("add_auxiliary_output_to_pp_tensors"):
        helpers.add(stage, output)
    prefix = helpers.prefix
    sent = {key[len(prefix) :]: value.detach() for key, value in stage.items() if key.startswith(prefix)}
    infos = tuple(TensorInfo(name, *tensor_summary(tensor)) for name, tensor in sent.items())
    with steps.step("original.copy_to_host"):
        host_object = copy_to_host(output, device)
    host = flatten(host_object)
    consumed, consume_error = None, ""
    try:
        consumed = consume(host_object, scene) if scene is not None else None
    except Exception as exc:  # noqa: BLE001 - judged against the rebuilt output's consume, on the receiving side
        consume_error = describe(exc)
    return stage, Shipment(others, sent, host, scene, consumed, consume_error), infos


def receive_half(
    received: dict[str, Any], observer: Any, shipment: Shipment, device: torch.device, steps: Steps,
    helpers: Helpers = BUNDLED_HELPERS, notes: list[str] | None = None,
) -> Any:
    """Run ``helpers``' ``pop`` and check every pass criterion; raise an ``Outcome`` listing all that failed,
    else return the rebuilt output (which ``direct.round_trip`` hands to the caller's test). What passed but
    is worth saying (host copies that differ where ``consume`` writes the same, ``consume.host_verdict``) is
    appended to ``notes``.

    Whether the rebuilt output can be flattened again is asked of the same helpers' Protocol, so that an
    explicit subclass of SGLang's is judged as SGLang's helpers would judge it.
    """
    arrived = dict(received)
    given = [key[len(helpers.prefix):] for key in arrived if isinstance(key, str) and key.startswith(helpers.prefix)]
    with steps.step("pop_auxiliary_output_from_pp_tensors",
                    explain=lambda exc: missing_key(exc, given, helpers.prefix)):
        rebuilt = helpers.pop(received, observer)
    if rebuilt is None:
        raise Outcome(ERROR, "pop_auxiliary_output_from_pp_tensors found no auxiliary entries after the transport")
    problems = _stage_problems(received, arrived, shipment, helpers.prefix)
    if not isinstance(rebuilt, helpers.output_protocol):
        problems.append(f"the rebuilt {_type(rebuilt)} has no to_pp_tensors()")
    else:
        with steps.step("rebuilt.to_pp_tensors"):
            again = dict(rebuilt.to_pp_tensors())
        problems += _tensor_problems(shipment.sent, again, device)
    with steps.step("rebuilt.copy_to_host"):
        host_object = copy_to_host(rebuilt, device)
    host_differences = differences(shipment.host, flatten(host_object))
    written = _consume_difference(host_object, shipment, steps) if not problems else None
    failed, noted = host_verdict(host_differences, written)
    problems += failed
    if problems:
        raise Outcome(FAIL, "; ".join(problems))
    if notes is not None:
        notes += noted
    return rebuilt


def _consume_difference(host: Any, shipment: Shipment, steps: Steps) -> str | None:
    """Where what ``consume`` wrote for the rebuilt output differs from what it wrote for the original ("" where
    it does not), or ``None`` where nothing can be compared.

    Asked only when nothing else failed (a difference there already explains any here). When the original's
    own ``consume`` raised on the stand-in batch, the stand-in is what may be wrong, so there is nothing to
    compare; the rebuilt one's raising where the original's did not is the output's fault. A ``consume`` that
    wrote nothing on the stand-in batch vouches for nothing either.
    """
    if shipment.consume_error or shipment.scene is None:
        return None
    with steps.step("rebuilt host.consume"):
        consumed = consume(host, shipment.scene)
    if shipment.consumed is None or wrote_nothing(shipment.consumed, shipment.scene):
        return None
    return first_difference(shipment.consumed, consumed)


def copy_to_host(output: Any, device: torch.device) -> Any:
    """Call ``copy_to_host`` with a copy function like the scheduler's, and wait for the copies."""
    host = output.copy_to_host(to_host)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return host


def to_host(tensor: torch.Tensor) -> torch.Tensor:
    """Like SGLang's scheduler: CPU tensors pass through, device tensors go to (pinned) host memory."""
    if tensor.device.type == "cpu":
        return tensor
    host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=torch.cuda.is_available())
    host.copy_(tensor, non_blocking=True)
    return host


def _stage_problems(received: dict[str, Any], arrived: dict[str, Any], shipment: Shipment, prefix: str) -> list[str]:
    problems = []
    left = sorted(k for k in received if isinstance(k, str) and k.startswith(prefix))
    if left:
        problems.append(f"prefixed keys remain after pop: {', '.join(left)}")
    for name, snapshot in shipment.others.items():
        if name not in received:
            problems.append(f"pop removed the other stage tensor {name!r}")
        elif received[name] is not arrived[name]:
            problems.append(f"pop replaced the other stage tensor {name!r}")
        elif tensor_difference(snapshot, received[name]):
            problems.append(f"the other stage tensor {name!r} changed: {tensor_difference(snapshot, received[name])}")
    extra = sorted(str(k) for k in received if k not in shipment.others and k not in left)
    if extra:
        problems.append(f"pop left unexpected entries: {', '.join(extra)}")
    return problems


def _tensor_problems(sent: dict[str, torch.Tensor], again: dict[str, Any], device: torch.device) -> list[str]:
    problems = []
    missing = [repr(n) for n in sent if n not in again]
    extra = [repr(n) for n in again if n not in sent]
    if missing:
        problems.append(f"the rebuilt output's to_pp_tensors() lacks {', '.join(missing)}")
    if extra:
        problems.append(f"the rebuilt output's to_pp_tensors() has unexpected {', '.join(extra)}")
    for name, expected in sent.items():
        if name not in again:
            continue
        actual = again[name]
        if not is_tensor(actual):
            problems.append(f"the rebuilt {name!r} is not a tensor")
            continue
        difference = tensor_difference(expected, actual)
        if difference:
            problems.append(f"the rebuilt {name!r} differs: {difference}")
        if device_of(actual) != device:
            problems.append(f"the rebuilt {name!r} is on {device_of(actual)}, not {device}")
    return problems


def describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def format_detail(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return text[-_DETAIL_LIMIT:]


def where_in_project(exc: BaseException) -> str:
    """Where in the project's code the exception came from, if it did: the file and line, and the function by
    its qualified name (``VocabObserver.recall``), and when that is not the project's function that verify
    (or SGLang) called, that one too (``called from VocabObserver.from_pp_tensors``): the class and its hook."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        if _in_project(tb.tb_frame.f_code.co_filename):
            frames.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    if not frames:
        return ""
    (entry, _), (code, line) = frames[0], frames[-1]
    called = f", called from {_qualname(entry)}" if entry is not code else ""
    return f" (at {code.co_filename}:{line} in {_qualname(code)}{called})"


def _qualname(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)  # Python 3.11+


def provoked(exc: BaseException) -> bool:
    """Whether the values the project's code worked on may be what raised ``exc``: an ``Exception`` from an
    operation on them (an attribute one lacks, an index out of range, a shape torch refuses), which a
    realistic example might not provoke.

    Not one that the project's code raised itself with a ``raise`` statement (``raise RuntimeError(...)``,
    an ``assert``): that is the class's own verdict on what it was given, and any example that reaches it
    gets it. Nor a ``BaseException`` that is not an ``Exception`` (``SystemExit``, ``KeyboardInterrupt``):
    no value makes an operation raise those, only the code itself.
    """
    if not isinstance(exc, Exception):
        return False
    last = exc.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None or not _in_project(last.tb_frame.f_code.co_filename):
        return True
    return not any(instruction.offset == last.tb_lasti and instruction.opname == "RAISE_VARARGS"
                   for instruction in dis.get_instructions(last.tb_frame.f_code))


def _in_project(filename: str) -> bool:
    """Whether code in ``filename`` is the project's: not ppaux-lint's, torch's or the standard library's.

    SGLang's helper module, once loaded (by ``--helpers`` or by the project), is never the project's code
    either, wherever it is installed: a ``TypeError`` it raises calling a ``to_pp_tensors = None`` is a
    verdict on the class, not a failure of the project's code on a synthesised example.
    """
    helper_file = getattr(sys.modules.get(SGLANG_MODULE), "__file__", None)
    path = os.path.abspath(filename)
    return (not filename.startswith("<") and not path.startswith(_LIBRARY_DIRS)
            and (helper_file is None or path != os.path.abspath(helper_file)))


def _type(obj: Any) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"
