"""Whether control can fall off the end of a method body, returning an implicit None.

Produces the ``implicit`` ``ReturnFact`` of a method. It is its own module
because it is a small control-flow analysis with a soundness direction of its
own: a body counts as ending only when it certainly does, so that a rule about
``to_pp_tensors`` returning None can trust an implicit return it is shown.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.facts.summarize.syntax import SCOPES, TRY_STATEMENTS, dotted

_EXITS = frozenset({"sys.exit", "exit", "os._exit", "typing.assert_never", "assert_never"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NOT_ENTERED = (*_LOOPS, *SCOPES)  # a break inside these does not leave the loop being asked about


def can_fall_through(body: Sequence[ast.stmt]) -> bool:
    """Whether control can reach the end of ``body``.

    Only the shapes that certainly end a body count as ending it (return,
    raise, exhaustive if/else (an ``elif`` that negates an earlier test counts
    as ``else``), try, ``while True`` without break, a loop without break whose
    ``else`` ends, exhaustive match, a ``with`` whose body ends unless it is
    ``contextlib.suppress``); a call to a helper that always raises is not
    followed here (``trailing_calls`` hands it to the index).
    """
    return not body or not _terminates(body[-1])


def _if_ends(stmt: ast.If, earlier: tuple[ast.expr, ...]) -> bool:
    """Whether every branch of an ``if``/``elif`` chain ends, its last ``elif`` standing for ``else`` when its test
    is the negation of an earlier test of the chain (``if x is not None: ... elif x is None: ...``: ``_OPPOSITE``)."""
    if can_fall_through(stmt.body):
        return False
    tests = (*earlier, stmt.test)
    if not stmt.orelse:
        return any(_negates(stmt.test, test) for test in earlier)
    if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
        return _if_ends(stmt.orelse[0], tests)
    return not can_fall_through(stmt.orelse)


_OPPOSITE = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq}
"""Comparisons of which exactly one holds, for any operands. Not ``<`` and ``>=``: on sets (``keys <= FULL``) they
are subset tests, on floats NaN fails both."""


def _negates(test: ast.expr, other: ast.expr) -> bool:
    """Whether ``test`` is true exactly when ``other`` is false, as written: ``not x`` and ``x``, or one comparison
    with the opposite operator between the same operands (``"k" in t`` and ``"k" not in t``). A call in either may
    answer otherwise the second time: no such test negates another."""
    if any(isinstance(node, (ast.Call, ast.Await, ast.NamedExpr, ast.Yield, ast.YieldFrom))
           for node in (*ast.walk(test), *ast.walk(other))):
        return False
    for a, b in ((test, other), (other, test)):
        if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.Not) and ast.dump(a.operand) == ast.dump(b):
            return True
    if isinstance(test, ast.Compare) and isinstance(other, ast.Compare) and len(test.ops) == len(other.ops) == 1:
        opposite = _OPPOSITE.get(type(test.ops[0]))
        return opposite is not None and isinstance(other.ops[0], opposite) \
            and ast.dump(test.left) == ast.dump(other.left) \
            and ast.dump(test.comparators[0]) == ast.dump(other.comparators[0])
    return False


def _terminates(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.Assert):
        return isinstance(stmt.test, ast.Constant) and not stmt.test.value
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in _EXITS
    if isinstance(stmt, ast.If):
        return _if_ends(stmt, ())
    if isinstance(stmt, (ast.With, ast.AsyncWith)):  # unless it swallows what ends the body
        return not can_fall_through(stmt.body) and not any(_suppresses(item.context_expr) for item in stmt.items)
    if isinstance(stmt, TRY_STATEMENTS):
        if stmt.finalbody and not can_fall_through(stmt.finalbody):
            return True
        main_ends = not can_fall_through(stmt.body) or bool(stmt.orelse and not can_fall_through(stmt.orelse))
        return main_ends and all(not can_fall_through(h.body) for h in stmt.handlers)
    if isinstance(stmt, _LOOPS):
        # Without a break, a loop ends only through its else clause (``for ... else: raise``), which a
        # ``while True`` never reaches
        infinite = isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
        ends = infinite or bool(stmt.orelse and not can_fall_through(stmt.orelse))
        return ends and not _breaks_out(stmt.body)
    if isinstance(stmt, ast.Match):
        irrefutable = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
                          for c in stmt.cases)
        return irrefutable and all(not can_fall_through(c.body) for c in stmt.cases)
    return False


def _suppresses(manager: ast.expr) -> bool:
    """``contextlib.suppress(...)``: an exception raised in the body ends the ``with`` statement instead, and
    control goes on after it."""
    return isinstance(manager, ast.Call) and dotted(manager.func).rsplit(".", 1)[-1] == "suppress"


def _breaks_out(body: Sequence[ast.stmt]) -> bool:
    """A ``break`` that leaves this loop (not one of an inner loop)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if not isinstance(node, _NOT_ENTERED):
            stack.extend(ast.iter_child_nodes(node))
        elif isinstance(node, _LOOPS):
            stack.extend(node.orelse)  # a break in a loop's else clause leaves the outer loop
    return False


def trailing_calls(body: Sequence[ast.stmt]) -> tuple[str, ...]:
    """The callees (dotted, as written) of the call statements that every path falling off the end of ``body``
    ends with (``fail("no ids")`` after the returns), or () where some such path ends otherwise: a call of a helper
    that never returns, which only the project's index can tell, ends those paths too."""
    found = _trailing(body)
    return tuple(dict.fromkeys(found)) if found else ()


def _trailing(body: Sequence[ast.stmt]) -> list[str] | None:
    if not body:
        return None
    last = body[-1]
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        callee = dotted(last.value.func)
        return [callee] if callee else None
    if isinstance(last, ast.If):
        if not last.orelse:
            return None  # the test's false branch falls through the ``if`` itself
        branches = [b for b in (last.body, last.orelse) if can_fall_through(b)]
        found = [_trailing(b) for b in branches]
        return None if any(f is None for f in found) else [c for f in found for c in f]  # type: ignore[union-attr]
    return None

