"""A mapping built step by step in a local and then returned: ``out = {}``, ``out["ids"] = self.ids``, ``return out``.

Produces the ``ReturnFact`` of ``return <name>`` for ``returns``, when the method binds the name exactly once,
at the top level of its body, to a dict display or a ``dict(...)`` call, or to a list, tuple or set display.
For a dict it follows, in source order and along each path, what fills it:

- ``out[key] = value`` (also ``out[a] = out[b] = v``, ``out[a], out[b] = x, y``, ``out[key]: T = v``, and
  ``out[key] += v``, whose value it leaves unknown);
- ``out.update({...})``, ``out.update(dict(...))``, ``out.update(k=v)``, ``out |= {...}``,
  ``out.setdefault(key, value)``;
- ``del out[key]``, ``out.pop(key)``, ``out.clear()``;
- a ``for`` over a display of constants (``for name in ("ids", "lengths")``, or unpacking ``for key, attr in
  (("ids", "token_ids"), ...)``, or of names of constants: ``for name in (K_IDS, K_LENGTHS)``), once per
  element, so that ``out[name] = getattr(self, name)`` has a known key, and a value that reads
  ``self.<name>``.

The fact says what the mapping may hold at that ``return``: every key some path to it puts there, each with
every value it may hold then. An assignment on the path replaces the value before it; one that may not run
(under an ``if``, in a loop body that may run zero times, in a ``try`` cut short) adds a possibility. So
``items`` may name a key once per value (``built`` marks the fact: a key assigned twice is overwritten, which
is what building a dict is, not a duplicate). A key put only on some paths counts as there: the mapping is
empty at a ``return`` only when no path to it puts anything.

``exact`` is False when the mapping may hold a key the syntax does not show: a key computed at run time (one
computed from constants is shown: the index resolves it, and the rules are silent where it cannot), a
merge of a mapping it cannot see (``out.update(other)``, ``**other``, ``dict(other)``), which also makes
every value before it unknown, or the removal of an unknown key, which forgets every entry. Any other use of
the dict (passed to a call, stored, aliased) is an escape: every entry known before is forgotten, since the
callee may remove or replace any of them, and from then on every call forgets them again, since it may
reach the dict through the alias. Reads (``out["k"]``, ``out.get``, ``.keys()``/``.items()``/``.values()``,
``k in out``, ``len(out)``, a truth test) are not escapes.

It gives up, leaving ``returns``' "other" fact, when the name is bound a second time in any form, used in a
nested function, class or lambda, or bound outside the top level of the body. A list, tuple or set local
gives a "sequence" fact: exact (so possibly known empty) only while nothing but ``return`` uses it, or
always for a tuple, which nothing can change in place.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ppaux_lint.facts.summarize.syntax import SCOPES, dotted, walk_scope
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summarize.values import LocalNames, computed, key_fact, keyword_key, value_fact
from ppaux_lint.facts.summary import KeyFact, ReturnFact, Span, ValueFact

SEQUENCES = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set", ast.ListComp: "list", ast.SetComp: "set",
             ast.GeneratorExp: "generator"}
"""The displays and comprehensions that make a sequence, and the container each makes."""
_READ_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__"})
_READ_CALLS = frozenset({"len", "bool", "isinstance", "list", "tuple", "sorted", "set", "frozenset", "dict"})

Env = dict[str, "ast.expr | None"]
"""What a loop variable stands for in this iteration: a constant element, or None when unknown."""


class _State:
    """What the mapping may hold at one point: key -> the values it may hold there; and the keys it certainly holds
    (put on every path to here, and taken out on none)."""

    __slots__ = ("certain", "entries", "escaped", "exact")

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], list[ValueFact]] = {}
        self.certain: set[tuple[str, str]] = set()
        self.exact = True
        self.escaped = False

    def copy(self) -> _State:
        other = _State()
        other.entries = {key: list(values) for key, values in self.entries.items()}
        other.certain = set(self.certain)
        other.exact, other.escaped = self.exact, self.escaped
        return other

    def put(self, fact: ValueFact, maybe: bool) -> None:
        if fact.key.kind == "dynamic" and not fact.key.computed:
            self.exact = False
        values = self.entries.setdefault(_identity(fact.key), [])
        if not maybe:
            values.clear()
            self.certain.add(_identity(fact.key))
        if fact not in values:
            values.append(fact)

    def remove(self, key: KeyFact, maybe: bool) -> None:
        if key.kind == "dynamic":
            self.forget()
            return
        self.certain.discard(_identity(key))  # whether or not the removal ran
        if not maybe:
            self.entries.pop(_identity(key), None)

    def merge_unknown(self) -> None:
        """A mapping the syntax does not show is merged in: any key may come, any value may be replaced."""
        self.exact = False
        for values in self.entries.values():
            values[:] = [ValueFact(values[0].key, "", values[0].span)]

    def forget(self) -> None:
        self.entries.clear()
        self.certain.clear()
        self.exact = False

    def escape(self) -> None:
        self.forget()
        self.escaped = True

    def fact(self, span: Span) -> ReturnFact:
        items = sorted((value for values in self.entries.values() for value in values),
                       key=lambda value: (value.span.line, value.span.column))  # in source order
        always = tuple(sorted(value for kind, value in self.certain if kind == "str"))
        return ReturnFact("dict", span, tuple(items), self.exact, built=True, always=always)


def _identity(key: KeyFact) -> tuple[str, str]:
    """Keys that are the same key at run time; each key computed at run time is its own, but one computed from
    constants is the same wherever the method writes it the same way."""
    if key.kind != "dynamic" or key.computed:
        return (key.kind, key.value)
    return (key.kind, f"{key.span.line}:{key.span.column}")


def _join(states: Iterable[_State | None]) -> _State | None:
    """What the mapping may hold where paths meet; None when no path reaches there."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    out = live[0].copy()
    for other in live[1:]:
        for key, values in other.entries.items():
            mine = out.entries.setdefault(key, [])
            mine.extend(v for v in values if v not in mine)
        out.certain &= other.certain  # certain where every path put it
        out.exact = out.exact and other.exact
        out.escaped = out.escaped or other.escaped
    return out


class Locals:
    """The locals a method returns, each followed once, on the first ``return`` that names it."""

    def __init__(self, body: Sequence[ast.stmt], receiver: str, positions: Positions, names: LocalNames) -> None:
        self._body = body
        self._receiver = receiver
        self._positions = positions
        self._names = names
        self._followed: dict[str, _Followed | None] = {}

    def fact(self, statement: ast.Return, name: str, span: Span) -> ReturnFact | None:
        """What ``return <name>`` in ``statement`` returns, at ``span``; None when it cannot tell."""
        if name not in self._followed:
            self._followed[name] = _follow(self._body, name, self._receiver, self._positions, self._names)
        followed = self._followed[name]
        if followed is None:
            return None
        if followed.sequence is not None:
            return replace(followed.sequence, span=span) if statement.lineno > followed.line else None
        state = followed.at_return.get(id(statement))
        return state.fact(span) if state is not None else None


class _Followed:
    __slots__ = ("at_return", "line", "sequence")

    def __init__(self, line: int, at_return: dict[int, _State], sequence: ReturnFact | None = None) -> None:
        self.line = line
        self.at_return = at_return
        self.sequence = sequence


def _follow(body: Sequence[ast.stmt], name: str, receiver: str, positions: Positions,
            names: LocalNames) -> _Followed | None:
    binding = next((i for i, stmt in enumerate(body) if _bound_value(stmt, name) is not None), None)
    if binding is None:
        return None
    value = _bound_value(body[binding], name)
    is_dict = isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and dotted(value.func) == "dict")
    if not is_dict and type(value) not in SEQUENCES:
        return None
    if not _bound_once(body, name):
        return None
    line = body[binding].lineno
    if not is_dict:
        return _Followed(line, {}, _sequence(body, name, value))
    run = _Run(name, receiver, positions, names)
    state = _State()
    run.fill(value, state, maybe=False, env={})
    run.block(body[binding + 1:], state, maybe=False, env={})
    return _Followed(line, run.at_return)


def _bound_value(stmt: ast.stmt, name: str) -> ast.expr | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is(stmt.targets[0], name):
        return stmt.value
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and _is(stmt.target, name):
        return stmt.value
    return None


def _is(node: ast.AST | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _bound_once(body: Sequence[ast.stmt], name: str) -> bool:
    """Whether the body binds ``name`` exactly once (``|=`` updates, not binds) and no nested scope sees it."""
    bindings = 0
    for node in walk_scope(body):
        if isinstance(node, SCOPES):
            if getattr(node, "name", None) == name or any(
                _is(inner, name) or (isinstance(inner, ast.arg) and inner.arg == name) for inner in ast.walk(node)
            ):
                return False
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        elif isinstance(node, ast.AugAssign) and _is(node.target, name):
            if not isinstance(node.op, ast.BitOr):
                return False
            bindings -= 1  # its target is counted below as a store, but it only updates the dict in place
        elif isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            bindings += 1
        elif _binds(node) == name:
            return False
    return bindings == 1


def _binds(node: ast.AST) -> str | None:
    """The name a node binds that is not a ``Name`` store: ``global``/``nonlocal`` count as binding theirs."""
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name
    if isinstance(node, ast.MatchMapping):
        return node.rest
    if isinstance(node, ast.alias):
        return node.asname or node.name.partition(".")[0]
    return None


def _sequence(body: Sequence[ast.stmt], name: str, value: ast.expr) -> ReturnFact:
    container = SEQUENCES[type(value)]
    elements = getattr(value, "elts", None)
    exact = elements is not None and not any(isinstance(e, ast.Starred) for e in elements)
    if exact and container != "tuple":
        returned = {id(n) for stmt in walk_scope(body) if isinstance(stmt, ast.Return) for n in _returned(stmt.value)}
        exact = not any(_is(n, name) and isinstance(n.ctx, ast.Load) and id(n) not in returned
                        for n in walk_scope(body))
    return ReturnFact("sequence", Span(0, 0, 0, 0), exact=exact, container=container, empty=exact and not elements)


def _returned(value: ast.expr | None) -> list[ast.expr]:
    """The expressions a ``return`` hands back as they are: the value, or each branch of a conditional."""
    if isinstance(value, ast.IfExp):
        return _returned(value.body) + _returned(value.orelse)
    return [value] if value is not None else []


class _Run:
    """One pass over the body after the binding, carrying the state along each path."""

    def __init__(self, name: str, receiver: str, positions: Positions, names: LocalNames) -> None:
        self.name = name
        self.receiver = receiver
        self.positions = positions
        self.names = names
        self.at_return: dict[int, _State] = {}
        self._loops: list[tuple[list[_State], list[_State]]] = []  # (continues, breaks) of each enclosing loop
        self._quiet = 0  # > 0 while replaying a ``try`` body only to see what its handlers may start from

    # -- statements ------------------------------------------------------------------------------------
    def block(self, body: Sequence[ast.stmt], state: _State | None, maybe: bool, env: Env) -> _State | None:
        """Run ``body`` from ``state`` (which it may change); what the mapping may hold after it, or None
        when no path falls off its end."""
        for stmt in body:
            if state is None:
                return None
            state = self.statement(stmt, state, maybe, env)
        return state

    def statement(self, stmt: ast.stmt, state: _State, maybe: bool, env: Env) -> _State | None:
        if isinstance(stmt, ast.Return):
            self.expr(stmt.value, state, maybe, env, returned=True)
            if not self._quiet:
                self.at_return[id(stmt)] = _join([self.at_return.get(id(stmt)), state])  # type: ignore[assignment]
            return None
        if isinstance(stmt, (ast.Continue, ast.Break)):
            if self._loops:
                self._loops[-1][isinstance(stmt, ast.Break)].append(state)
            return None
        if isinstance(stmt, ast.Raise):
            self.expr(stmt.exc, state, maybe, env)
            return None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            self.expr(stmt.value, state, maybe, env)
            if stmt.value is not None:
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    self.store(target, stmt.value, state, maybe, env)
            return state
        if isinstance(stmt, ast.AugAssign):
            return self.augment(stmt, state, maybe, env)
        if isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript) and _is(target.value, self.name):
                    self.expr(target.slice, state, maybe, env)
                    state.remove(self.key(target.slice, env), maybe)
                else:
                    self.expr(target, state, maybe, env)
            return state
        if isinstance(stmt, ast.If):
            self.expr(stmt.test, state, maybe, env, test=True)
            return _join([self.block(stmt.body, state.copy(), maybe, env), self.block(stmt.orelse, state, maybe, env)])
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            if not _is(stmt.iter, self.name):  # iterating over the keys reads them
                self.expr(stmt.iter, state, maybe, env)
            return self.loop(stmt, state, maybe, env, _constant_envs(stmt, env, self.names))
        if isinstance(stmt, ast.While):
            self.expr(stmt.test, state, maybe, env, test=True)
            return self.loop(stmt, state, maybe, env, None)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self.expr(item.context_expr, state, maybe, env)
            return self.block(stmt.body, state, maybe, env)
        if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            return self.try_(stmt, state, maybe, env)
        if isinstance(stmt, ast.Match):
            self.expr(stmt.subject, state, maybe, env)
            ends = [self.block(case.body, state.copy(), maybe, env) for case in stmt.cases]
            total = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
                        for c in stmt.cases)
            return _join([*ends, None if total else state])
        if isinstance(stmt, ast.Expr):
            self.expr(stmt.value, state, maybe, env)
        elif isinstance(stmt, ast.Assert):
            self.expr(stmt.test, state, maybe, env, test=True)
        return state

    def store(self, target: ast.expr, value: ast.expr | None, state: _State, maybe: bool, env: Env) -> None:
        """``target = value``, where ``value`` is None when only run time knows what reaches ``target``."""
        if isinstance(target, ast.Subscript) and _is(target.value, self.name):
            self.expr(target.slice, state, maybe, env)
            if isinstance(target.slice, ast.Slice):
                state.escape()
                return
            key = self.key(target.slice, env)
            state.put(self.value(key, value, env) if value is not None else self.unknown(key, target), maybe)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if values is None or len(values) != len(target.elts) or any(isinstance(v, ast.Starred) for v in values):
                values = [None] * len(target.elts)
            for sub, sub_value in zip(target.elts, values, strict=True):
                self.store(sub, sub_value, state, maybe, env)
        else:
            self.expr(target, state, maybe, env)

    def augment(self, stmt: ast.AugAssign, state: _State, maybe: bool, env: Env) -> _State:
        if _is(stmt.target, self.name):  # ``out |= ...``: _bound_once let no other operator through
            self.expr(stmt.value, state, maybe, env)
            self.merge(stmt.value, state, maybe, env)
        elif isinstance(stmt.target, ast.Subscript) and _is(stmt.target.value, self.name):
            self.store(stmt.target, None, state, maybe, env)
            self.expr(stmt.value, state, maybe, env)
        else:
            self.expr(stmt.target, state, maybe, env)
            self.expr(stmt.value, state, maybe, env)
        return state

    def loop(self, stmt: ast.For | ast.AsyncFor | ast.While, state: _State, maybe: bool, env: Env,
             envs: list[Env] | None) -> _State | None:
        """Each iteration of a loop over constants in turn; any other loop once, or not at all."""
        breaks: list[_State] = []
        normal: _State | None
        if envs is None:
            self._loops.append(([], breaks))
            end = self.block(stmt.body, state.copy(), maybe, _unknown_targets(stmt, env))
            normal = _join([state, end, *self._loops.pop()[0]])
        else:
            normal = state
            for iteration in envs:
                if normal is None:
                    break
                self._loops.append(([], breaks))
                end = self.block(stmt.body, normal, maybe, iteration)
                normal = _join([end, *self._loops.pop()[0]])
        return _join([self.block(stmt.orelse, normal, maybe, env), *breaks])

    def try_(self, stmt: ast.Try, state: _State, maybe: bool, env: Env) -> _State | None:
        entry = state.copy()
        normal = self.block(stmt.body, state, maybe, env)
        ends = [self.block(stmt.orelse, normal, maybe, env)]
        if stmt.handlers:
            # an exception may cut the body short anywhere, so each of its statements may not have run; this
            # replay only says what a handler may start from: its returns and jumps were seen above
            self._quiet += 1
            self._loops.append(([], []))
            partial = self.block(stmt.body, entry.copy(), True, env)
            self._loops.pop()
            self._quiet -= 1
            start = _join([entry, partial]) or entry
            for handler in stmt.handlers:
                self.expr(handler.type, start, maybe, env)
                ends.append(self.block(handler.body, start.copy(), maybe, env))
        return self.block(stmt.finalbody, _join(ends), maybe, env)

    # -- what fills the mapping ----------------------------------------------------------------------------
    def fill(self, value: ast.expr, state: _State, maybe: bool, env: Env) -> None:
        """A dict display or ``dict(...)`` call merged into the mapping, entry by entry."""
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values, strict=True):
                if key is None:
                    state.merge_unknown()
                else:
                    state.put(self.value(self.key(key, env), item, env), maybe)
        elif isinstance(value, ast.Call):
            if value.args:
                state.merge_unknown()
            self.keywords(value.keywords, state, maybe, env)

    def keywords(self, keywords: Sequence[ast.keyword], state: _State, maybe: bool, env: Env) -> None:
        """``name=value`` entries of ``dict(...)`` or ``.update(...)``; a ``**mapping`` merges unseen keys."""
        for keyword in keywords:
            if keyword.arg is None:
                state.merge_unknown()
            else:
                state.put(self.value(keyword_key(keyword, self.positions), keyword.value, env), maybe)

    def merge(self, value: ast.expr, state: _State, maybe: bool, env: Env) -> None:
        if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and dotted(value.func) == "dict"):
            self.fill(value, state, maybe, env)
        else:
            state.merge_unknown()

    def method(self, call: ast.Call, method: str, state: _State, maybe: bool, env: Env) -> None:
        """``out.<method>(...)``, its arguments already visited."""
        args = call.args
        if method in _READ_METHODS:
            return
        if method == "update" and len(args) <= 1 and not any(isinstance(a, ast.Starred) for a in args):
            for arg in args:
                self.merge(arg, state, maybe, env)
            self.keywords(call.keywords, state, maybe, env)
        elif method == "setdefault" and 1 <= len(args) <= 2 and not call.keywords:
            key = self.key(args[0], env)
            fact = (self.value(key, args[1], env) if len(args) == 2
                    else ValueFact(key, "the constant None", self.positions.span(call)))
            state.put(fact, maybe or _identity(key) in state.entries)
            if not maybe:  # there afterwards, whether it was before or not
                state.certain.add(_identity(key))
        elif method == "pop" and 1 <= len(args) <= 2 and not call.keywords:
            state.remove(self.key(args[0], env), maybe)
        elif method == "clear" and not args and not call.keywords:
            state.certain.clear()
            if not maybe:
                state.entries.clear()
        else:
            state.escape()

    def key(self, node: ast.expr, env: Env) -> KeyFact:
        if isinstance(node, ast.Name) and node.id in env:
            constant = env[node.id]
            return key_fact(constant if constant is not None else node, self.positions, self.names)
        return key_fact(node, self.positions, self.names)

    def value(self, key: KeyFact, node: ast.expr, env: Env) -> ValueFact:
        return value_fact(key, node, self.receiver, self.positions, self.attribute(node, env))

    def unknown(self, key: KeyFact, node: ast.expr) -> ValueFact:
        return ValueFact(key, "", self.positions.span(node))

    def attribute(self, node: ast.expr, env: Env) -> str:
        """The attribute ``getattr(self, "name")`` reads, the name written or a loop's constant."""
        if not (isinstance(node, ast.Call) and dotted(node.func) == "getattr" and len(node.args) == 2
                and not node.keywords and self.receiver and _is(node.args[0], self.receiver)):
            return ""
        name = node.args[1]
        if isinstance(name, ast.Name) and name.id in env:
            name = env[name.id]  # type: ignore[assignment]
        return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else ""

    # -- uses of the name in expressions ---------------------------------------------------------------
    def expr(self, node: ast.AST | None, state: _State, maybe: bool, env: Env, *, returned: bool = False,
             test: bool = False) -> None:
        """Visit an expression for what it does to the mapping: reads do nothing, the mutating methods
        change it, anything else the name takes part in is an escape."""
        if node is None:
            return
        name = self.name
        if isinstance(node, ast.Name):
            if node.id == name and not (returned or test):
                state.escape()
            return
        if isinstance(node, ast.Subscript) and _is(node.value, name):
            self.expr(node.slice, state, maybe, env)
            return
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and _is(func.value, name):
                self.each([*node.args, *(k.value for k in node.keywords)], state, maybe, env)
                self.method(node, func.attr, state, maybe, env)
            else:
                reads = dotted(func) in _READ_CALLS
                self.expr(func, state, maybe, env)
                self.each([a for a in node.args if not (reads and _is(a, name))], state, maybe, env)
                self.each([k.value for k in node.keywords], state, maybe, env)
            if state.escaped:
                state.forget()  # the call may reach the dict through where it escaped to
            return
        if isinstance(node, ast.Compare):
            self.each([n for n in (node.left, *node.comparators) if not _is(n, name)], state, maybe, env)
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.expr(node.operand, state, maybe, env, test=True)
            return
        if isinstance(node, ast.IfExp):
            self.expr(node.test, state, maybe, env, test=True)
            self.expr(node.body, state, maybe, env, returned=returned, test=test)
            self.expr(node.orelse, state, maybe, env, returned=returned, test=test)
            return
        if isinstance(node, ast.BoolOp):
            self.each(node.values, state, maybe, env, returned=returned, test=test)
            return
        if isinstance(node, ast.comprehension) and _is(node.iter, name):
            self.each([node.target, *node.ifs], state, maybe, env)
            return
        if isinstance(node, ast.FormattedValue):
            self.expr(node.value, state, maybe, env, test=True)
            self.expr(node.format_spec, state, maybe, env)
            return
        self.each(list(ast.iter_child_nodes(node)), state, maybe, env)

    def each(self, nodes: Sequence[ast.AST], state: _State, maybe: bool, env: Env, *, returned: bool = False,
             test: bool = False) -> None:
        for node in nodes:
            self.expr(node, state, maybe, env, returned=returned, test=test)


def _targets(target: ast.expr) -> list[str] | None:
    """The names a ``for`` target binds, when it is a name or a flat tuple of names."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts]  # type: ignore[attr-defined]
    return None


def _unknown_targets(stmt: ast.stmt, env: Env) -> Env:
    """The loop's variables hide any constant an outer loop gave the same names."""
    names = [n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)] if isinstance(
        stmt, (ast.For, ast.AsyncFor)) else []
    return {**env, **dict.fromkeys(names)} if names else env


def _constant_envs(stmt: ast.For | ast.AsyncFor, env: Env, local: LocalNames) -> list[Env] | None:
    """One binding of the loop's variables per element, when it loops over a display of constants (literals,
    or names of constants the method does not bind) and its body never rebinds them; None otherwise."""
    names = _targets(stmt.target)
    if names is None or not isinstance(stmt.iter, (ast.Tuple, ast.List, ast.Set)):
        return None
    envs: list[Env] = []
    for element in stmt.iter.elts:
        parts = [element] if len(names) == 1 else (
            element.elts if isinstance(element, (ast.Tuple, ast.List)) else [])
        if len(parts) != len(names) or not all(isinstance(p, ast.Constant) or computed(p, local) for p in parts):
            return None
        envs.append({**env, **dict(zip(names, parts, strict=True))})
    rebound = any(isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Load)
                  for n in walk_scope(stmt.body))
    return None if rebound else envs
