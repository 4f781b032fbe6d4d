"""What ``to_pp_tensors`` returns, as the contract rules (PPA010-PPA013, PPA015) read it.

Each rule reads only the facts the summary recorded as certain: a key built at run time, a value of unknown
type or a return of some variable is silence, never a guess. A local dict built step by step and returned
counts as a dict (``ReturnFact.built``), with every key and value it may hold at that return. An ``async
def`` or generator ``to_pp_tensors`` returns no mapping at all (PPA016 says so), so what its body returns is
not judged.

What the helper does with a return that is not a mapping is shared too: an empty one stops it at its
emptiness check (PPA010), any other fails at ``.items()`` (PPA019).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.summary import MethodSummary, ReturnFact, Span, ValueFact
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.rules.base import CheckContext


def returns(context: CheckContext) -> Iterator[tuple[ClassInfo, str, ReturnFact]]:
    """Every return of every class's own ``to_pp_tensors`` that runs on the PP path, with the method's name as
    messages quote it, and for a part's, the containers that send what it returns."""
    for info, method in context.own_methods(TO_PP):
        if method.is_async or method.is_generator:
            continue
        where = f"`{info.fqn}.{TO_PP}`" + inside(context, info)
        for fact in method.returns:
            yield info, where, fact


def inside(context: CheckContext, info: ClassInfo) -> str:
    """`` (sent inside `Bundle.to_pp_tensors`)`` for a part's ``to_pp_tensors`` that only runs in its
    containers', whose mapping the helper checks: "" for one the helper gets alone."""
    run = context.run(info)
    if run is None or run.alone:
        return ""
    return f" (sent inside {', '.join(f'`{c}.{TO_PP}`' for c in (*run.merged_into, *run.renamed_by))})"


def returned_items(context: CheckContext) -> Iterator[tuple[ClassInfo, str, ReturnFact, ValueFact]]:
    """Every ``key: value`` of every dict that ``to_pp_tensors`` returns."""
    for info, where, fact in returns(context):
        if fact.kind == "dict":
            for item in fact.items:
                yield info, where, fact, item


def sent_keys(method: MethodSummary) -> dict[str, Span] | None:
    """Every key ``to_pp_tensors`` can send (mapped to the span that sends it first), or None if unknown."""
    keys: dict[str, Span] = {}
    for fact in method.returns:
        if (fact.kind == "none" or (fact.kind == "dict" and not fact.items and fact.exact)
                or (fact.kind == "sequence" and fact.empty)):
            continue  # nothing sent on this path (PPA010's business)
        if fact.kind != "dict" or not fact.exact or any(i.key.kind != "str" for i in fact.items):
            return None
        for item in fact.items:
            keys.setdefault(item.key.value, item.key.span)
    return keys if keys else None


# Builtins whose result is never a mapping, with the type name an AttributeError gives, and whether it can be
# falsy (an iterator object is truthy even when it yields nothing).
_BUILTIN_SEQUENCES = {"list": ("list", True), "tuple": ("tuple", True), "set": ("set", True),
                      "frozenset": ("frozenset", True), "sorted": ("list", True), "range": ("range", True),
                      "zip": ("zip", False), "map": ("map", False), "filter": ("filter", False),
                      "enumerate": ("enumerate", False)}


@dataclass(frozen=True)
class NotAMapping:
    """A return that is a sequence or iterator where the helper needs a mapping."""

    type_name: str  # as ``AttributeError: '<type_name>' object has no attribute 'items'`` names it
    empty: bool  # certainly empty, so the helper's emptiness check rejects it first
    may_be_empty: bool


def not_a_mapping(context: CheckContext, info: ClassInfo, fact: ReturnFact) -> NotAMapping | None:
    """What a return is when it is certainly not a mapping: a display, a comprehension, or a call of a builtin
    that the index does not resolve to anything else (``list(...)``, ``zip(...)``)."""
    if fact.kind == "sequence":
        return NotAMapping(fact.container, fact.empty, not fact.exact and fact.container != "generator")
    if fact.kind != "construct" or fact.constructs not in _BUILTIN_SEQUENCES:
        return None
    target = context.index.resolve(info.module, fact.constructs, info.summary.qualname.rpartition(".")[0])
    if target not in (None, f"builtins.{fact.constructs}"):
        return None  # the module binds the name to something of its own
    type_name, can_be_empty = _BUILTIN_SEQUENCES[fact.constructs]
    if fact.empty and fact.constructs in ("sorted", "range"):
        return None  # called without an argument, it raises a TypeError of its own
    empty = fact.empty and can_be_empty
    return NotAMapping(type_name, empty, can_be_empty and not empty)
