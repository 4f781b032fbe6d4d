"""How a method returns: the mapping ``to_pp_tensors`` builds, the object ``from_pp_tensors`` constructs.

Produces ``MethodSummary.returns`` (``ReturnFact``, with the ``KeyFact`` and
``ValueFact`` of a returned dict) and ``MethodSummary.is_generator``. One walk
of the body finds both, since a ``yield`` anywhere changes what every
``return`` means. Values are judged in ``values``, falling off the end in ``flow``.
A conditional expression is followed into its branches, since each is a value the
method can return (``return {"a": t} if t is not None else {}``). A returned local
that the method builds step by step (``out = {}``, ``out["a"] = t``, ``return out``)
is followed by ``built``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial

from ppaux_lint.facts.summarize.built import SEQUENCES, Locals
from ppaux_lint.facts.summarize.flow import can_fall_through
from ppaux_lint.facts.summarize.syntax import called_name, dotted, is_none, walk_scope
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summarize.values import key_fact, keyword_key, value_fact
from ppaux_lint.facts.summary import ReturnFact, Span

Local = Callable[[str, Span], "ReturnFact | None"]
"""What a ``return`` of a local name returns, at a span, when ``built`` can tell."""


def returns(node: ast.FunctionDef | ast.AsyncFunctionDef, positions: Positions) -> tuple[tuple[ReturnFact, ...], bool]:
    """The method's return facts, an implicit one last when it can fall off the end; and whether it yields."""
    facts: list[ReturnFact] = []
    is_generator = False
    receiver = _receiver(node)
    built = Locals(node.body, receiver, positions)
    for child in walk_scope(node.body):
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            is_generator = True
        elif isinstance(child, ast.Return):
            local = partial(built.fact, child)
            facts.extend(_return_facts(child.value, positions.span(child), receiver, positions, local))
    if can_fall_through(node.body):
        facts.append(ReturnFact("none", positions.name_span(node), implicit=True))
    return tuple(facts), is_generator


def _receiver(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The name the method's instance is bound to ("" for a staticmethod or a method without parameters)."""
    positional = node.args.posonlyargs + node.args.args
    if not positional or any(called_name(d) == "staticmethod" for d in node.decorator_list):
        return ""
    return positional[0].arg


def _return_facts(value: ast.expr | None, span: Span, receiver: str, positions: Positions,
                  local: Local) -> list[ReturnFact]:
    """One fact per value the ``return`` can give: a conditional expression gives one per branch."""
    if isinstance(value, ast.IfExp):
        return [fact for branch in (value.body, value.orelse)
                for fact in _return_facts(branch, positions.span(branch), receiver, positions, local)]
    if value is None or is_none(value):
        return [ReturnFact("none", span)]
    if isinstance(value, ast.Name):
        fact = local(value.id, span)
        if fact is not None:
            return [fact]
    if isinstance(value, ast.Dict):
        items = [value_fact(key_fact(k, positions), v, receiver, positions)
                 for k, v in zip(value.keys, value.values, strict=True) if k is not None]
        return [ReturnFact("dict", span, tuple(items), exact=None not in value.keys)]
    if type(value) in SEQUENCES:
        elements = getattr(value, "elts", None)
        exact = elements is not None and not any(isinstance(e, ast.Starred) for e in elements)
        return [ReturnFact("sequence", span, exact=exact, container=SEQUENCES[type(value)],
                           empty=exact and not elements)]
    if isinstance(value, ast.Call) and dotted(value.func) == "dict":
        items = [value_fact(keyword_key(kw, positions), kw.value, receiver, positions)
                 for kw in value.keywords if kw.arg is not None]
        exact = not value.args and all(kw.arg is not None for kw in value.keywords)
        return [ReturnFact("dict", span, tuple(items), exact)]
    if isinstance(value, ast.Call) and dotted(value.func):
        return [ReturnFact("construct", span, constructs=dotted(value.func),
                           empty=not value.args and not value.keywords)]
    return [ReturnFact("other", span)]

