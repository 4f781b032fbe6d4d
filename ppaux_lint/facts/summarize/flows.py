"""What each function hands back: the syntax the inference (``inference.py``) reads.

Produces ``FileSummary.flows``: one ``FunctionFlow`` per function or method at any depth, and one for the
module body (qualname ""). It records expressions, never what they mean: ``return make(rows)`` is the call
of the name ``make`` with ``rows`` first, whatever ``make`` turns out to be in another file. The walker
hands it every statement in source order with the definitions around it, so a file is still walked once.

What it describes (everything else is ``("?",)``): ``None``, empty displays (``{}``, ``[]``, ``()``), names,
attribute chains, calls of those (with their first positional argument, for ``dataclasses.replace(out, ...)``,
``copy.copy(out)`` and ``functools.partial(Out, ...)``), and the branches of ``a if c else b``, ``a or b`` and
``a and b`` that can be the result: an operand of ``or`` before the last is one only when it is truthy
(``("truthy", Shape)``, never None, never empty), and none after an operand that certainly ends the expression
is one at all. Each return keeps its line, for the rules that say where a helper returns nothing. Locals are
flow-insensitive: a name stands for
every value any assignment in the function gives it, and any binding the syntax does not show (a ``for``
or ``with`` target, tuple unpacking, ``+=``, ``global``) adds ``("?",)``. A ``yield`` statement makes the
function a generator, whose call hands back none of its returns.
"""

from __future__ import annotations

import ast
from dataclasses import field

from ppaux_lint.facts.summarize.flow import can_fall_through, trailing_calls
from ppaux_lint.facts.summarize.methods import annotation_target
from ppaux_lint.facts.summarize.returns import handed_on
from ppaux_lint.facts.summarize.syntax import called_name, is_none, qualname, walk_scope
from ppaux_lint.facts.summary import Expr, FunctionFlow
from ppaux_lint.support.records import dataclass

Shape = tuple
"""An expression while a function is walked: ``("none",)``, ``("name", id)``, ``("attr", Shape, attribute)``,
``("call", callee Shape, first argument Shape or None)``, ``("empty", "{}")`` (or ``"[]"``, ``"()"``),
``("truthy", Shape)`` or ``("?",)``; ``render`` makes the ``Expr`` text a summary keeps, which
``inference.parse_expr`` reads back into the same shapes."""
NONE: Shape = ("none",)
UNKNOWN: Shape = ("?",)
_EMPTY = {ast.Dict: "{}", ast.List: "[]", ast.Tuple: "()"}
_BINDINGS = {"classmethod": "classmethod", "staticmethod": "staticmethod", "property": "property",
             "cached_property": "property"}
_ARGUMENT_CALLS = frozenset({"replace", "copy", "deepcopy", "type", "partial"})
_MAX_DEPTH = 12  # attribute/call nesting described before an expression is just unknown


def describe(node: ast.expr | None, depth: int = 0) -> list[Shape]:
    """Every value ``node`` can evaluate to, as ``Shape``s: one, or one per branch of a choice."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return [NONE]
    if depth > _MAX_DEPTH:
        return [UNKNOWN]
    if isinstance(node, ast.IfExp):
        return describe(node.body, depth + 1) + describe(node.orelse, depth + 1)
    if isinstance(node, ast.BoolOp):
        return _operands(node, depth)
    if isinstance(node, ast.NamedExpr):
        return describe(node.value, depth + 1)
    return [_one(node, depth)]


def _operands(node: ast.BoolOp, depth: int) -> list[Shape]:
    """The operands of ``a or b`` (``a`` only when truthy) and ``a and b`` that can be the result."""
    out: list[Shape] = []
    *early, last = node.values
    for operand in early:
        truth = _truth(operand)
        if isinstance(node.op, ast.Or):
            if truth is not False:
                out.extend(expr if expr[0] in ("?", "truthy") else ("truthy", expr)
                           for expr in describe(operand, depth + 1) if expr[0] not in ("none", "empty"))
            if truth is True:
                return out
        else:
            if truth is not True:
                out.extend(describe(operand, depth + 1))
            if truth is False:
                return out
    return out + describe(last, depth + 1)


def _truth(node: ast.expr) -> bool | None:
    """A literal's truth, or None when only run time knows it."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return bool(node.keys if isinstance(node, ast.Dict) else node.elts)
    return None


def _one(node: ast.expr, depth: int) -> Shape:
    if isinstance(node, ast.Name):
        return ("name", node.id)
    if isinstance(node, ast.Attribute):
        return ("attr", _one(node.value, depth + 1), node.attr)
    if isinstance(node, ast.Call):
        first = node.args[0] if node.args and _hands_back_its_argument(node.func) else None
        return ("call", _one(node.func, depth + 1), _one(first, depth + 1) if first is not None else None)
    if isinstance(node, ast.Constant) and node.value is None:
        return NONE
    if type(node) in _EMPTY and not (node.keys if isinstance(node, ast.Dict) else node.elts):  # type: ignore[attr-defined]
        return ("empty", _EMPTY[type(node)])
    return UNKNOWN


def render(shape: Shape, inner: bool = False) -> Expr:
    """The source text of a shape: ``self._build()``, ``replace(self.proto)``, ``None``, ``...``."""
    kind = shape[0]
    if kind == "name":
        return shape[1]
    if kind == "attr":
        return f"{render(shape[1], True)}.{shape[2]}"
    if kind == "call":
        return f"{render(shape[1], True)}({render(shape[2]) if shape[2] is not None else ''})"
    if kind == "none":
        return "None"
    if kind == "empty":
        return shape[1]
    if kind == "truthy":
        return f"{render(shape[1])} or ..."
    return "(...)" if inner else "..."


def _hands_back_its_argument(func: ast.expr) -> bool:
    """Whether a call may give its first argument's class back (``replace``, ``copy``, ``deepcopy``, ``type``), or
    the argument itself to be called later (``functools.partial``): only then is the argument worth a place in the
    summary, which is kept for every function of the file."""
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name in _ARGUMENT_CALLS


@dataclass
class _Builder:
    """One function's flow while its body is walked. Annotations are read only for a flow that is kept, and
    only for the parameters it reads: most functions of a file never need theirs."""

    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    receiver: str = ""
    binding: str = "function"
    returns: list[Shape] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # of each return
    locals: dict[str, list[Shape]] = field(default_factory=dict)
    stores: list[tuple[str, Shape]] = field(default_factory=list)
    opaque: bool = False
    nested: bool = False  # defined in a function: its flow is never asked for
    calls: tuple[str, ...] = ()  # what every path falling off the end ends with a call of (``flow.trailing_calls``)
    wraps: str = ""  # as a decorator: "changes" how what it decorates is called, "drops" what it returns (``_wraps``)
    absent: tuple[tuple[int, tuple[str, ...]], ...] = ()  # None under a key's absence (``handed_on``)
    hands: tuple[int, ...] = ()  # returns that hand the first parameter on (``handed_on``)

    def bind(self, name: str, values: list[Shape]) -> None:
        self.locals.setdefault(name, []).extend(values)

    def flow(self) -> FunctionFlow | None:
        """The flow, or None when it would tell the inference nothing a missing one does not: every return
        unknown and nothing stored. A local that only unknown values reach reads as unknown itself, and only
        the parameters a return or a store reads are kept."""
        if self._tells_nothing(self.returns):  # most functions, settled before their locals are looked at
            return None
        arguments = _arguments(self.node) if self.node is not None else []
        names = {a.arg for a in arguments}
        dead = {name for name, values in self.locals.items() if name not in names and set(values) == {UNKNOWN}}
        returns = [UNKNOWN if _head(expr)[0] == "name" and _head(expr)[1] in dead else expr for expr in self.returns]
        if self._tells_nothing(returns):  # a local that only unknown values reach made them so
            return None
        self.returns = returns
        read_locals = self._read_locals()
        read = {name for expr in (*returns, *(v for _, v in self.stores),
                                  *(v for _, values in read_locals for v in values)) for name in _names(expr)}
        params = tuple((a.arg, annotation_target(a.annotation)[0]) for a in arguments if a.arg in read)
        return_type, optional = annotation_target(self.node.returns if self.node is not None else None)
        return FunctionFlow(self.qualname, tuple(map(render, returns)),
                            tuple((name, tuple(map(render, values))) for name, values in read_locals),
                            tuple((attr, render(value)) for attr, value in self.stores), params, self.receiver,
                            self.binding, return_type, optional, self.opaque, tuple(self.lines), self.calls,
                            self.wraps, self.hands, self.absent)

    def _tells_nothing(self, returns: list[Shape]) -> bool:
        """Every return unknown and nothing stored (a function with no return at all always raises: that is
        worth keeping)."""
        return bool(returns) and not self.stores and self.binding != "property" and all(e == UNKNOWN for e in returns)

    def _read_locals(self) -> tuple[tuple[str, tuple[Shape, ...]], ...]:
        """The locals a return or a store can read, directly or through other locals: the rest is never
        asked about, and a summary is cached for every file."""
        wanted: set[str] = set()
        todo = [*self.returns, *(value for _, value in self.stores)]
        while todo:
            for name in _names(todo.pop()):
                if name not in wanted and name in self.locals:
                    wanted.add(name)
                    todo.extend(self.locals[name])
        return tuple((name, tuple(self.locals[name])) for name in sorted(wanted))


def _arguments(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = node.args
    return [a for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg) if a is not None]


def _head(expr: Shape) -> Shape:
    """The expression a ``("truthy", ...)`` wraps; any other, itself."""
    return expr[1] if expr[0] == "truthy" else expr


def _names(expr: Shape | None) -> list[str]:
    """The names an expression reads: the head of each attribute chain, callee and first argument."""
    if expr is not None and expr[0] == "truthy":
        expr = expr[1]
    if expr is None or expr[0] not in ("name", "attr", "call"):
        return []
    if expr[0] == "name":
        return [expr[1]]
    if expr[0] == "attr":
        return _names(expr[1])
    return _names(expr[1]) + _names(expr[2])


class Flows:
    """The flows of one module, fed by the walker: ``enter``/``leave`` around each body, ``statement`` for
    each statement in it."""

    def __init__(self) -> None:
        self.found: list[FunctionFlow] = []
        self._stack: list[_Builder | None] = [_Builder("")]  # None: a class body, which binds no local

    def enter_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope) -> None:
        decorators = [called_name(d).rsplit(".", 1)[-1] for d in node.decorator_list]
        binding = next((_BINDINGS[d] for d in decorators if d in _BINDINGS), "function")
        in_class = bool(scope) and scope[-1][0] == "class"
        if in_class and binding == "function":
            binding = "method"
        positional = node.args.posonlyargs + node.args.args
        receiver = positional[0].arg if in_class and binding != "staticmethod" and positional else ""
        self._stack.append(_Builder(qualname(scope, node.name), node, receiver, binding,
                                    opaque=isinstance(node, ast.AsyncFunctionDef),
                                    nested=bool(scope) and scope[-1][0] == "def"))

    def leave_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        builder = self._stack.pop()
        assert builder is not None
        if builder.nested:
            return  # a function defined in a function: no name the index resolves reaches it
        if can_fall_through(node.body):
            builder.returns.append(NONE)
            builder.lines.append(-node.lineno)
            builder.calls = trailing_calls(node.body)
        # a decorator that changes the call returns a name (a wrapper it defines, or its parameter rebound): only
        # such functions are read for it, not every function of every file
        if builder.binding == "function" and builder.returns and all(shape[0] == "name" for shape in builder.returns):
            builder.wraps = _wraps(node)
        if not builder.opaque and (NONE in builder.returns or any(shape[0] == "call" for shape in builder.returns)):
            # a helper ``from_pp_tensors`` may hand its tensors to, directly or through others
            builder.hands, builder.absent = handed_on(node, builder.receiver, NONE in builder.returns)
        flow = builder.flow()
        if flow is not None:
            self.found.append(flow)

    def enter_class(self) -> None:
        self._stack.append(None)

    def leave_class(self) -> None:
        self._stack.pop()

    def finish(self) -> None:
        """The module body's flow, when it binds a name to a call (``DEFAULT = Output()``)."""
        module = self._stack[0]
        assert module is not None
        module.locals = {name: values for name, values in module.locals.items()
                         if any(v[0] == "call" for v in values)}
        if module.locals:
            self.found.append(FunctionFlow("", locals=tuple((name, tuple(map(render, values)))
                                                            for name, values in sorted(module.locals.items()))))

    def statement(self, stmt: ast.stmt) -> None:
        builder = self._stack[-1]
        if builder is None:
            return
        kind = type(stmt)  # ``ast.parse`` makes no subclasses: one look at the type, not a chain of isinstance
        if kind is ast.Return:
            values = describe(stmt.value)  # type: ignore[attr-defined]
            builder.returns.extend(values)
            builder.lines.extend([stmt.lineno] * len(values))
        elif kind is ast.Assign:
            if _yields(stmt.value):  # type: ignore[attr-defined]
                builder.opaque = True
            values = describe(stmt.value)  # type: ignore[attr-defined]
            for target in stmt.targets:  # type: ignore[attr-defined]
                self._assign(builder, target, values)
        elif kind is ast.AnnAssign:
            if stmt.value is not None:  # type: ignore[attr-defined]
                self._assign(builder, stmt.target, describe(stmt.value))  # type: ignore[attr-defined]
        elif kind is ast.AugAssign:
            self._assign(builder, stmt.target, [UNKNOWN])  # type: ignore[attr-defined]
        elif kind is ast.Expr:
            if _yields(stmt.value):  # type: ignore[attr-defined]
                builder.opaque = True
        elif kind is ast.For or kind is ast.AsyncFor:
            self._assign(builder, stmt.target, [UNKNOWN])  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self._assign(builder, item.optional_vars, [UNKNOWN])
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in stmt.names:  # type: ignore[attr-defined]
                builder.bind(name, [UNKNOWN])

    def _assign(self, builder: _Builder, target: ast.expr, values: list[Shape]) -> None:
        if isinstance(target, ast.Name):
            builder.bind(target.id, values)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and builder.receiver \
                and target.value.id == builder.receiver:
            builder.stores.extend((target.attr, value) for value in values)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._assign(builder, element.value if isinstance(element, ast.Starred) else element, [UNKNOWN])


def _yields(node: ast.expr | None) -> bool:
    return isinstance(node, (ast.Yield, ast.YieldFrom))


def _wraps(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """What the function, used as a decorator, certainly does to what it decorates: "drops" when it returns
    wrappers (functions it defines that define none: a factory's decorator is not read) that never return a
    value, so the decorated method returns None; "changes" when it returns its first parameter rebound
    (``fn = functools.partialmethod(fn, device="cpu")``) or wrappers with a signature of their own (no ``*args``:
    ``def wrapper(self, tensors)``), that run the call another way (``asyncio.run(fn(...))``) or change its keyword
    arguments (``kwargs.setdefault(...)``); "" otherwise: a forwarding wrapper, among others, is taken to keep the
    method as written (``rules/ppa016``)."""
    positional = node.args.posonlyargs + node.args.args
    if not positional or isinstance(node, ast.AsyncFunctionDef):
        return ""
    given = positional[0].arg
    nested = {stmt.name: stmt for stmt in node.body if isinstance(stmt, ast.FunctionDef)}
    returned = [r.value.id for r in walk_scope(node.body)
                if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)]
    if returned and all(name == given for name in returned):
        rebound = any(isinstance(target, ast.Name) and target.id == given for stmt in walk_scope(node.body)
                      if isinstance(stmt, ast.Assign) for target in stmt.targets)
        return "changes" if rebound else ""
    wrappers = [nested[name] for name in returned if name in nested]
    if not returned or len(wrappers) != len(returned) or not all(map(_is_wrapper, wrappers)):
        return ""
    if all(_returns_nothing(wrapper) for wrapper in wrappers):
        return "drops"
    return "changes" if all(map(_changes_the_call, wrappers)) else ""


def _is_wrapper(function: ast.FunctionDef) -> bool:
    """A function that defines no function of its own: a wrapper, not a decorator (a factory's)."""
    return not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in walk_scope(function.body))


def _returns_nothing(function: ast.FunctionDef) -> bool:
    """Whether every ``return`` of the function gives None (it may fall off its end): it never gives a value."""
    return all(r.value is None or is_none(r.value) for r in walk_scope(function.body) if isinstance(r, ast.Return))


_RUNNERS = frozenset({"run", "run_until_complete", "run_coroutine_threadsafe"})


def _changes_the_call(wrapper: ast.FunctionDef) -> bool:
    """A wrapper that has a fixed signature, runs the call through an event loop, or changes the keyword arguments
    it forwards."""
    body = list(walk_scope(wrapper.body))
    if wrapper.args.vararg is None:
        return True
    kwargs = wrapper.args.kwarg.arg if wrapper.args.kwarg is not None else ""
    for n in body:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr in _RUNNERS:
                return True
            if kwargs and n.func.attr in ("setdefault", "update", "pop") and isinstance(n.func.value, ast.Name) \
                    and n.func.value.id == kwargs:
                return True
        if kwargs and isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) \
                and isinstance(n.value, ast.Name) and n.value.id == kwargs:
            return True
    return False
