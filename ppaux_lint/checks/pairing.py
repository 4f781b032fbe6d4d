"""PPA015: the keys an observer reads must be the keys its output sends.

Both sides are compared only when both are known exactly: every return of
``to_pp_tensors`` is a dict literal of string keys, and (for unread keys)
the received mapping is used only through literal-key reads.
"""

from __future__ import annotations

from typing import Iterator

from ppaux_lint.checks.context import CheckContext
from ppaux_lint.findings import Finding
from ppaux_lint.index import FROM_PP, TO_PP, ProjectIndex
from ppaux_lint.summary import MethodSummary


def sent_keys(method: MethodSummary) -> dict[str, object] | None:
    """Every key ``to_pp_tensors`` can send (mapped to the span that sends it first), or None if unknown."""
    keys: dict[str, object] = {}
    for fact in method.returns:
        if fact.kind == "none" or (fact.kind == "dict" and not fact.items and fact.exact):
            continue  # nothing sent on this path (PPA010's business)
        if fact.kind != "dict" or not fact.exact or any(i.key.kind != "str" for i in fact.items):
            return None
        for item in fact.items:
            keys.setdefault(item.key.value, item.key.span)
    return keys if keys else None


def key_mismatches(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    for info in context.implementations():
        if not info.is_observer or info.pair is None:
            continue
        receiver_owner, receiver = _method_with_owner(index, info.fqn, FROM_PP)
        sender_owner, sender = _method_with_owner(index, info.pair, TO_PP)
        if receiver is None or sender is None or receiver.is_async or sender.is_async or sender.is_generator:
            continue
        sent = sent_keys(sender)
        if sent is None:
            continue
        read = {k.value: k for k in receiver.keys_read if k.kind == "str"}
        for name, key in read.items():
            if name not in sent:
                yield Finding(
                    code="PPA015",
                    message=(f"`{receiver_owner}.{FROM_PP}` reads {name!r}, but `{sender_owner}.{TO_PP}` never sends it "
                             f"(it sends {', '.join(map(repr, sorted(sent)))}): KeyError on the first stage"),
                    path=_path(index, receiver_owner), span=key.span, symbol=receiver_owner)
        if not receiver.keys_read_exact or any(k.kind != "str" for k in receiver.keys_read):
            continue
        for name, span in sent.items():
            if name not in read:
                yield Finding(
                    code="PPA015",
                    message=(f"`{sender_owner}.{TO_PP}` sends {name!r}, but `{receiver_owner}.{FROM_PP}` never reads "
                             f"it: the tensor crosses the stage and is silently dropped"),
                    path=_path(index, sender_owner), span=span, symbol=sender_owner)  # type: ignore[arg-type]


def _path(index: ProjectIndex, fqn: str) -> str:
    return index.modules[index.class_module[fqn]].path


def _method_with_owner(index: ProjectIndex, fqn: str, name: str) -> tuple[str, MethodSummary | None]:
    member = index.lookup(fqn, name)
    if member is None or member.method is None or member.owner not in index.classes:
        return "", None
    return member.owner, member.method
