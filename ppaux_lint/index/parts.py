"""Parts: output classes that SGLang never meets alone, because another output sends them inside its own mapping.

A container output is what the observer returns; its ``to_pp_tensors`` sends its parts' tensors with its own:
``{**self.top.to_pp_tensors(), "entropy": self.ent.values}``, ``{"ids": self.top.ids}``, ``{f"top.{k}": v for
k, v in self.top.to_pp_tensors().items()}``, and wrongly ``{"detail": self.detail}``.
``add_auxiliary_output_to_pp_tensors`` is handed the container, never ``self.top``, so the part needs no
``to_pp_tensors`` of its own, and one it has is run only if the container calls it. A class is a **part** when

- the own ``to_pp_tensors`` of another class (its container, not one of its bases or subclasses) uses an
  attribute of its instance that holds it (``summarize.parts``: the fact; the inference: what ``self.top`` can
  be, by the stores of the container's methods, its annotations (``top: TopK``, ``self.top: TopK``, an
  annotated ``__init__`` parameter) and the constructor calls that hand it one (``Bundle(TopK(...))``,
  ``arguments.py``)); and
- it has instances (a class with none, abstract or only subclassed, is judged through its subclasses: see
  ``instances.py``), and nothing shows one reaching the helper alone: no sampling observer returns it (by any
  route the inference follows, ``routes.py``) and no call hands a new one to
  ``add_auxiliary_output_to_pp_tensors``; and
- a container that is not a part itself holds it, directly or through other parts (two classes that only hold
  each other prove nothing).

A forward-only container holds parts too: they never cross a stage either. Like a forward route, a part is
positive evidence: an observer whose return the inference cannot see (an outside factory) does not undo it.

Whether the part's own ``to_pp_tensors`` runs is a separate answer (``part_calls``): it does when a container
whose ``to_pp_tensors`` runs on the PP path calls it (``returned``, ``merged`` or ``renamed``, see
``summarize.parts``). A container's ``to_pp_tensors`` runs when an instance that runs it (the container, or a
subclass that inherits the method) meets the helper, alone or as a part called in turn; so the answer is a
fixpoint, grown from the classes that meet the helper alone. A part that is only ``read``, or ``sent`` whole as
a value of the container's mapping (the container's PPA012: the helper meets an object where it needs a
tensor), has a ``to_pp_tensors`` that nothing calls. The rules judge what runs (``CheckContext.sending``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import ADD_HELPER, TO_PP
from ppaux_lint.facts.summary import FunctionFlow
from ppaux_lint.index.inference import INSTANCE, Inference
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.index.graph import ProjectGraph

RETURNED, MERGED, RENAMED, READ, SENT = "returned", "merged", "renamed", "read", "sent"  # as summarize.parts writes
_CALLING = (RETURNED, MERGED, RENAMED)  # the uses that run the part's own ``to_pp_tensors``
_TENSORS = frozenset({"torch.Tensor", "Tensor"})  # a field's annotation, as written
_CONSTRUCT = "construct:"


@dataclass(frozen=True)
class Part:
    """Where a part lives: ``containers``, every class whose own ``to_pp_tensors`` uses its instances; ``calls``,
    (container, how) for each container on the PP path that calls the part's ``to_pp_tensors``; ``uses``, (container,
    how, line) for each way a container's ``to_pp_tensors`` uses it, at the line of the first such use."""

    containers: tuple[str, ...]
    calls: tuple[tuple[str, str], ...]
    uses: tuple[tuple[str, str, int], ...] = ()


def find_parts(index: ProjectGraph, inference: Inference, infos: Iterable[ClassInfo]) -> dict[str, Part]:
    """The parts among ``infos`` (the focused classes, with their routes and instances already known), by fully
    qualified name. ``inference`` is the one about ``index``."""
    infos = {info.fqn: info for info in infos}
    possible = {fqn for fqn, info in infos.items() if not info.returned_by and not info.not_instantiated
                and not info.is_interface and (info.is_output or index.lookup(fqn, TO_PP) is not None)}
    if not possible:
        return {}  # every output is returned or only subclassed: the containers' uses are not worth inferring
    uses = _uses(index, inference, infos)
    if not uses:
        return {}
    handed = _handed_to_helper(index)
    candidates = {fqn for fqn in uses if fqn in possible and fqn not in handed}
    parts = _held_from_outside(uses, candidates)
    calls = _calls(index, infos, uses, parts)
    return {fqn: Part(tuple(sorted({container for container, _ in uses[fqn]})), calls.get(fqn, ()),
                      tuple(sorted((container, how, line) for (container, how), line in uses[fqn].items())))
            for fqn in sorted(parts)}


def _uses(index: ProjectGraph, inference: Inference,
          infos: Mapping[str, ClassInfo]) -> dict[str, dict[tuple[str, str], int]]:
    """class -> {(container, how): line}: which classes' own ``to_pp_tensors`` use its instances, how, and where
    first."""
    uses: dict[str, dict[tuple[str, str], int]] = {}
    for container in infos.values():
        method = container.summary.method(TO_PP) if not container.is_interface else None
        if method is None or not method.parts:
            continue
        qualname = f"{container.summary.qualname}.{TO_PP}"
        for expression, how, line in method.parts:
            if _declared_tensor(index, container, expression):
                continue
            flow = FunctionFlow(qualname, receiver=expression.split(".", 1)[0], binding="method")
            values = inference.evaluate(expression, container.module, flow, (INSTANCE, container.fqn))
            for cls, with_subclasses in inference.classes(values):
                held = [cls] if cls in infos else []
                if with_subclasses:
                    held += [fqn for fqn, info in infos.items() if cls in info.ancestry[1:]]
                for fqn in held:
                    info = infos[fqn]
                    if info.is_interface or fqn in container.ancestry or container.fqn in info.ancestry:
                        continue  # a class holding an instance of its own kind contains no part
                    if info.is_output or index.lookup(fqn, TO_PP) is not None:
                        first = uses.setdefault(fqn, {}).setdefault((container.fqn, how), line)
                        uses[fqn][container.fqn, how] = min(first, line)
    return uses


def _declared_tensor(index: ProjectGraph, container: ClassInfo, expression: str) -> bool:
    """Whether ``expression`` is ``self.<name>`` for a field that the first project class along the container's
    MRO to declare it declares a tensor (``ids: torch.Tensor``, or an ``__init__`` parameter so annotated): it
    holds no part. Most of what a ``to_pp_tensors`` sends is such a field, so the inference is not asked."""
    _, _, name = expression.partition(".")
    if not name or "." in name:
        return False
    classes = index.classes
    for owner in container.ancestry:
        summary = classes.get(owner)
        if summary is None:
            continue
        for fields in (summary.fields, summary.init_fields):
            for field in fields:
                if field.name == name:
                    return field.annotation in _TENSORS
    return False


def _handed_to_helper(index: ProjectGraph) -> set[str]:
    """The project classes a call of the add helper is handed a new instance of, in any argument."""
    helpers = {f"{module}.{ADD_HELPER}" for module in index.protocols.helper_modules}
    found: set[str] = set()
    for summary in list(index.modules.values()):
        for call in summary.calls:  # the helpers' calls, by name or alias: one spelt as the helper counts too
            spelt = call.callee.rsplit(".", 1)[-1] == ADD_HELPER
            if not spelt and index.resolve(summary.module, call.callee, call.scope) not in helpers:
                continue
            for kind in (*call.arg_kinds, *(kind for _, kind in call.keywords)):
                if kind.startswith(_CONSTRUCT):
                    target = index.resolve(summary.module, kind[len(_CONSTRUCT):], call.scope)
                    if target in index.classes:
                        found.add(target)
    return found


def _held_from_outside(uses: Mapping[str, Mapping[tuple[str, str], int]], candidates: set[str]) -> set[str]:
    """The candidates a container that is no candidate holds, directly or through other candidates."""
    holds: dict[str, set[str]] = {}
    for fqn, used in uses.items():
        for container, _ in used:
            holds.setdefault(container, set()).add(fqn)
    todo = [container for container in holds if container not in candidates]
    parts: set[str] = set()
    while todo:
        for fqn in holds.get(todo.pop(), ()):
            if fqn in candidates and fqn not in parts:
                parts.add(fqn)
                todo.append(fqn)
    return parts


def _calls(index: ProjectGraph, infos: Mapping[str, ClassInfo], uses: Mapping[str, Mapping[tuple[str, str], int]],
           parts: set[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """part -> the (container, how) calls of its ``to_pp_tensors`` made on the PP path (see the module's doc)."""
    owner = {}
    for fqn in infos:
        member = index.lookup(fqn, TO_PP)
        if member is not None and member.method is not None:
            owner[fqn] = member.owner
    sending = {fqn for fqn, info in infos.items()
               if fqn not in parts and not info.is_interface and not info.not_instantiated and not info.forward_only_by}
    while True:
        running = {owner[fqn] for fqn in sending if fqn in owner}
        called = {fqn for fqn in parts - sending if any(how in _CALLING and c in running for c, how in uses[fqn])}
        if not called:
            break
        sending |= called
    return {fqn: tuple(sorted((c, how) for c, how in uses[fqn] if how in _CALLING and c in running))
            for fqn in parts if any(how in _CALLING and c in running for c, how in uses[fqn])}
