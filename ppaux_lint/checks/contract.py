"""PPA010-PPA014 and PPA016: what a transport method returns, and whether it can be called as the helpers call it.

Each check reads only the facts the summary recorded as certain. A key built
at run time, a value of unknown type or a return of some variable is silence,
never a guess.
"""

from __future__ import annotations

from typing import Iterator

from ppaux_lint import pp_errors
from ppaux_lint.checks.context import CheckContext
from ppaux_lint.findings import Finding
from ppaux_lint.index import FROM_PP, TO_PP
from ppaux_lint.model import ClassInfo
from ppaux_lint.summary import MethodSummary, ReturnFact

_PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property"})


def _own_methods(context: CheckContext, name: str) -> Iterator[tuple[ClassInfo, MethodSummary]]:
    """Each concrete class's own definition of ``name``, so a method is judged once, where it is written."""
    for info in context.concrete():
        method = info.summary.method(name)
        if method is not None and not _is_abstract_stub(method):
            yield info, method


def _is_abstract_stub(method: MethodSummary) -> bool:
    return method.body_is_stub and any(d.rsplit(".", 1)[-1] == "abstractmethod" for d in method.decorators)


def _finding(code: str, info: ClassInfo, span, message: str) -> Finding:
    return Finding(code=code, message=message, path=info.path, span=span, symbol=info.fqn)


def to_pp_tensors_contract(context: CheckContext) -> Iterator[Finding]:
    for info, method in _own_methods(context, TO_PP):
        if method.is_async or method.is_generator:
            continue  # PPA016 says why nothing it returns matters
        where = f"`{info.fqn}.{TO_PP}`"
        for fact in method.returns:
            yield from _empty_return(info, where, fact)
            if fact.kind != "dict":
                continue
            seen: set[str] = set()
            for item in fact.items:
                key = item.key
                if key.kind in ("empty", "nonstr"):
                    yield _finding("PPA011", info, key.span,
                                   f"{where} returns a tensor named {key.value or repr('')}, which is not a "
                                   f"non-empty string: {pp_errors.raised(pp_errors.BAD_NAME)}")
                    continue
                if key.kind == "str" and item.not_tensor:
                    message = pp_errors.NOT_A_TENSOR.format(name=key.value)
                    yield _finding("PPA012", info, item.span,
                                   f"{where} returns {item.not_tensor} under {key.value!r}, not a tensor: "
                                   f"{pp_errors.raised(message)}")
                if key.kind == "str":
                    if key.value in seen:
                        yield _finding("PPA013", info, key.span,
                                       f"{where} returns {key.value!r} twice in one dict; the first tensor is "
                                       f"silently replaced and never reaches the next stage")
                    seen.add(key.value)


def _empty_return(info: ClassInfo, where: str, fact: ReturnFact) -> Iterator[Finding]:
    error = pp_errors.raised(pp_errors.EMPTY_OUTPUT)
    if fact.kind == "dict" and fact.exact and not fact.items:
        yield _finding("PPA010", info, fact.span, f"{where} returns an empty mapping on this path: {error}")
    elif fact.kind == "none":
        how = "can fall off its end and return None" if fact.implicit else "returns None on this path"
        yield _finding("PPA010", info, fact.span, f"{where} {how}, which the helper treats as empty: {error}")


def from_pp_tensors_contract(context: CheckContext) -> Iterator[Finding]:
    error = pp_errors.raised(pp_errors.NOT_RECONSTRUCTED)
    for info, method in _own_methods(context, FROM_PP):
        if method.is_async or method.is_generator:
            continue
        where = f"`{info.fqn}.{FROM_PP}`"
        none_returns = [r for r in method.returns if r.kind == "none"]
        for fact in none_returns:
            how = "can fall off its end, returning None" if fact.implicit else "returns None on this path"
            yield _finding("PPA014", info, fact.span, f"{where} {how}: {error}")
        if not none_returns and method.return_optional:
            yield _finding("PPA014", info, method.return_annotation_span or method.span,
                           f"{where} is annotated `{method.return_annotation}`, so it may return None: {error}")


def method_shapes(context: CheckContext) -> Iterator[Finding]:
    for name, problem in ((TO_PP, _to_pp_shape), (FROM_PP, _from_pp_shape)):
        for info, method in _own_methods(context, name):
            message = problem(method)
            if message:
                yield _finding("PPA016", info, method.span, f"`{info.fqn}.{name}` {message}")


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
    kind = _kind_problem(method, "add_auxiliary_output_to_pp_tensors (which calls `.items()`)")
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
