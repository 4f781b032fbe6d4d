"""Which kind of observer an output reaches: a sampling observer, and with it the next pipeline stage, or only
forward observers, which never cross one.

SGLang refuses to install a forward observer when ``pp_size > 1`` (its own unit tests check that), so what only
forward observers return never meets the PP helpers and needs no ``to_pp_tensors``. What a hook returns is the
inference's answer (``inference.py``), by any route: a constructor, an alternate constructor, a project function
or method at any depth, an attribute, a local; a return annotated with a base stands for that base and its
subclasses, and a hook's own annotation declares a route even where its body is a stub. An output is
forward-only when something routes it to a forward observer:

- a forward observer's ``after_forward`` returns it;
- it is constructed and handed to a forward observer's constructor (``Recording(DeviceOutput(...))``, or a
  local bound to ``DeviceOutput(...)``), for ``after_forward`` to hand back; or
- it is put straight on the result, ``forward_auxiliary_output=DeviceOutput(...)``;

and nothing shows a sampling observer returning it: no ``after_sample`` or ``from_pp_tensors`` returns it,
and it is not handed to a sampling observer's constructor. A class that both kinds return is a PP output like
any other. ``auxiliary_device_output=`` (the sampling result's field, read on the host) is neither.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import AFTER_FORWARD, AFTER_SAMPLE, FORWARD_OUTPUT_FIELD, FROM_PP
from ppaux_lint.facts.summary import FileSummary
from ppaux_lint.index.arguments import PARTIAL
from ppaux_lint.index.graph import Below
from ppaux_lint.index.inference import Inference, Values
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.index.graph import ProjectGraph


@dataclass
class Routes:
    """Per output class: the forward routes to it, and the sampling observers that return it (sorted names)."""

    forward: dict[str, tuple[str, ...]]
    sampled: dict[str, tuple[str, ...]]

    def forward_only(self, output: str) -> tuple[str, ...]:
        return () if output in self.sampled else self.forward.get(output, ())


def find_routes(index: ProjectGraph, inference: Inference, infos: Iterable[ClassInfo],
                silent: Collection[str] = ()) -> Routes:
    """``inference`` is the one about ``index``; ``infos`` are the classes worth classifying, which include every
    output and every observer; ``silent`` the observers whose ``after_sample`` never returns an output
    (``instances.no_output``), which route nothing, whatever their annotations declare."""
    infos = list(infos)
    outputs = [info for info in infos if info.is_output]
    heirs = _Heirs(index, outputs)
    forward: dict[str, set[str]] = {}
    sampled: dict[str, set[str]] = {}
    returns = inference.hook_returns
    for info in infos:
        if info.is_interface:
            continue  # a Protocol's stubs declare what implementations return; it is no observer of its own
        if info.forward_observer is not None:
            _credit(inference, heirs, returns(info.fqn, AFTER_FORWARD, declared=True), info.fqn, forward)
        for hook in (AFTER_SAMPLE, FROM_PP) if info.is_observer and info.fqn not in silent else ():
            _credit(inference, heirs, returns(info.fqn, hook, declared=True), info.fqn, sampled)
    _read_handoffs(index, frozenset(info.summary.name for info in outputs), forward, sampled)
    return Routes({o: tuple(sorted(r)) for o, r in forward.items()}, {o: tuple(sorted(r)) for o, r in sampled.items()})


class _Heirs:
    """The output classes a value can be an instance of, by the class it names: a lookup where a scan of every
    output per value cost a tenth of a second on a monorepo's thousand outputs. What lies below a class is
    ``Below``'s (graph.py), not a list per ancestor of every output: that was n * n / 2 entries for a chain."""

    def __init__(self, index: ProjectGraph, outputs: list[ClassInfo]) -> None:
        self._outputs = frozenset(output.fqn for output in outputs)
        self._below = Below(index, outputs)

    def of(self, fqn: str, with_subclasses: bool) -> list[str]:
        """The outputs that are ``fqn``, or (``with_subclasses``) derive from it."""
        own = [fqn] if fqn in self._outputs else []
        return own + list(self._below.of(fqn)) if with_subclasses else own


def _credit(inference: Inference, heirs: _Heirs, values: Values | None, route: str,
            table: dict[str, set[str]]) -> None:
    """Add ``route`` to each output the values can be an instance of (a subclass too, where they say so)."""
    for fqn, with_subclasses in inference.classes(values or ()):
        for output in heirs.of(fqn, with_subclasses):
            table.setdefault(output, set()).add(route)


def _read_handoffs(index: ProjectGraph, outputs: frozenset[str], forward: dict[str, set[str]],
                   sampled: dict[str, set[str]]) -> None:
    """Add the routes that handoffs show: to a forward observer or a result's forward field (``forward``), or
    to a sampling observer (``sampled``). ``outputs`` are the output classes' names."""
    for summary in list(index.modules.values()):  # resolving may load more modules, none with handoffs
        for handoff in summary.handoffs:
            if not _may_name(summary, handoff.constructs, outputs):
                continue  # most handoffs build something else: not worth resolving, which may load modules
            if handoff.through and index.resolve(summary.module, handoff.through, handoff.scope) != PARTIAL:
                continue  # a project function that happens to be called ``partial``
            output = index.resolve(summary.module, handoff.constructs, handoff.scope)
            if output is None or not index.is_output_class(output):
                continue
            callee = index.resolve(summary.module, handoff.callee, handoff.scope) or handoff.callee
            if handoff.keyword == FORWARD_OUTPUT_FIELD:
                forward.setdefault(output, set()).add(f"{callee}.{FORWARD_OUTPUT_FIELD}")
            elif callee in index.classes:
                receiver = index.classified(callee)
                if receiver.forward_observer is not None:
                    forward.setdefault(output, set()).add(callee)
                if receiver.is_observer:
                    sampled.setdefault(output, set()).add(callee)


def _may_name(summary: FileSummary, written: str, names: frozenset[str]) -> bool:
    """Whether ``written`` can name one of the classes called ``names`` in this file: it ends with one of the
    names, or starts with an alias the file's imports or assignments bind to one."""
    if written.rsplit(".", 1)[-1] in names:
        return True
    head = written.split(".", 1)[0]
    bound = [i.target for i in summary.imports if i.local == head]
    bound += [value for local, value in summary.assignments if local == head]
    return any(target.rsplit(".", 1)[-1] in names for target in bound)
