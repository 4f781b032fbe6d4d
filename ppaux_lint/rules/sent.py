"""What ``to_pp_tensors`` returns, as the contract rules (PPA010-PPA013, PPA015) read it.

Each rule reads only the facts the summary recorded as certain: a key built at run time, a value of unknown
type or a return of some variable is silence, never a guess. An ``async def`` or generator
``to_pp_tensors`` returns no mapping at all (PPA016 says so), so what its body returns is not judged.
"""

from __future__ import annotations

from typing import Iterator

from ppaux_lint.model import ClassInfo
from ppaux_lint.names import TO_PP
from ppaux_lint.rules.base import CheckContext
from ppaux_lint.summary import MethodSummary, ReturnFact, Span, ValueFact


def returns(context: CheckContext) -> Iterator[tuple[ClassInfo, str, ReturnFact]]:
    """Every return of every class's own ``to_pp_tensors``, with the method's name as messages quote it."""
    for info, method in context.own_methods(TO_PP):
        if method.is_async or method.is_generator:
            continue
        where = f"`{info.fqn}.{TO_PP}`"
        for fact in method.returns:
            yield info, where, fact


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
        if fact.kind == "none" or (fact.kind == "dict" and not fact.items and fact.exact):
            continue  # nothing sent on this path (PPA010's business)
        if fact.kind != "dict" or not fact.exact or any(i.key.kind != "str" for i in fact.items):
            return None
        for item in fact.items:
            keys.setdefault(item.key.value, item.key.span)
    return keys if keys else None
