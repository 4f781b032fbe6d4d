"""What ``to_pp_tensors`` returns, as the contract rules (PPA010-PPA013, PPA015) read it.

Each rule reads only the facts the summary recorded as certain: a key built at run time, a value of unknown
type or a return of some variable is silence, never a guess. A key computed from constants (``K_ACCEPTED``,
``f"{_NS}.top1"``) is what the index says Python computes for it (``index.constants``), and silence where
it cannot say (``key``). A local dict built step by step and returned counts as a dict (``ReturnFact.built``),
with every key and value it may hold at that return. A return that is an operand of ``and`` is returned only
when falsy, so its items are never sent. An ``async def`` or generator ``to_pp_tensors`` returns no mapping
at all (PPA016 says so), so what its body returns is not judged.

What the helper does with a return that is not a mapping is shared too: an empty one stops it at its
emptiness check (PPA010), any other fails at ``.items()`` (PPA019).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.summary import KeyFact, MethodSummary, ReturnFact, Span, ValueFact
from ppaux_lint.index.constants import UNKNOWN
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.rules.base import CheckContext


def returns(context: CheckContext) -> Iterator[tuple[ClassInfo, str, ReturnFact]]:
    """Every return of every class's own ``to_pp_tensors``, with the method's name as messages quote it."""
    for info, method in context.own_methods(TO_PP):
        if method.is_async or method.is_generator:
            continue
        where = f"`{info.fqn}.{TO_PP}`"
        for fact in method.returns:
            yield info, where, fact


@dataclass(frozen=True)
class Key:
    """A key as Python computes it: kind "str" (``value`` holds it), "empty", "nonstr" (``value`` holds the
    source or the repr of what it is) or "dynamic"; ``source`` is the constant expression it was computed
    from (``K_ACCEPTED``), "" for a key written as a literal, and ``origin`` where a key written as one name
    has its value bound ("line 12", or "line 3 of `pkg.keys`"), "" otherwise."""

    kind: str
    value: str
    span: Span
    source: str = ""
    origin: str = ""

    @property
    def shown(self) -> str:
        """The key as a message quotes it: ``'accepted'``, or ``key `K_ACCEPTED` = 'accepted' (line 12)``."""
        text = repr(self.value) if self.kind in ("str", "empty") else self.value
        if not self.source:
            return text
        return f"key `{self.source}` = {text}" + (f" ({self.origin})" if self.origin else "")


def key(index: ProjectIndex, module: str, owner: str, fact: KeyFact, instance: str = "") -> Key:
    """What the key a method of the class ``owner`` (its qualname in ``module``) writes is at run time, on an
    instance of ``instance`` (a subclass that inherits the method; ``owner`` itself when "")."""
    if not fact.computed:
        return Key(fact.kind, fact.value, fact.span)
    value = index.constants.key(module, owner, fact.value, instance)
    if value is UNKNOWN:
        return Key("dynamic", fact.value, fact.span)
    written = index.constants.written(module, owner, fact.value, instance)
    origin = ""
    if written is not None:
        (defined_in, _), line = written
        origin = f"line {line}" if defined_in == module else f"line {line} of `{defined_in}`"
    if isinstance(value, str):
        return Key("str" if value else "empty", value, fact.span, fact.value, origin)
    return Key("nonstr", repr(value), fact.span, fact.value, origin)


def on_path(fact: ReturnFact) -> str:
    """When the return the fact describes happens, as a message says it: for the last operand of ``or`` or
    ``and``, "whenever `self._live()` is falsy (the right side of `or`)"; "on this path" otherwise."""
    if not fact.after:
        return "on this path"
    operator, before = fact.after
    truth = "falsy" if operator == "or" else "truthy"
    return f"whenever `{before}` is {truth} (the right side of `{operator}`)"


def returned_items(context: CheckContext) -> Iterator[tuple[ClassInfo, str, ReturnFact, ValueFact, Key]]:
    """Every ``key: value`` of every dict that ``to_pp_tensors`` can return holding it, with the key as Python
    computes it."""
    for info, where, fact in returns(context):
        if fact.kind == "dict" and fact.when != "falsy":
            for item in fact.items:
                yield info, where, fact, item, key(context.index, info.module, info.summary.qualname, item.key)


def sent_keys(index: ProjectIndex, owner: str, method: MethodSummary, instance: str = "") -> dict[str, Key] | None:
    """Every key the class ``owner``'s ``to_pp_tensors`` can send from an instance of ``instance`` (mapped to
    where it is first sent), or None if unknown."""
    module, qualname = index.class_module[owner], index.classes[owner].qualname
    keys: dict[str, Key] = {}
    for fact in method.returns:
        if (fact.kind == "none" or fact.when == "falsy" or (fact.kind == "dict" and not fact.items and fact.exact)
                or (fact.kind == "sequence" and fact.empty)):
            continue  # nothing sent on this path (PPA010's business)
        if fact.kind != "dict" or not fact.exact:
            return None
        for item in fact.items:
            sent = key(index, module, qualname, item.key, instance)
            if sent.kind != "str":
                return None
            keys.setdefault(sent.value, sent)
    return keys if keys else None


def read_keys(index: ProjectIndex, owner: str, method: MethodSummary, instance: str = "") -> list[Key]:
    """Every key the class ``owner``'s ``from_pp_tensors`` (``method``) reads on an instance of ``instance``, as
    Python computes it, in source order."""
    module, qualname = index.class_module[owner], index.classes[owner].qualname
    return [key(index, module, qualname, fact, instance) for fact in method.keys_read]


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
    that the index does not resolve to anything else (``list(...)``, ``zip(...)``). One returned only when it is
    falsy (the left of ``and``) is empty, one returned only when it is truthy (the left of ``or``) is not."""
    if fact.kind == "sequence":
        found = NotAMapping(fact.container, fact.empty, not fact.exact and fact.container != "generator")
    elif fact.kind != "construct" or fact.constructs not in _BUILTIN_SEQUENCES:
        return None
    else:
        target = context.index.resolve(info.module, fact.constructs, info.summary.qualname.rpartition(".")[0])
        if target not in (None, f"builtins.{fact.constructs}"):
            return None  # the module binds the name to something of its own
        type_name, can_be_empty = _BUILTIN_SEQUENCES[fact.constructs]
        if fact.empty and fact.constructs in ("sorted", "range"):
            return None  # called without an argument, it raises a TypeError of its own
        empty = fact.empty and can_be_empty
        found = NotAMapping(type_name, empty, can_be_empty and not empty)
    if fact.when == "falsy":
        return NotAMapping(found.type_name, True, False) if found.empty or found.may_be_empty else None
    return NotAMapping(found.type_name, False, False) if fact.when == "truthy" else found
