"""One entry of a returned mapping: its key, and why its value is certainly not a tensor.

Produces ``KeyFact`` and ``ValueFact`` for ``returns`` (a dict literal) and ``built``
(a dict filled step by step), and ``ValueFact.not_tensor``. The tables are what a rule
about non-tensor values rests on, so they are kept apart and short: only expressions whose
result is a non-tensor whatever their operands (a literal, a display, ``len()``,
``.tolist()``, ``.shape``) are listed; anything that might be a tensor gives "".

A key Python computes from constants alone (``K_ACCEPTED``, ``f"{_NS}.top1"``, ``PREFIX + "x"``) is kept as
its source (``computed``): what the names in it hold is only known across files, which is the index's job
(``index.constants``). A name the method binds itself (a parameter, a local, a loop variable) is no constant.
"""

from __future__ import annotations

import ast
from collections.abc import Container

from ppaux_lint.facts.summarize.syntax import SCOPES, called_name, dotted, source, string, walk_scope
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summary import KeyFact, Span, ValueFact

# Calls whose result is certainly not a tensor, whatever their argument.
_NON_TENSOR_CALLS = {
    "len": "an int (len())", "str": "a str", "repr": "a str", "int": "an int", "float": "a float",
    "bool": "a bool", "complex": "a complex", "list": "a list", "tuple": "a tuple", "dict": "a dict",
    "set": "a set", "frozenset": "a frozenset", "range": "a range", "bytes": "bytes",
}
# Methods whose result is certainly not a tensor, whatever their receiver.
_NON_TENSOR_METHODS = {
    "tolist": "a Python list (.tolist())", "item": "a Python number (.item())",
    "numpy": "a NumPy array (.numpy())", "size": "a torch.Size or int (.size())", "dim": "an int (.dim())",
    "numel": "an int (.numel())", "data_ptr": "an int (.data_ptr())", "keys": "a dict view (.keys())",
    "values": "a dict view (.values())", "items": "a dict view (.items())",
}
_NON_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim"})
_DISPLAYS = {ast.List: "a list", ast.Tuple: "a tuple", ast.Set: "a set", ast.Dict: "a dict",
             ast.ListComp: "a list", ast.SetComp: "a set", ast.DictComp: "a dict",
             ast.GeneratorExp: "a generator", ast.Lambda: "a function"}


def not_tensor(value: ast.expr) -> str:
    """Why a value is certainly not a tensor, or "" when it might be one."""
    if isinstance(value, ast.Constant):
        if value.value is None or isinstance(value.value, bool):
            return f"the constant {value.value}"
        if isinstance(value.value, (str, bytes)):
            return "a string literal"
        return "a number literal" if isinstance(value.value, (int, float, complex)) else "a constant"
    if isinstance(value, ast.JoinedStr):
        return "a string literal"
    for kind, reason in _DISPLAYS.items():
        if isinstance(value, kind):
            return reason
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        if callee in _NON_TENSOR_CALLS:
            return _NON_TENSOR_CALLS[callee]
        if isinstance(value.func, ast.Attribute) and value.func.attr in _NON_TENSOR_METHODS:
            return _NON_TENSOR_METHODS[value.func.attr]
    if isinstance(value, ast.Attribute) and value.attr in _NON_TENSOR_ATTRIBUTES:
        return f"a tensor's .{value.attr}, not a tensor"
    return ""


_COMPUTED_DEPTH = 16  # operands of ``+`` and parts of f-strings followed before a key is just dynamic


def key_fact(key: ast.expr, positions: Positions, local: Container[str] = ()) -> KeyFact:
    """A key as written: a string literal, another literal, one computed from constants (``local`` holds the
    names the method binds, which are not), or something only run time knows."""
    span = positions.span(key)
    text = string(key)
    if text is not None:
        return KeyFact("str" if text else "empty", text, span)
    if isinstance(key, (ast.Constant, ast.Tuple)):
        return KeyFact("nonstr", source(key), span)
    return KeyFact("dynamic", source(key), span, computed(key, local))


def computed(node: ast.expr, local: Container[str], depth: int = 0) -> bool:
    """Whether Python computes ``node`` from constants alone: literals, names not in ``local`` and attributes
    of them, tuples, f-strings of those without a format spec, and ``+`` of them. In a method whose instance
    is ``self`` (``local.reads_self()``), ``self.KEY`` is one too: the index looks ``KEY`` up on the class of
    the instance, and answers only where no instance attribute of that name can hide it."""
    if depth > _COMPUTED_DEPTH:
        return False
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = dotted(node)
        head = name.split(".", 1)[0]
        if head == "self":  # the instance, when it is one: the index reads any ``self`` in a method so
            return name != head and isinstance(local, LocalNames) and local.reads_self()
        return bool(name) and head not in local
    if isinstance(node, ast.Tuple):
        return all(computed(e, local, depth + 1) for e in node.elts)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(part, ast.Constant) or (isinstance(part, ast.FormattedValue) and part.format_spec is None
                                                      and computed(part.value, local, depth + 1))
                   for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return computed(node.left, local, depth + 1) and computed(node.right, local, depth + 1)
    return False


class LocalNames:
    """The names a function binds (its parameters, assignments, loop and ``with`` targets, imports, nested
    definitions, ``global`` and ``nonlocal`` names, handlers and match captures), found on first use: only a
    key that names something needs them."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._node = node
        self._names: frozenset[str] | None = None
        self._self: bool | None = None

    def __contains__(self, name: object) -> bool:
        if self._names is None:
            self._names = _bound_in(self._node)
        return name in self._names

    def reads_self(self) -> bool:
        """Whether the method's instance is the parameter ``self``, which its body never rebinds."""
        if self._self is None:
            self._self = receiver(self._node) == "self" and not any(
                isinstance(n, ast.Name) and n.id == "self" and not isinstance(n.ctx, ast.Load)
                for n in walk_scope(self._node.body))
        return self._self


def receiver(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The name the method's instance is bound to ("" for a staticmethod or a method without parameters)."""
    positional = node.args.posonlyargs + node.args.args
    if not positional or any(called_name(d) == "staticmethod" for d in node.decorator_list):
        return ""
    return positional[0].arg


def _bound_in(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg)
             if a is not None}
    for child in walk_scope(node.body):
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            names.add(child.id)
        elif isinstance(child, SCOPES) and not isinstance(child, ast.Lambda):
            names.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".", 1)[0] for alias in child.names)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            names.update(child.names)
        elif isinstance(child, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and child.name:
            names.add(child.name)
        elif isinstance(child, ast.MatchMapping) and child.rest:
            names.add(child.rest)
    return frozenset(names)


def keyword_key(keyword: ast.keyword, positions: Positions) -> KeyFact:
    """The key of ``dict(name=...)``, spanning the name, where a key written as a keyword stands."""
    name = keyword.arg or ""
    span = positions.span(keyword)
    return KeyFact("str", name, Span(span.line, span.column, span.line, span.column + len(name)))


def value_fact(key: KeyFact, value: ast.expr, receiver: str, positions: Positions, attribute: str = "") -> ValueFact:
    """The entry ``key: value``; ``attribute`` names the receiver's attribute the value reads when the syntax
    says so otherwise (``getattr(self, "ids")``)."""
    reason = not_tensor(value)
    call = dotted(value.func) if isinstance(value, ast.Call) and not reason and not attribute else ""
    if (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and receiver
            and value.value.id == receiver and not reason):
        attribute = value.attr
    return ValueFact(key, reason, positions.span(value), call, attribute if not reason else "")
