"""PPA010: ``to_pp_tensors`` returns an empty mapping, or None, on some path.

An empty list, tuple or set is reported here too rather than as PPA019: it is not a mapping either, but it
is falsy, so the helper's emptiness check rejects it before anything would call ``.items()`` on it. So is
the call of a project helper that returns None or an empty display on some path (``through.py``), with the
path in the message; the left of ``or`` is never such a path, since it is returned only when truthy.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import ReturnFact
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.rules import sent, through
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    error = pp_errors.raised(pp_errors.EMPTY_OUTPUT)
    for info, where, fact in sent.returns(context):
        if fact.kind == "dict" and fact.exact and not fact.items:
            yield RULE.finding(f"{where} returns an empty mapping {sent.on_path(fact)}: {error}",
                               info.path, fact.span, info.fqn)
        elif fact.kind == "none":
            how = "can fall off its end and return None" if fact.implicit else f"returns None {sent.on_path(fact)}"
            yield RULE.finding(f"{where} {how}, which the helper treats as empty: {error}",
                               info.path, fact.span, info.fqn)
        else:
            sequence = sent.not_a_mapping(context, info, fact)
            if sequence is not None and sequence.empty:
                yield RULE.finding(f"{where} returns an empty {sequence.type_name} {sent.on_path(fact)} (not a "
                                   f"mapping, and falsy, so the helper's emptiness check rejects it first): {error}",
                                   info.path, fact.span, info.fqn)
            elif sequence is None:
                yield from _through_helpers(context, info, where, fact, error)


def _through_helpers(context: CheckContext, info: ClassInfo, where: str, fact: ReturnFact,
                     error: str) -> Iterator[Finding]:
    paths = list(through.empty_paths(context, info, TO_PP, fact))
    if paths:
        others = f" (and {len(paths) - 1} other such path{'s' if len(paths) > 2 else ''})" if len(paths) > 1 else ""
        yield RULE.finding(f"{where} {through.described(fact, paths[0])}{others}, which the helper treats as "
                           f"empty: {error}", info.path, fact.span, info.fqn,
                           related=(through.related(context, paths[0]),))


RULE = Rule("PPA010", "empty-pp-tensors", "`to_pp_tensors` returns an empty mapping on some path", check,
            passed_despite="its examples all sent tensors, so none took that path")
