"""PPA016: a transport method that cannot be called the way the helpers call it.

``add`` calls ``output.to_pp_tensors()`` and then ``.items()`` on the result; ``pop`` calls
``observer.from_pp_tensors(tensors)`` with exactly one argument, and the first stage later calls
``copy_to_host`` on what it returns. Properties, ``async def``, generators and wrong arities all break that. A
method a project decorator wraps (one that returns another function than it was given) is what that wrapper
makes it, and is not judged by its own ``def``.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract.names import ADD_HELPER, FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import MethodSummary, ReturnFact
from ppaux_lint.rules import through
from ppaux_lint.rules.base import CheckContext, OwnMethod, Rule
from ppaux_lint.rules.sent import written_in

_PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property"})


def check(context: CheckContext) -> Iterator[Finding]:
    for name, problem in ((TO_PP, _to_pp_shape), (FROM_PP, _from_pp_shape)):
        for own in context.own_methods(name):
            found = _property_problem(context, own)
            wrapped = through.wrapped_by(context, own)
            if found is None and wrapped is not None and wrapped[1] == "changes":
                continue  # what the helper calls is the project decorator's wrapper, whose shape is its own
            message = problem(own.method) if found is None else found
            if message:
                yield RULE.finding(f"{own.where} {message}", own.path, own.method.span, own.info.fqn)


def _property_problem(context: CheckContext, own: OwnMethod) -> str | None:
    """None when the method is no property; else what calling the value it returns raises, or "" when that value
    may be callable (``return lambda: {...}``, ``return self._pack``): the helper calls what the property gives,
    whose shape the getter's own does not tell."""
    method = own.method
    if not any(d in _PROPERTIES for d in method.decorators):
        return None
    if method.is_async or method.is_generator or not method.returns:
        return ""  # a getter that never returns, or returns an object whose type the message would guess
    names = {_type_name(context, own, fact) for fact in method.returns}
    if "" in names:
        return ""
    return (f"is a property, so the helper calls the value it returns: TypeError: "
            f"'{sorted(names)[0]}' object is not callable")


def _type_name(context: CheckContext, own: OwnMethod, fact: ReturnFact) -> str:
    """The type of what a return gives, as a TypeError names it, when that is certainly not callable; else ""."""
    if fact.kind in _NOT_CALLABLE:
        return _NOT_CALLABLE[fact.kind] or fact.container
    if fact.kind != "construct":
        return ""
    index = context.index
    module, scope = written_in(index, own.info.fqn, own.method, own.module, own.scope)
    target = index.resolve(module, fact.constructs, scope)
    if target not in index.classes or index.info(target).unresolved_bases or \
            index.lookup(target, "__call__", seen=True) is not None:
        return ""  # an instance of a class the analysis cannot see whole, or one that is callable
    return target.rsplit(".", 1)[-1]  # type: ignore[union-attr]


_NOT_CALLABLE = {"dict": "dict", "none": "NoneType", "sequence": ""}  # "" for a sequence: its container names it


def _kind_problem(method: MethodSummary, result_use: str) -> str:
    if method.is_async:
        return f"is `async def`: calling it returns a coroutine, and {result_use} fails on it"
    if method.is_generator:
        return f"is a generator: calling it returns a generator object, and {result_use} fails on it"
    return ""


def _arity(method: MethodSummary) -> tuple[int, int, bool, list[str]]:
    """(required positional, total positional, has *args, required keyword-only), without self/cls."""
    positional = [p for p in method.params if p.kind in ("posonly", "pos")]
    if "staticmethod" not in method.decorators:
        positional = positional[1:]
    required = sum(1 for p in positional if not p.has_default)
    vararg = any(p.kind == "vararg" for p in method.params)
    kwonly = [p.name for p in method.params if p.kind == "kwonly" and not p.has_default]
    return required, len(positional), vararg, kwonly


def _takes_no_self(method: MethodSummary) -> bool:
    bound = "staticmethod" not in method.decorators
    return bound and not any(p.kind in ("posonly", "pos", "vararg") for p in method.params)


def _to_pp_shape(method: MethodSummary) -> str:
    kind = _kind_problem(method, f"{ADD_HELPER} (which calls `.items()`)")
    if kind:
        return kind
    if _takes_no_self(method):
        return "takes no `self`: TypeError: it takes 0 positional arguments but 1 was given"
    required, _, _, kwonly = _arity(method)
    if required or kwonly:
        return (f"requires {required + len(kwonly)} argument(s), but the helper calls it with none: "
                f"TypeError: missing required argument")
    return ""


def _from_pp_shape(method: MethodSummary) -> str:
    kind = _kind_problem(method, "the first stage (which calls `copy_to_host` on the result)")
    if kind:
        return kind
    if _takes_no_self(method):
        return "takes no `self`: TypeError when the helper passes the tensors"
    required, total, vararg, kwonly = _arity(method)
    if kwonly:
        return f"requires keyword-only argument(s) {', '.join(kwonly)}: TypeError when the helper calls it"
    besides = "" if "staticmethod" in method.decorators else " besides self"  # a staticmethod binds nothing
    if required > 1:
        return (f"requires {required} arguments{besides}, but the helper passes exactly one (the "
                f"tensors): TypeError: missing required argument")
    if total == 0 and not vararg:
        given = "1 positional argument but 2 were given" if besides else "0 positional arguments but 1 was given"
        return f"takes no argument{besides}, but the helper passes the received tensors: TypeError: takes {given}"
    return ""


RULE = Rule("PPA016", "bad-pp-method-shape",
            "A PP transport method is async, a generator, a property, or has the wrong arity", check)
