"""PPA010: ``to_pp_tensors`` returns an empty mapping, or None, on some path.

An empty list, tuple or set is reported here too rather than as PPA019: it is not a mapping either, but it
is falsy, so the helper's emptiness check rejects it before anything would call ``.items()`` on it. So is
the call of a project helper that returns None or an empty display on some path (``through.py``), with the
path in the message; the left of ``or`` is never such a path, since it is returned only when truthy.

A part's ``to_pp_tensors`` (``index/parts.py``) that its container merges into its own mapping may return an
empty one: the container's other entries are what the helper checks. None still breaks the container, which
needs a mapping to merge. A part whose container returns its mapping as its own is judged as any output.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import ReturnFact
from ppaux_lint.rules import sent, through
from ppaux_lint.rules.base import CheckContext, OwnMethod, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    error = pp_errors.raised(pp_errors.EMPTY_OUTPUT)
    dropped = set()
    for own in context.own_methods(TO_PP):
        dropping = through.dropped_by(context, own)
        if dropping and not own.method.is_async and not own.method.is_generator:
            dropped.add(own.info.fqn)
            yield RULE.finding(f"{own.where} {dropping}, which the helper treats as empty: {error}", own.path,
                               own.method.span, own.info.fqn)
    for own, fact in sent.returns(context):
        if own.info.fqn in dropped:
            continue
        run = context.run(own.info)
        alone = run is not None and run.alone  # else a part's, sent in its containers' mapping beside theirs
        if fact.kind == "dict" and fact.exact and not fact.items:
            if alone:
                yield RULE.finding(f"{own.where} returns an empty mapping {sent.on_path(fact)}: {error}",
                                   own.path, fact.span, own.info.fqn)
        elif fact.kind == "none":
            if through.never_taken(context, own, fact):
                continue
            how = "can fall off its end and return None" if fact.implicit else f"returns None {sent.on_path(fact)}"
            then = (f"which the helper treats as empty: {error}" if alone else
                    "and the container's, which sends what it returns, fails on it with TypeError or AttributeError")
            yield RULE.finding(f"{own.where} {how}, {then}", own.path, fact.span, own.info.fqn)
        elif alone:
            sequence = sent.not_a_mapping(context, own, fact)
            if sequence is not None and sequence.empty:
                yield RULE.finding(f"{own.where} returns an empty {sequence.type_name} {sent.on_path(fact)} (not a "
                                   f"mapping, and falsy, so the helper's emptiness check rejects it first): {error}",
                                   own.path, fact.span, own.info.fqn)
            elif sequence is None:
                yield from _through_helpers(context, own, fact, error)


def _through_helpers(context: CheckContext, own: OwnMethod, fact: ReturnFact, error: str) -> Iterator[Finding]:
    paths = list(through.empty_paths(context, own, fact))
    if paths:
        others = f" (and {len(paths) - 1} other such path{'s' if len(paths) > 2 else ''})" if len(paths) > 1 else ""
        yield RULE.finding(f"{own.where} {through.described(fact, paths[0])}{others}, which the helper treats as "
                           f"empty: {error}", own.path, fact.span, own.info.fqn,
                           related=(through.related(context, paths[0]),))


RULE = Rule("PPA010", "empty-pp-tensors", "`to_pp_tensors` returns an empty mapping on some path", check,
            passed_despite="its examples all sent tensors, so none took that path")
