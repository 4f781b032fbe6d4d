"""How a method returns: the mapping ``to_pp_tensors`` builds, the object ``from_pp_tensors`` constructs.

Produces ``MethodSummary.returns`` (``ReturnFact``, with the ``KeyFact`` and
``ValueFact`` of a returned dict) and ``MethodSummary.is_generator``. One walk
of the body finds both, since a ``yield`` anywhere changes what every
``return`` means. Values are judged in ``values``, falling off the end in ``flow``.
"""

from __future__ import annotations

import ast

from ppaux_lint.summarize.flow import can_fall_through
from ppaux_lint.summarize.syntax import dotted, is_none, source, string, walk_scope
from ppaux_lint.summarize.text import Positions
from ppaux_lint.summarize.values import not_tensor
from ppaux_lint.summary import KeyFact, ReturnFact, Span, ValueFact


def returns(node: ast.FunctionDef | ast.AsyncFunctionDef, positions: Positions) -> tuple[tuple[ReturnFact, ...], bool]:
    """The method's return facts, an implicit one last when it can fall off the end; and whether it yields."""
    facts: list[ReturnFact] = []
    is_generator = False
    for child in walk_scope(node.body):
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            is_generator = True
        elif isinstance(child, ast.Return):
            facts.append(_return_fact(child, positions))
    if can_fall_through(node.body):
        facts.append(ReturnFact("none", positions.name_span(node), implicit=True))
    return tuple(facts), is_generator


def _return_fact(node: ast.Return, positions: Positions) -> ReturnFact:
    span = positions.span(node)
    value = node.value
    if value is None or is_none(value):
        return ReturnFact("none", span)
    if isinstance(value, ast.Dict):
        items = [ValueFact(_key(k, positions), not_tensor(v), positions.span(v))
                 for k, v in zip(value.keys, value.values, strict=True) if k is not None]
        return ReturnFact("dict", span, tuple(items), exact=None not in value.keys)
    if isinstance(value, ast.Call) and dotted(value.func) == "dict":
        items = [ValueFact(KeyFact("str", kw.arg, _keyword_span(kw, positions)), not_tensor(kw.value),
                           positions.span(kw.value)) for kw in value.keywords if kw.arg is not None]
        exact = not value.args and all(kw.arg is not None for kw in value.keywords)
        return ReturnFact("dict", span, tuple(items), exact)
    if isinstance(value, ast.Call) and dotted(value.func):
        return ReturnFact("construct", span, constructs=dotted(value.func))
    return ReturnFact("other", span)


def _keyword_span(keyword: ast.keyword, positions: Positions) -> Span:
    """The span of the name in ``dict(name=...)``: where a key written as a keyword stands."""
    span = positions.span(keyword)
    return Span(span.line, span.column, span.line, span.column + len(keyword.arg or ""))


def _key(key: ast.expr, positions: Positions) -> KeyFact:
    span = positions.span(key)
    text = string(key)
    if text is not None:
        return KeyFact("str" if text else "empty", text, span)
    if isinstance(key, (ast.Constant, ast.Tuple)):
        return KeyFact("nonstr", source(key), span)
    return KeyFact("dynamic", source(key), span)
