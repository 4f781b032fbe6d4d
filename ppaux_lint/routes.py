"""Which kind of observer an output reaches: a sampling observer, and with it the next pipeline stage, or only
forward observers, which never cross one.

SGLang refuses to install a forward observer when ``pp_size > 1`` (its own unit tests check that), so what only
forward observers return never meets the PP helpers and needs no ``to_pp_tensors``. An output is forward-only
when something routes it to a forward observer:

- a forward observer's ``after_forward`` constructs it in a return, or names it in its return annotation
  (``-> Optional[Capture]``, ``Capture | None``);
- it is constructed and handed to a forward observer's constructor (``Recording(DeviceOutput(...))``, or a
  local bound to ``DeviceOutput(...)``), for ``after_forward`` to hand back; or
- it is put straight on the result, ``forward_auxiliary_output=DeviceOutput(...)``;

and nothing shows a sampling observer returning it: no ``after_sample`` or ``from_pp_tensors`` constructs or
names it, and it is not handed to a sampling observer's constructor. A class that both kinds return is a PP
output like any other. ``auxiliary_device_output=`` (the sampling result's field, read on the host) is neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ppaux_lint.model import ClassInfo
from ppaux_lint.names import AFTER_FORWARD, AFTER_SAMPLE, FORWARD_OUTPUT_FIELD, FROM_PP
from ppaux_lint.summary import FileSummary

if TYPE_CHECKING:
    from ppaux_lint.index import ProjectIndex


def forward_only(index: ProjectIndex, infos: Iterable[ClassInfo]) -> dict[str, tuple[str, ...]]:
    """Each forward-only output class, with what routes it to forward observers (sorted). ``infos`` are the
    classes worth classifying, which include every output and every observer."""
    infos = list(infos)
    forward: dict[str, set[str]] = {}
    sampled: set[str] = set()
    for info in infos:
        if info.forward_observer is not None:
            for output in index.hook_outputs(info.fqn, AFTER_FORWARD):
                forward.setdefault(output, set()).add(info.fqn)
    _read_handoffs(index, frozenset(info.summary.name for info in infos if info.is_output), forward, sampled)
    if forward:  # what sampling observers return matters only then, and most projects have no forward observer
        for info in infos:
            for hook in (AFTER_SAMPLE, FROM_PP) if info.is_observer else ():
                sampled.update(index.hook_outputs(info.fqn, hook))
    return {output: tuple(sorted(routes)) for output, routes in forward.items() if output not in sampled}


def _read_handoffs(index: ProjectIndex, outputs: frozenset[str], forward: dict[str, set[str]],
                   sampled: set[str]) -> None:
    """Add the routes that handoffs show: to a forward observer or a result's forward field (``forward``), or
    to a sampling observer (``sampled``). ``outputs`` are the output classes' names."""
    for summary in list(index.modules.values()):  # resolving may load more modules, none with handoffs
        for handoff in summary.handoffs:
            if not _may_name(summary, handoff.constructs, outputs):
                continue  # most handoffs build something else: not worth resolving, which may load modules
            output = index.resolve(summary.module, handoff.constructs, handoff.scope)
            if output is None or not index.is_output_class(output):
                continue
            callee = index.resolve(summary.module, handoff.callee, handoff.scope) or handoff.callee
            if handoff.keyword == FORWARD_OUTPUT_FIELD:
                forward.setdefault(output, set()).add(f"{callee}.{FORWARD_OUTPUT_FIELD}")
            elif callee in index.classes:
                receiver = index.info(callee)
                if receiver.forward_observer is not None:
                    forward.setdefault(output, set()).add(callee)
                if receiver.is_observer:
                    sampled.add(output)


def _may_name(summary: FileSummary, written: str, names: frozenset[str]) -> bool:
    """Whether ``written`` can name one of the classes called ``names`` in this file: it ends with one of the
    names, or starts with an alias the file's imports or assignments bind to one."""
    if written.rsplit(".", 1)[-1] in names:
        return True
    head = written.split(".", 1)[0]
    bound = [i.target for i in summary.imports if i.local == head]
    bound += [value for local, value in summary.assignments if local == head]
    return any(target.rsplit(".", 1)[-1] in names for target in bound)
