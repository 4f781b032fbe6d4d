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
        output = index.sent_by(info.fqn) or info.pair
        receiving_end = _end(index, info.fqn, FROM_PP)
        sending_end = _end(index, output, TO_PP)
        if receiving_end is None or sending_end is None:
            continue
        receiver_owner, receiver, receiver_path, reads_where, receiver_written = receiving_end
        sender_owner, sender, sender_path, sends_where, sender_written = sending_end
        if receiver.is_async or sender.is_async or sender.is_generator:
            continue
        if output != info.pair:  # the output sent is not the one rebuilt: the finding is the observer's
            sends_where += f", for the `{output}` that `{info.fqn}.after_sample` returns,"
            receiver_owner = info.fqn
        sent = sent_keys(index, sender_owner, sender, output, sender_written)
        if sent is None:
            continue
        receiving = Related(receiver_path, receiver.span, f"{reads_where} rebuilds the output here")
        sending = Related(sender_path, sender.span, f"{sends_where} sends the keys here")
        reads = read_keys(index, receiver_owner, receiver, info.fqn, receiver_written)
        read: dict[str, tuple[Key, str]] = {}
        for fact, found in zip(receiver.keys_read, reads, strict=True):
            if found.kind == "str" and (found.value not in read or (read[found.value][1] and not fact.read)):
                read[found.value] = (found, fact.read)  # the first read, unless a later one raises where it did not
        for name, (found, how) in read.items():
            if name not in sent:
                yield RULE.finding(
                    f"{reads_where} {_READS[how]} {found.shown}, but {sends_where} never sends it "
                    f"(it sends {', '.join(map(repr, sorted(sent)))}): {_MISSING[how]}",
                    receiving.path, found.span, receiver_owner, related=(sending,))
        if not receiver.keys_read_exact or any(k.kind != "str" for k in reads):
            continue
        for name, found in sent.items():
            if name not in read:
                yield RULE.finding(
                    f"{sends_where} sends {found.shown}, but {reads_where} never reads it: "
                    f"the tensor crosses the stage and is silently dropped",
                    sending.path, found.span, sender_owner, related=(receiving,))


# By ``KeyFact.read``: how the method reads a key, and what that read does on the first stage, where it is never there.
_READS = {"": "reads", "get": "reads", "caught": "reads", "reraised": "reads", "guarded": "reads",
          "in": "tests for"}
_MISSING = {
    "": "KeyError on the first stage",
    "get": "on the first stage the read finds nothing, and the output is rebuilt without it",
    "caught": "on the first stage the read raises KeyError into its `except` (or a `suppress`), and the output is "
              "rebuilt without it",
    "reraised": "on the first stage the read raises KeyError into an `except` that raises again",
    "guarded": "on the first stage its `in` test never finds it, and the output is rebuilt without it",
    "in": "on the first stage the test never finds it, so what it guards never runs",
}


def _end(index: ProjectIndex, fqn: str, name: str) -> tuple[str, MethodSummary, str, str, tuple[str, str]] | None:
    """One end of the contract as the class's final namespace holds it: the class that owns the method, its
    summary, the file it is written in, how messages name it (with how the class got it), and the module and
    scope its names resolve in."""
    member = index.lookup(fqn, name)
    if member is None or member.method is None or member.owner not in index.classes or member.site is None:
        return None
    where = f"`{member.owner}.{name}`" + (f" ({member.origin})" if member.origin else "")
    return member.owner, member.method, member.site.path, where, (member.site.module, member.site.scope)


RULE = Rule("PPA015", "pp-key-mismatch",
            "`from_pp_tensors` reads a key its output never sends, or never reads one it sends", check,
            passed_despite=("what {observer} rebuilt sent and copied to host what the original did: a name sent but "
                            "not read that the rebuilt output makes again itself, or a name read with .get() or on a "
                            "path its examples did not take, fails no round trip"))
