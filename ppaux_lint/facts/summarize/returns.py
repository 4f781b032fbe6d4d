"""How a method returns: the mapping ``to_pp_tensors`` builds, the object ``from_pp_tensors`` constructs.

Produces ``MethodSummary.returns`` (``ReturnFact``, with the ``KeyFact`` and
``ValueFact`` of a returned dict) and ``MethodSummary.is_generator``, since a
``yield`` anywhere changes what every ``return`` means: the returns are found among
the body's statements, a ``yield`` by a walk of every node only in a file that spells
one. Values are judged in ``values``, falling off the end in ``flow``.
A conditional expression is followed into its branches, since each is a value the
method can return (``return {"a": t} if t is not None else {}``), and so are the operands of
``or`` and ``and`` that can be the result, each marked with when it is (``return self._live() or {}``
returns ``{}`` whenever the left is falsy, and the left only when it is truthy). A returned local
that the method builds step by step (``out = {}``, ``out["a"] = t``, ``return out``)
is followed by ``built``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from ppaux_lint.facts.summarize.built import SEQUENCES, Locals
from ppaux_lint.facts.summarize.flow import can_fall_through, trailing_calls
from ppaux_lint.facts.summarize.key_tests import Keys, KeyTests
from ppaux_lint.facts.summarize.syntax import SCOPES, blocks, dotted, is_none, source, walk_scope, walk_statements
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summarize.values import LocalNames, key_fact, keyword_key, value_fact
from ppaux_lint.facts.summarize.values import receiver as receiver_of
from ppaux_lint.facts.summary import ReturnFact, Span

Local = Callable[[str, Span], "ReturnFact | None"]
"""What a ``return`` of a local name returns, at a span, when ``built`` can tell."""


def returns(node: ast.FunctionDef | ast.AsyncFunctionDef, positions: Positions,
            names: LocalNames, data: str = "") -> tuple[tuple[ReturnFact, ...], bool]:
    """The method's return facts, an implicit one last when it can fall off the end; and whether it yields.
    ``names`` are the names the method binds, which a key computed from constants cannot use; ``data``, for
    ``from_pp_tensors``, the parameter the helper hands the tensors in: a return under a test that it is empty
    or None (``if not tensors: return None``) is ``empty_input``, since the helper never calls it so."""
    facts: list[ReturnFact] = []
    is_generator = False
    receiver = receiver_of(node)
    built = Locals(node.body, receiver, positions, names)
    # a mapping the method changes may be empty, or lack a key, whatever the helper handed over
    kept = bool(data) and not _changed(node.body, data)
    guarded = _under_empty_test(node.body, data) if kept else set()
    tests = KeyTests(node, data) if kept else None
    absent = _under_absent_key(node, tests) if tests else {}
    handing = _handed_calls(node.body, data) if kept else set()
    for child in walk_statements(node.body):  # a return is a statement: no expression needs a visit for it
        if isinstance(child, ast.Return):
            local = partial(built.fact, child)
            found = _Returned(receiver, positions, local, names, tests).facts(child.value, positions.span(child))
            if id(child) in guarded:
                found = [replace(fact, empty_input=True) for fact in found]
            elif absent and id(child) in absent:
                found = _under_key(found, absent[id(child)])
            if id(child.value) in handing:
                found = [replace(fact, hands_over=True) if fact.kind == "construct" else fact for fact in found]
            facts.extend(found)
    if "yield" in positions.text:  # a yield is an expression, anywhere: looked for only where the file has one
        is_generator = any(isinstance(child, (ast.Yield, ast.YieldFrom)) for child in walk_scope(node.body))
    if can_fall_through(node.body):
        facts.append(ReturnFact("none", positions.name_span(node), implicit=True, calls=trailing_calls(node.body),
                                absent_keys=_falls_off_without(node.body, tests) if tests else ()))
    return tuple(facts), is_generator


class _Returned:
    """The facts of one ``return``'s value, walked into its conditional expressions and boolean operators."""

    def __init__(self, receiver: str, positions: Positions, local: Local, names: LocalNames,
                 tests: KeyTests | None = None) -> None:
        self.receiver = receiver
        self.positions = positions
        self.local = local
        self.names = names
        self.tests = tests  # of ``from_pp_tensors``'s tensors, unless the method changes them: ``absent_keys``

    def facts(self, value: ast.expr | None, span: Span) -> list[ReturnFact]:
        """One fact per value the ``return`` can give: a conditional expression gives one per branch, ``or`` and
        ``and`` one per operand that can be the result."""
        positions = self.positions
        if isinstance(value, ast.IfExp):
            otherwise = self.facts(value.orelse, positions.span(value.orelse))
            keys = self.tests.present(value.test) if self.tests else ()
            if keys:
                otherwise = _under_key(otherwise, keys)
            return self.facts(value.body, positions.span(value.body)) + otherwise
        if isinstance(value, ast.BoolOp):
            return self._operands(value)
        if value is None or is_none(value):
            return [ReturnFact("none", span)]
        if isinstance(value, ast.Name):
            fact = self.local(value.id, span)
            if fact is not None:
                return [fact]
        if isinstance(value, ast.Dict):
            items = [value_fact(key_fact(k, positions, self.names), v, self.receiver, positions)
                     for k, v in zip(value.keys, value.values, strict=True) if k is not None]
            return [ReturnFact("dict", span, tuple(items), exact=None not in value.keys)]
        if type(value) in SEQUENCES:
            elements = getattr(value, "elts", None)
            exact = elements is not None and not any(isinstance(e, ast.Starred) for e in elements)
            return [ReturnFact("sequence", span, exact=exact, container=SEQUENCES[type(value)],
                               empty=exact and not elements)]
        if isinstance(value, ast.Call) and dotted(value.func) == "dict":
            items = [value_fact(keyword_key(kw, positions), kw.value, self.receiver, positions)
                     for kw in value.keywords if kw.arg is not None]
            exact = not value.args and all(kw.arg is not None for kw in value.keywords)
            return [ReturnFact("dict", span, tuple(items), exact)]
        if isinstance(value, ast.Call) and dotted(value.func):
            sole = len(value.args) == 1 and not value.keywords and not isinstance(value.args[0], ast.Starred)
            return [ReturnFact("construct", span, constructs=dotted(value.func),
                               empty=not value.args and not value.keywords,
                               argument=dotted(value.args[0]) if sole else "")]
        return [ReturnFact("other", span)]

    def _operands(self, value: ast.BoolOp) -> list[ReturnFact]:
        """``a or b`` gives ``a`` when it is truthy and ``b`` otherwise; ``a and b`` gives ``a`` when it is falsy
        and ``b`` otherwise. An operand that is certainly of the wrong truth for its place is never the result,
        and one that is certainly of the other truth ends the expression there."""
        returned = isinstance(value.op, ast.Or)  # the truth an operand before the last is returned with
        when = "truthy" if returned else "falsy"
        out: list[ReturnFact] = []
        *early, last = value.values
        for operand in early:
            facts = self.facts(operand, self.positions.span(operand))
            truths = [truth(fact) for fact in facts]
            # a fact certainly of the other truth is never the result, nor is one that is only the result of an
            # inner operator with the other truth (``(a and b) or c`` never returns ``a``)
            out.extend(replace(fact, when=when) for fact, certain in zip(facts, truths, strict=True)
                       if certain is not (not returned) and fact.when in ("", when))
            if all(certain is returned for certain in truths):
                return out  # the expression stops at this operand, whatever it holds
        operator = "or" if returned else "and"
        before = source(ast.BoolOp(op=value.op, values=early)) if len(early) > 1 else source(early[0])
        return out + [fact if fact.after else replace(fact, after=(operator, before))
                      for fact in self.facts(last, self.positions.span(last))]



def truth(fact: ReturnFact) -> bool | None:
    """What a value the fact describes is when tested for truth: certainly falsy (False), certainly truthy
    (True), or either (None). A dict built step by step may hold nothing at a return that its keys name."""
    if fact.kind == "none" or (fact.kind == "dict" and fact.exact and not fact.items) or (
            fact.kind == "sequence" and fact.empty):
        return False
    if (fact.kind == "dict" and fact.items and not fact.built) or (fact.kind == "sequence" and fact.exact):
        return True
    return None


def _under_empty_test(body: list[ast.stmt], data: str) -> set[int]:
    """The ids of the ``return`` statements in the body of an ``if`` that tests ``data`` empty or None (``not
    tensors``, ``tensors is None``, ``len(tensors) == 0``, ``not len(tensors)``, ``tensors == {}``, or several
    joined by ``or``); ``data`` unchanged by the method (``_changed``)."""
    found: set[int] = set()
    for statement in walk_statements(body):
        if isinstance(statement, ast.If) and _tests_empty(statement.test, data):
            found.update(id(s) for s in walk_statements(statement.body) if isinstance(s, ast.Return))
    return found


def _under_absent_key(node: ast.FunctionDef | ast.AsyncFunctionDef, tests: KeyTests) -> dict[int, Keys]:
    """The ids of the ``return`` statements that run only when one of some literal keys is absent from the mapping
    ``tests`` are about, mapped to those keys: in the branch of an ``if`` that its test takes only then (``if "ids"
    not in tensors:``, the ``else`` of ``if "ids" in tensors:``: ``key_tests``), after such an ``if`` in the same
    block when its other branch cannot fall through (``if "ids" in tensors: return Out(...)`` then ``return None``),
    in a handler of the ``KeyError`` of reading them, in a later case of a ``match``, and anywhere below any of
    these; the mapping unchanged by the method (``_changed``). One pass over the statements, each block with the
    keys that hold for all of it (the nearest test's), so that thousands of tests cost thousands of steps."""
    found: dict[int, Keys] = {}
    todo: list[tuple[list[ast.stmt], Keys]] = [(node.body, ())]
    while todo:
        block, holding = todo.pop()
        for statement in block:
            if isinstance(statement, ast.Return):
                if holding:
                    found[id(statement)] = holding
            elif isinstance(statement, ast.If):
                body, orelse, after = holding, holding, ()
                for keys, absent, present in _key_branches(statement, tests):
                    if absent is statement.body:
                        body = keys
                    else:
                        orelse = keys
                    if not can_fall_through(present):  # what follows runs only when the other branch fell through
                        after = after or keys
                todo += [(statement.body, body), (statement.orelse, orelse)]
                holding = after or holding
            elif not isinstance(statement, SCOPES):
                todo += _nested(statement, holding, tests)
                holding = _passed_only_without(statement, tests) or holding  # after a ``match`` no case matched
    return found


def _nested(statement: ast.stmt, holding: Keys, tests: KeyTests) -> list[tuple[list[ast.stmt], Keys]]:
    """The statement lists under a compound statement other than ``if``, each with the keys that hold for it: a
    handler of a missing key's ``KeyError`` and a later case of a ``match`` add their own."""
    special = {id(body): keys for keys, body in (*tests.handled(statement), *tests.cases(statement))}
    out = [(getattr(statement, name), holding) for name in blocks(type(statement)) if name not in _NOT_STATEMENTS]
    for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        out.append((part.body, special.get(id(part.body), holding)))
    return out


def _key_branches(statement: ast.If, tests: KeyTests) -> list[tuple[Keys, list[ast.stmt], list[ast.stmt]]]:
    """(keys, the branch taken only when one of them is absent, the other branch) of an ``if`` whose test says so;
    none for any other test."""
    out = []
    keys = tests.absent(statement.test)
    if keys:
        out.append((keys, statement.body, statement.orelse))
    keys = tests.present(statement.test)
    if keys:
        out.append((keys, statement.orelse, statement.body))
    return out


_NOT_STATEMENTS = frozenset({"handlers", "cases"})  # lists of handlers and cases, whose bodies are blocks of their own


def _handed_calls(body: list[ast.stmt], data: str) -> set[int]:
    """The ids of the calls that a ``return`` makes of ``data`` alone (``return self._rebuild(tensors)``): where the
    method changes ``data`` nowhere else (``_changed``), each hands over the very mapping the helper handed the
    method, since a ``return`` ends the method (``ReturnFact.hands_over``)."""
    return {id(statement.value) for statement in walk_statements(body) if isinstance(statement, ast.Return)
            and isinstance(statement.value, ast.Call) and len(statement.value.args) == 1
            and not statement.value.keywords and _is_data(statement.value.args[0], data)}


def handed_on(node: ast.FunctionDef | ast.AsyncFunctionDef, receiver: str,
              returns_none: bool) -> tuple[tuple[int, ...], tuple[tuple[int, Keys], ...]]:
    """``FunctionFlow.hands`` and ``FunctionFlow.absent``, about the first parameter after ``receiver`` (the one a
    call with one argument, all that PPA014 follows, binds), when the function never changes it: the lines of the
    ``return f(p)`` that hand it on alone, and (line, keys) for each ``return None`` (or bare ``return``, or falling
    off the end, at the ``def``'s line negated; asked only when it ``returns_none``) that runs only when one of the
    literal ``keys`` is absent from it. A line that also holds another return is left out: the flow's returns are
    told apart by their lines only."""
    data = _first(node, receiver)
    calls = _handed_calls(node.body, data) if data else set()
    tested = returns_none and bool(data) and data in _tested_names(node.body)
    if not (calls or tested) or _changed(node.body, data):
        return (), ()
    hands = tuple(line for line, hands in _per_line(node.body, lambda s: id(s.value) in calls) if hands)
    if not tested:
        return hands, ()
    tests = KeyTests(node, data)
    absent = _under_absent_key(node, tests)
    found = [(line, keys) for line, keys in _per_line(
        node.body, lambda s: absent.get(id(s), ()) if s.value is None or is_none(s.value) else ()) if keys]
    keys = _falls_off_without(node.body, tests) if can_fall_through(node.body) else ()
    return hands, (*found, (-node.lineno, keys)) if keys else tuple(found)


def _per_line(body: list[ast.stmt], mark: Callable[[ast.Return], object]) -> list[tuple[int, object]]:
    """(line, mark) for each line of the body's ``return`` statements, in order, where they all have one mark."""
    by_line: dict[int, set[object]] = {}
    for statement in walk_statements(body):
        if isinstance(statement, ast.Return):
            by_line.setdefault(statement.lineno, set()).add(mark(statement))
    return [(line, marks.pop()) for line, marks in sorted(by_line.items()) if len(marks) == 1]


def _first(node: ast.FunctionDef | ast.AsyncFunctionDef, receiver: str) -> str:
    """The first positional parameter after ``receiver``: what a bound call's one argument is bound to; ""."""
    positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if receiver and positional[:1] == [receiver]:
        positional = positional[1:]
    return positional[0] if positional else ""


def _tested_names(body: list[ast.stmt]) -> set[str]:
    """The names read in the tests of the body's ``if`` statements and in its ``try`` bodies: only those can be the
    mapping a key test is about (a name bound to ``tensors.get(key)`` is read there, and so is ``tensors`` in the
    assignment, a statement of the body, that ``KeyTests`` reads it from)."""
    names: set[str] = set()
    for statement in walk_statements(body):
        if isinstance(statement, ast.If):
            names.update(n.id for n in ast.walk(statement.test) if isinstance(n, ast.Name))
        elif isinstance(statement, ast.Match):
            names.update(n.id for n in ast.walk(statement.subject) if isinstance(n, ast.Name))
        elif isinstance(statement, ast.Try):
            names.update(n.id for s in statement.body for n in ast.walk(s) if isinstance(n, ast.Name))
    if names:  # the mappings behind names bound to ``m.get(key)``
        names.update(n.value.func.value.id for n in walk_statements(body) if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                     and isinstance(n.value.func.value, ast.Name))
    return names


def _under_key(facts: list[ReturnFact], keys: Keys) -> list[ReturnFact]:
    """``facts`` of a return that runs only when one of ``keys`` is absent: each None among them says so
    (``absent_keys``)."""
    return [replace(fact, absent_keys=keys) if fact.kind == "none" else fact for fact in facts]


def _falls_off_without(body: list[ast.stmt], tests: KeyTests) -> Keys:
    """Literal keys one of which must be absent on every path to the end of ``body``: a statement of the body itself
    is an ``if`` whose branch for their presence cannot fall through (``if "ids" in tensors: return Out(...)``,
    with or without an ``else``). () otherwise."""
    for statement in body:
        if isinstance(statement, ast.If):
            for keys, _, present in _key_branches(statement, tests):
                if not can_fall_through(present):
                    return keys
        keys = _passed_only_without(statement, tests)
        if keys:
            return keys
    return ()


def _passed_only_without(statement: ast.stmt, tests: KeyTests) -> Keys:
    """For a ``match`` on the mapping whose every case ends (returns or raises), keys one of which is absent whenever
    control passes it: then no case matched (``KeyTests.unmatched``). () otherwise."""
    if not isinstance(statement, ast.Match) or any(can_fall_through(case.body) for case in statement.cases):
        return ()
    return tests.unmatched(statement)


_EMPTYING = frozenset({"pop", "popitem", "clear", "__delitem__"})
_READ_ONLY = frozenset({"len", "bool", "isinstance", "list", "dict", "set", "tuple", "sorted", "iter", "print", "repr",
                        "str", "any", "all", "logger.debug", "logger.info", "logging.debug", "logging.info"})
"""Calls that read a mapping handed to them and take nothing out of it."""


def _changed(body: list[ast.stmt], data: str) -> bool:
    """Whether the method binds ``data`` again or may take keys out of it (``tensors = {...}``, ``tensors.pop(k)``,
    ``del tensors[k]``, handing it to a function, another name for it), anywhere in its body: its emptiness is then
    its own, not the helper's. A call that is the whole value of a ``return`` does not count (``return
    self._rebuild(tensors)``): the method ends there, so no test or return of its own sees what the callee did."""
    handing = {id(s.value) for s in walk_statements(body)
               if isinstance(s, ast.Return) and isinstance(s.value, ast.Call)}
    for node in walk_scope(body):
        if isinstance(node, ast.Name) and node.id == data and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Call) and id(node) not in handing and dotted(node.func) not in _READ_ONLY and any(
                _is_data(arg, data) for arg in (*node.args, *(k.value for k in node.keywords))):
            return True  # handed to a function, which may take keys out of it
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and _is_data(node.value, data):
            return True  # another name for it, through which it may be emptied
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EMPTYING \
                and _is_data(node.func.value, data):
            return True
        if isinstance(node, ast.Delete) and any(isinstance(t, ast.Subscript) and _is_data(t.value, data)
                                                for t in node.targets):
            return True
    return False


def _tests_empty(test: ast.expr, data: str) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return all(_tests_empty(value, data) for value in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_data(test.operand, data) or _is_length(test.operand, data)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.Is):
            return _is_data(left, data) and is_none(right)
        if isinstance(op, ast.Eq):
            return (_is_data(left, data) and isinstance(right, ast.Dict) and not right.keys) or (
                _is_length(left, data) and isinstance(right, ast.Constant) and right.value == 0)
        if isinstance(op, ast.Lt):
            return _is_length(left, data) and isinstance(right, ast.Constant) and right.value == 1
    return False


def _is_data(node: ast.expr, data: str) -> bool:
    return isinstance(node, ast.Name) and node.id == data


def _is_length(node: ast.expr, data: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
            and len(node.args) == 1 and _is_data(node.args[0], data))
