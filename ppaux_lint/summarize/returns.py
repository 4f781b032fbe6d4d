"""How a method returns: the mapping ``to_pp_tensors`` builds, the object ``from_pp_tensors`` constructs.

Produces ``MethodSummary.returns`` (``ReturnFact``, with the ``KeyFact`` and
``ValueFact`` of a returned dict) and ``MethodSummary.is_generator``. One walk
of the body finds both, since a ``yield`` anywhere changes what every
``return`` means. Values are judged in ``values``, falling off the end in ``flow``.
A conditional expression is followed into its branches, since each is a value the
method can return (``return {"a": t} if t is not None else {}``).
"""

from __future__ import annotations

import ast

from ppaux_lint.summarize.flow import can_fall_through
from ppaux_lint.summarize.syntax import called_name, dotted, is_none, source, string, walk_scope
from ppaux_lint.summarize.text import Positions
from ppaux_lint.summarize.values import not_tensor
from ppaux_lint.summary import KeyFact, ReturnFact, Span, ValueFact

_SEQUENCES = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set", ast.ListComp: "list", ast.SetComp: "set",
              ast.GeneratorExp: "generator"}


def returns(node: ast.FunctionDef | ast.AsyncFunctionDef, positions: Positions) -> tuple[tuple[ReturnFact, ...], bool]:
    """The method's return facts, an implicit one last when it can fall off the end; and whether it yields."""
    facts: list[ReturnFact] = []
    is_generator = False
    receiver = _receiver(node)
    for child in walk_scope(node.body):
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            is_generator = True
        elif isinstance(child, ast.Return):
            facts.extend(_return_facts(child.value, positions.span(child), receiver, positions))
    if can_fall_through(node.body):
        facts.append(ReturnFact("none", positions.name_span(node), implicit=True))
    return tuple(facts), is_generator


def _receiver(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The name the method's instance is bound to ("" for a staticmethod or a method without parameters)."""
    positional = node.args.posonlyargs + node.args.args
    if not positional or any(called_name(d) == "staticmethod" for d in node.decorator_list):
        return ""
    return positional[0].arg


def _return_facts(value: ast.expr | None, span: Span, receiver: str, positions: Positions) -> list[ReturnFact]:
    """One fact per value the ``return`` can give: a conditional expression gives one per branch."""
    if isinstance(value, ast.IfExp):
        return [fact for branch in (value.body, value.orelse)
                for fact in _return_facts(branch, positions.span(branch), receiver, positions)]
    if value is None or is_none(value):
        return [ReturnFact("none", span)]
    if isinstance(value, ast.Dict):
        items = [_value(_key(k, positions), v, receiver, positions)
                 for k, v in zip(value.keys, value.values, strict=True) if k is not None]
        return [ReturnFact("dict", span, tuple(items), exact=None not in value.keys)]
    if type(value) in _SEQUENCES:
        elements = getattr(value, "elts", None)
        exact = elements is not None and not any(isinstance(e, ast.Starred) for e in elements)
        return [ReturnFact("sequence", span, exact=exact, container=_SEQUENCES[type(value)],
                           empty=exact and not elements)]
    if isinstance(value, ast.Call) and dotted(value.func) == "dict":
        items = [_value(KeyFact("str", kw.arg, _keyword_span(kw, positions)), kw.value, receiver, positions)
                 for kw in value.keywords if kw.arg is not None]
        exact = not value.args and all(kw.arg is not None for kw in value.keywords)
        return [ReturnFact("dict", span, tuple(items), exact)]
    if isinstance(value, ast.Call) and dotted(value.func):
        return [ReturnFact("construct", span, constructs=dotted(value.func),
                           empty=not value.args and not value.keywords)]
    return [ReturnFact("other", span)]


def _value(key: KeyFact, value: ast.expr, receiver: str, positions: Positions) -> ValueFact:
    reason = not_tensor(value)
    call = dotted(value.func) if isinstance(value, ast.Call) and not reason else ""
    attribute = (value.attr if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                 and receiver and value.value.id == receiver and not reason else "")
    return ValueFact(key, reason, positions.span(value), call, attribute)


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
