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

from collections.abc import Iterator, Sequence

from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.summary import Field, KeyFact, MethodSummary, ReturnFact, Span, ValueFact
from ppaux_lint.index.constants import UNKNOWN
from ppaux_lint.index.known_bases import adds_no_fields
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.rules.base import CheckContext, OwnMethod
from ppaux_lint.support.records import dataclass


def returns(context: CheckContext) -> Iterator[tuple[OwnMethod, ReturnFact]]:
    """Every return of every class's own ``to_pp_tensors`` that runs on the PP path (its ``where`` is the method
    as messages quote it, for a part's with the containers that send what it returns; its ``path`` the file the
    facts' spans are in)."""
    for own in context.own_methods(TO_PP):
        if own.method.is_async or own.method.is_generator:
            continue
        for fact in own.method.returns:
            yield own, fact


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


def written_in(index: ProjectIndex, owner: str, method: MethodSummary, module: str = "",
               scope: str = "") -> tuple[str, str]:
    """Where the names in ``method``, a method the class ``owner`` holds, resolve, as (module, class qualname)
    for ``key``. A ``def`` of the class statement sees its module's names, and its class's constants through
    ``self``; a function bound into the class from elsewhere (``module``, in the scope ``scope``: where the
    index's namespaces found it written) sees its own module's names, or, nested in another function, that
    function's locals too, which no summary holds (``key`` then says unknown)."""
    statement = index.classes[owner]
    if not module or statement.method(method.name) is method:
        return index.class_module[owner], statement.qualname
    return module, f"{scope}.<locals>" if scope else ""


def own_key(index: ProjectIndex, own: OwnMethod, fact: KeyFact, instance: str = "") -> Key:
    """What a key ``own``'s method writes is at run time, on an instance of ``instance`` (its own class when "")."""
    module, scope = written_in(index, own.info.fqn, own.method, own.module, own.scope)
    return key(index, module, scope, fact, instance or own.info.fqn)


Item = tuple[OwnMethod, ReturnFact, ValueFact, Key, str]


def returned_items(context: CheckContext) -> tuple[Item, ...]:
    """Every ``key: value`` of every dict that ``to_pp_tensors`` can return holding it (through the helpers it
    returns the call of: ``expanded``), with the key as Python computes it on the instances that run the method
    (``CheckContext.runners``: a key ``self.KEY`` that each subclass sets is the subclass's; a base with no
    instance that runs it is judged as itself), and the class of those instances: once per class where the key
    differs between them, else once with that one class or the owner's. Made once per context: three rules
    read them."""
    return context.shared(returned_items, lambda: tuple(_returned_items(context)))


def _returned_items(context: CheckContext) -> Iterator[Item]:
    for own, returned in returns(context):
        instances = context.runners(own.info, TO_PP) or [own.info.fqn]
        written = written_in(context.index, own.info.fqn, own.method, own.module, own.scope)
        alike = instances[0] if len(instances) == 1 else own.info.fqn  # the class a key alike on all is judged on
        for fact in expanded(context.index, own.info.fqn, own.method, returned, instances, written, own.path):
            if fact.kind != "dict" or fact.when == "falsy":
                continue
            for item in fact.items:
                if not item.key.computed:  # written as a literal: the same key on every instance, none to compare
                    yield own, fact, item, key(context.index, *written, item.key), alike
                    continue
                keys = {instance: own_key(context.index, own, item.key, instance) for instance in instances}
                if len(set(keys.values())) == 1:
                    yield own, fact, item, next(iter(keys.values())), alike
                else:
                    for instance, found in keys.items():
                        yield own, fact, item, found, instance


def sent_keys(index: ProjectIndex, owner: str, method: MethodSummary, instance: str = "",
              written: tuple[str, str] = ("", "")) -> dict[str, Key] | None:
    """Every key the class ``owner``'s ``to_pp_tensors`` can send from an instance of ``instance`` (mapped to
    where it is first sent), or None if unknown; ``written`` is the (module, scope) of a function bound into
    the class from outside its statement (``written_in``)."""
    return sent_keys_or_why(index, owner, method, instance, written)[0]


def sent_keys_or_why(index: ProjectIndex, owner: str, method: MethodSummary, instance: str = "",
                     written: tuple[str, str] = ("", "")) -> tuple[dict[str, Key] | None, str]:
    """``sent_keys``, with why they are unknown when they are ("" when known): what ``inventory`` shows of a
    class whose keys no rule compared (PPA015 is silent on it, whatever Python sends)."""
    module, qualname = written_in(index, owner, method, *written)
    keys: dict[str, Key] = {}
    for fact in _sending(index, owner, method, instance, (module, qualname)):
        if fact.kind != "dict" or not fact.exact:
            return None, f"a return is not a dict whose items the analysis can list, so {_key_rule()} compares no key"
        for item in fact.items:
            sent = key(index, module, qualname, item.key, instance or owner)
            if sent.kind != "str":
                return None, f"{_unknown_key(sent)}, so {_key_rule()} compares no key"
            keys.setdefault(sent.value, sent)
    return (keys, "") if keys else (None, "no return sends a key the analysis can list")


def always_sent(index: ProjectIndex, owner: str, method: MethodSummary, name: str, instance: str = "",
                written: tuple[str, str] = ("", "")) -> bool:
    """Whether every return of the class ``owner``'s ``to_pp_tensors`` that sends anything sends the key ``name``
    (a dict written out with it, or built step by step with it put there on every path: ``ReturnFact.always``),
    so that the first stage always finds it (arguments as for ``sent_keys``)."""
    module, qualname = written_in(index, owner, method, *written)

    def sends(fact: ReturnFact) -> bool:
        if fact.kind != "dict" or fact.built:
            return fact.kind == "dict" and name in fact.always
        found = (key(index, module, qualname, item.key, instance or owner) for item in fact.items)
        return any(k.kind == "str" and k.value == name for k in found)

    facts = _sending(index, owner, method, instance, (module, qualname))
    return bool(facts) and all(sends(fact) for fact in facts)


def _sending(index: ProjectIndex, owner: str, method: MethodSummary, instance: str,
             written: tuple[str, str]) -> list[ReturnFact]:
    """What each return of ``to_pp_tensors`` that sends anything returns (``expanded``), ``written`` resolved."""
    path = index.modules[index.class_module[owner]].path
    facts = [f for returned in method.returns
             for f in expanded(index, owner, method, returned, [instance or owner], written, path)]
    return [fact for fact in facts  # a path that sends nothing is PPA010's business
            if not (fact.kind == "none" or fact.when == "falsy" or (fact.kind == "sequence" and fact.empty)
                    or (fact.kind == "dict" and not fact.items and fact.exact))]


def _key_rule() -> str:
    """The code of the rule that compares the keys sent with those read, from the catalogue (its module imports this
    one): a rule's code is written in its module only."""
    from ppaux_lint.rules import all_rules

    return next(rule.code for rule in all_rules() if rule.name == "pp-key-mismatch")


def _unknown_key(found: Key) -> str:
    """Why the key ``found`` is no name a rule can compare, in words."""
    if found.kind == "dynamic":
        shown = f"the key `{found.value}` is" if found.value else "a key is"
        return f"{shown} not a constant the analysis computes"
    return f"the key {found.shown} is not a non-empty str (the invalid-name rule's business)"


def read_keys(index: ProjectIndex, owner: str, method: MethodSummary, instance: str = "",
              written: tuple[str, str] = ("", "")) -> list[Key]:
    """Every key the class ``owner``'s ``from_pp_tensors`` (``method``) reads on an instance of ``instance``, as
    Python computes it, in source order (``written`` as for ``sent_keys``)."""
    module, qualname = written_in(index, owner, method, *written)
    return [key(index, module, qualname, fact, instance or owner) for fact in method.keys_read]


def read_keys_or_why(index: ProjectIndex, owner: str, method: MethodSummary, instance: str = "",
                     written: tuple[str, str] = ("", "")) -> tuple[frozenset[str] | None, str]:
    """The keys ``read_keys`` finds, when they are all the method reads, with why they are unknown when they are not
    ("" when known): what ``inventory`` shows of a ``from_pp_tensors`` whose reads no rule compared."""
    read = read_keys(index, owner, method, instance, written)
    computed = next((k for k in read if k.kind != "str"), None)
    if computed is not None:
        return None, f"{_unknown_key(computed)}, so {_key_rule()} reports no sent key as unread"
    if not method.keys_read_exact:
        return None, ("the received mapping is also used other than through reads of constant keys, "
                      f"so {_key_rule()} reports no sent key as unread")
    return frozenset(k.value for k in read), ""


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


def not_a_mapping(context: CheckContext, own: OwnMethod, fact: ReturnFact) -> NotAMapping | None:
    """What a return is when it is certainly not a mapping: a display, a comprehension, or a call of a builtin
    that the index does not resolve to anything else (``list(...)``, ``zip(...)``). One returned only when it is
    falsy (the left of ``and``) is empty, one returned only when it is truthy (the left of ``or``) is not."""
    if fact.kind == "sequence":
        found = NotAMapping(fact.container, fact.empty, not fact.exact and fact.container != "generator")
    elif fact.kind != "construct" or fact.constructs not in _BUILTIN_SEQUENCES:
        return None
    else:
        target = context.index.resolve(own.module, fact.constructs, own.scope)
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


_HELPER_DEPTH = 4  # helpers returning helpers' calls followed before the chain is left unread
_ASDICT = "dataclasses.asdict"


def expanded(index: ProjectIndex, owner: str, method: MethodSummary, fact: ReturnFact, instances: Sequence[str],
             written: tuple[str, str], path: str, depth: int = 0) -> tuple[ReturnFact, ...]:
    """What a return of ``method`` (of the class ``owner``, its names resolving in ``written``, its spans in the
    file ``path``) gives on instances of ``instances``: the return itself, or for ``return self._pack()`` what the
    helper returns (the same method on every one of the instances, written in the same file, so that a finding
    can point into it), and for ``return dataclasses.asdict(self)`` a dict of the dataclass's fields (the same
    fields on every instance). Where that is not certain, the return as it is, which the rules leave unread."""
    receiver = method.receiver
    if fact.kind != "construct" or fact.when or not receiver or depth > _HELPER_DEPTH:
        return (fact,)
    if fact.constructs.startswith(f"{receiver}.") and "." not in fact.constructs[len(receiver) + 1:]:
        members = [index.lookup(instance, fact.constructs[len(receiver) + 1:]) for instance in instances]
        first = members[0]
        if first is None or first.method is None or first.site is None or first.site.path != path \
                or any(m is None or m.method is not first.method for m in members[1:]) \
                or not first.method.returns or first.method.is_async or first.method.is_generator \
                or first.method.decorators:  # a decorator may make the helper return something else
            return (fact,)
        return tuple(inner for returned in first.method.returns for inner in expanded(
            index, first.owner, first.method, returned, instances, written, path, depth + 1))
    if fact.argument == receiver and index.resolve(written[0], fact.constructs, written[1]) == _ASDICT:
        fields = {_dataclass_fields(index, instance) for instance in instances}
        names = next(iter(fields)) if len(fields) == 1 else None
        if names is not None:
            items = tuple(ValueFact(KeyFact("str", name, fact.span), "", fact.span, attribute=name) for name in names)
            return (ReturnFact("dict", fact.span, items),)
    return (fact,)


_NOT_FIELDS = ("ClassVar", "InitVar", "KW_ONLY")  # annotations ``dataclasses`` makes no field of


def _not_a_field(index: ProjectIndex, module: str, field: Field) -> bool:
    """Whether ``dataclasses`` makes no field of an annotated name: its annotation is (or is subscripted from)
    ``ClassVar``, ``InitVar`` or ``KW_ONLY``, however the module names them (``from typing import ClassVar as
    CV``), or spells one of them where the index cannot say what the head names."""
    head = field.annotation.strip("'\"").split("[", 1)[0].strip()
    target = index.resolve(module, head, "") if head else None
    if target is not None:
        return target.rsplit(".", 1)[-1] in _NOT_FIELDS
    return any(marker in field.annotation for marker in _NOT_FIELDS)


def _dataclass_fields(index: ProjectIndex, fqn: str) -> tuple[str, ...] | None:
    """The fields ``dataclasses.asdict`` gives for an instance of ``fqn``, in order: those of each dataclass along
    its MRO, the last redefinition in the first one's place; None where a base outside the project may have
    fields of its own, or where no class along it is a dataclass (``asdict`` raises TypeError)."""
    roots = index.protocols.transport_roots
    names: dict[str, None] = {}
    found = False
    for cls in reversed(index.mro(fqn)):
        summary = index.classes.get(cls)
        if summary is None:
            if adds_no_fields(cls, roots):
                continue
            return None
        module = index.class_module[cls]
        if not any(index.resolve(module, d, summary.qualname) == "dataclasses.dataclass" for d in summary.decorators):
            continue
        found = True
        names.update((field.name, None) for field in summary.fields if not _not_a_field(index, module, field))
    return tuple(names) if found else None
