"""PPA014: ``from_pp_tensors`` can return None, which the helper reports as a failed reconstruction.

A ``return None`` (or falling off the end) is reported where it is, and so is a return of a project helper's
call that returns None on some path (``through.py``), with the path in the message. An ``Optional[...]``
annotation is reported only when the body may really return None, or returns something the inference cannot
see (``inference.py``): a method annotated ``Optional[X]`` whose every path returns an instance never returns
None. A method a project decorator wraps in a wrapper that never returns a value (``through.dropped_by``) returns
None on every call. A return under a test that the tensors are empty or None (``if not tensors: return None``) is
never taken: the helper returns before it calls ``from_pp_tensors`` when no tensor of the output arrived. Nor is
a None returned only when a literal key is absent (``if "ids" not in tensors: return None``, its ``else``, after or
falling off the end after ``if "ids" in tensors:``, ``ids = tensors.get("ids")`` then ``if ids is None:``, an
``except KeyError:`` around ``tensors["ids"]``: ``summarize.key_tests``), or returned so by a helper the method
hands its tensors to (``return self._rebuild(tensors)``: ``through.absent_keys``), where every observer that runs
the method certainly returns one output class whose ``to_pp_tensors`` sends each such key from every return, nor an
``Optional`` annotation whose only None is such a one.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import ReturnFact
from ppaux_lint.index.inference import NONE, UNKNOWN
from ppaux_lint.rules import sent, through
from ppaux_lint.rules.base import CheckContext, OwnMethod, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    error = pp_errors.raised(pp_errors.NOT_RECONSTRUCTED)
    for own in context.own_methods(FROM_PP):
        method = own.method
        if method.is_async or method.is_generator:
            continue  # PPA016 says why nothing it returns matters
        dropping = through.dropped_by(context, own)
        if dropping:
            yield RULE.finding(f"{own.where} {dropping}: {error}", own.path, method.span, own.info.fqn)
            continue
        taken = [r for r in method.returns if not r.empty_input]  # the helper never hands it an empty mapping
        arrives = [r for r in taken if r.kind == "none" and _arrives(context, own, r.absent_keys)]
        none_returns = [r for r in taken if r.kind == "none" and not through.never_taken(context, own, r)
                        and r not in arrives]
        for fact in none_returns:
            how = "can fall off its end, returning None" if fact.implicit else f"returns None {sent.on_path(fact)}"
            yield RULE.finding(f"{own.where} {how}: {error}", own.path, fact.span, own.info.fqn)
        helped = False
        skipped: set[tuple[str, int]] = set()  # the helpers' returns of None whose key always arrives
        for fact in taken:
            path = None
            for candidate in through.empty_paths(context, own, fact):
                if candidate.returned != "None":
                    continue
                if _arrives(context, own, through.absent_keys(context, own, fact, candidate)):
                    skipped.add((candidate.steps[-1].function, candidate.steps[-1].line))
                elif path is None:
                    path = candidate
            if path is not None:
                helped = True
                yield RULE.finding(f"{own.where} {through.described(fact, path)}: {error}", own.path, fact.span,
                                   own.info.fqn, related=(through.related(context, path),))
        if not none_returns and not helped and method.return_optional and _may_return_none(context, own.info.fqn,
                                                                                            arrives, skipped):
            yield RULE.finding(f"{own.where} is annotated `{method.return_annotation}`, so it may return None: "
                               f"{error}", own.path, method.return_annotation_span or method.span, own.info.fqn)


def _arrives(context: CheckContext, own: OwnMethod, keys: tuple[str, ...]) -> bool:
    """Whether each of ``keys`` is in every mapping each observer that runs ``own``'s method is handed."""
    return bool(keys) and all(_always_arrives(context, observer, key) for observer in context.runners(own.info, FROM_PP)
                              for key in keys)


def _always_arrives(context: CheckContext, observer: str, name: str) -> bool:
    """Whether the key ``name`` is in every mapping the observer's ``from_pp_tensors`` is handed: the one output
    its ``after_sample`` certainly returns sends it from every return of its ``to_pp_tensors``."""
    index = context.index
    output = index.sent_by(observer)
    member = index.lookup(output, TO_PP) if output else None
    if member is None or member.method is None or member.owner not in index.classes or member.site is None \
            or member.method.is_async or member.method.is_generator:
        return False
    return sent.always_sent(index, member.owner, member.method, name, output,
                            (member.site.module, member.site.scope))


def _may_return_none(context: CheckContext, cls: str, never: list[ReturnFact], skipped: set[tuple[str, int]]) -> bool:
    """Whether the body may return None, or something the inference cannot see, by any return but the ``never``
    taken ones (their key always arrives), and by any return of a helper it returns the call of but the ``skipped``
    ones (the same, in the helper)."""
    never_taken = {(-r.span.line if r.implicit else r.span.line, "None") for r in never}
    values = context.index.inference.body_returns(cls, FROM_PP, never_taken, skipped)
    return values is None or NONE in values or UNKNOWN in values


RULE = Rule("PPA014", "from-pp-tensors-may-return-none", "`from_pp_tensors` can return `None`", check,
            passed_despite=("{observer} rebuilt an output from everything its examples sent, so it never took that "
                            "path, which is often a guard against tensors that did not arrive"))
