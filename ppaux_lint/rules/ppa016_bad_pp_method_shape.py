"""PPA016: a transport method that cannot be called the way the helpers call it.

``add`` calls ``output.to_pp_tensors()`` and then ``.items()`` on the result; ``pop`` calls
``observer.from_pp_tensors(tensors)`` with exactly one argument, and the first stage later calls
``copy_to_host`` on what it returns. Properties, ``async def``, generators and wrong arities all break that.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract.names import ADD_HELPER, FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import MethodSummary
from ppaux_lint.rules.base import CheckContext, Rule

_PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property"})


def check(context: CheckContext) -> Iterator[Finding]:
    for name, problem in ((TO_PP, _to_pp_shape), (FROM_PP, _from_pp_shape)):
        for own in context.own_methods(name):
            message = problem(own.method)
            if message:
                yield RULE.finding(f"{own.where} {message}", own.path, own.method.span, own.info.fqn)


def _kind_problem(method: MethodSummary, result_use: str) -> str:
    if any(d in _PROPERTIES for d in method.decorators):
        return ("is a property, so the helper calls the value it returns: TypeError: "
                "'dict' object is not callable")
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
    if required > 1:
        return (f"requires {required} arguments besides self, but the helper passes exactly one (the "
                f"tensors): TypeError: missing required argument")
    if total == 0 and not vararg:
        return ("takes no argument besides self, but the helper passes the received tensors: TypeError: "
                "takes 1 positional argument but 2 were given")
    return ""


RULE = Rule("PPA016", "bad-pp-method-shape",
            "A PP transport method is async, a generator, a property, or has the wrong arity", check)
