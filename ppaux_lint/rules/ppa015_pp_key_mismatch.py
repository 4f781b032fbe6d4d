"""PPA015: the keys an observer reads must be the keys its output sends.

Both sides are compared only when both are known exactly: every return of ``to_pp_tensors`` is a dict
literal of string keys, or a dict built step by step whose every key is such a literal (``sent.sent_keys``:
what any path puts in it), and (for unread keys) the received mapping is used only through literal-key reads.
A key written as a constant, an f-string or a ``+`` of them is the string Python computes for it, resolved
across files (``sent.key``); one the index cannot resolve is not known.
Which output an observer rebuilds is what its ``from_pp_tensors`` (else its ``after_sample``) returns, by any
route the inference follows; an observer that never returns an output never receives any keys.
The two ends usually live in different files, so each finding carries the other end as a related location:
asking about either file reports it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding, Related
from ppaux_lint.facts.summary import MethodSummary
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.rules.base import CheckContext, Rule
from ppaux_lint.rules.sent import Key, read_keys, sent_keys


def check(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    for info in context.implementations():
        if not info.is_observer or info.pair is None or info.no_output:
            continue
        receiver_owner, receiver = _method_with_owner(index, info.fqn, FROM_PP)
        sender_owner, sender = _method_with_owner(index, info.pair, TO_PP)
        if receiver is None or sender is None or receiver.is_async or sender.is_async or sender.is_generator:
            continue
        sent = sent_keys(index, sender_owner, sender, info.pair)
        if sent is None:
            continue
        receiving = Related(_path(index, receiver_owner), receiver.span,
                            f"`{receiver_owner}.{FROM_PP}` rebuilds the output here")
        sending = Related(_path(index, sender_owner), sender.span, f"`{sender_owner}.{TO_PP}` sends the keys here")
        reads = read_keys(index, receiver_owner, receiver, info.fqn)
        read: dict[str, Key] = {}
        for found in reads:
            if found.kind == "str":
                read.setdefault(found.value, found)
        for name, found in read.items():
            if name not in sent:
                yield RULE.finding(
                    f"`{receiver_owner}.{FROM_PP}` reads {found.shown}, but `{sender_owner}.{TO_PP}` never sends "
                    f"it (it sends {', '.join(map(repr, sorted(sent)))}): KeyError on the first stage",
                    receiving.path, found.span, receiver_owner, related=(sending,))
        if not receiver.keys_read_exact or any(k.kind != "str" for k in reads):
            continue
        for name, found in sent.items():
            if name not in read:
                yield RULE.finding(
                    f"`{sender_owner}.{TO_PP}` sends {found.shown}, but `{receiver_owner}.{FROM_PP}` never reads "
                    f"it: the tensor crosses the stage and is silently dropped",
                    sending.path, found.span, sender_owner, related=(receiving,))


def _path(index: ProjectIndex, fqn: str) -> str:
    return index.modules[index.class_module[fqn]].path


def _method_with_owner(index: ProjectIndex, fqn: str, name: str) -> tuple[str, MethodSummary | None]:
    member = index.lookup(fqn, name)
    if member is None or member.method is None or member.owner not in index.classes:
        return "", None
    return member.owner, member.method


RULE = Rule("PPA015", "pp-key-mismatch",
            "`from_pp_tensors` reads a key its output never sends, or never reads one it sends", check,
            passed_despite=("what {observer} rebuilt sent and copied to host what the original did: a name sent but "
                            "not read that the rebuilt output makes again itself, or a name read with .get() or on a "
                            "path its examples did not take, fails no round trip"))
