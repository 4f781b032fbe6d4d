"""Small readings of syntax that several kinds of fact share: dotted names, literals, scopes.

Produces no field of its own. It exists so that every fact module reads a
name, a string literal or a scope the same way: a base written ``m.X`` and a
callee written ``m.X`` must come out as the same text for the index to match
them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Sequence

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
"""The nodes that open a new scope: what runs inside them is not part of the enclosing body."""
_SCOPE_TYPES = frozenset(SCOPES)

TRY_STATEMENTS = (ast.Try, getattr(ast, "TryStar", ast.Try))
"""``try`` and, from Python 3.11, ``try``/``except*``: the same shape of bodies."""

Scope = tuple[tuple[str, str], ...]
"""The enclosing definitions, outermost first, each ("class" or "def", its name)."""


def spells(text: str, needles: tuple[str, ...]) -> bool:
    """Whether the file's ``text`` holds any of ``needles``: the gates that spare most classes and methods a walk.
    Asked per class and per method, each a search of the whole file, they made a file of n classes cost n * n (a
    file of 5,000 classes took 9 seconds to summarize): the summarizer's text is a ``SourceText``, which answers
    each needle once per file."""
    for needle in needles:  # noqa: SIM110 - a loop, not any() of a generator: asked for every class and method
        if needle in text:
            return True
    return False


def dotted(node: ast.AST | None) -> str:
    """``a.b.C`` for a Name/Attribute chain, the callee for ``Generic[T]``, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    if isinstance(node, ast.Subscript):
        return dotted(node.value)
    return ""


def called_name(node: ast.expr) -> str:
    """The dotted name of ``node``, or of its callee when it is a call: ``@cache`` and ``@cache()``, ``raise E``
    and ``raise E()`` name the same thing."""
    return dotted(node.func if isinstance(node, ast.Call) else node)


def string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def annotation_expression(node: ast.expr | None) -> ast.expr | None:
    """The expression an annotation stands for: a string annotation's text parsed, any other as it is; None when
    the string does not parse, which then names nothing. Whatever the file-level parse reports as unparsable is
    caught here too (``source.summarize_source``): a deep string is a ``RecursionError`` or a ``MemoryError`` to
    the parser, a NUL a ``ValueError`` before Python 3.12. Its SyntaxWarnings are silenced for the whole file."""
    text = string(node)
    if text is None:
        return node
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def plain_dotted(node: ast.AST | None) -> str:
    """``dotted``, except that a subscript names nothing: to the fixes ``Tensor[...]`` is not the class ``Tensor``,
    just as a subscripted annotation names no class to the summaries."""
    head = node
    while isinstance(head, ast.Attribute):
        head = head.value
    return dotted(node) if isinstance(head, ast.Name) else ""  # only a plain chain names something


def is_none(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def source(node: ast.AST) -> str:
    """Normalised source of a small node (an annotation, a key). ``ast.get_source_segment`` would
    re-split the whole file on every call. The shapes most annotations and keys have are spelt here as
    ``ast.unparse`` spells them, without the visitor it builds per call (a third of a small file's summary, once
    spent there): a dotted name (``int``, ``torch.Tensor``), one subscripted by dotted names (``list[str]``,
    ``dict[str, torch.Tensor]``), a tuple of them, and a plain string, ``None``, a bool or an int."""
    kind = type(node)
    if kind is ast.Subscript:
        head = _plain(node.value)  # type: ignore[attr-defined]
        inner = node.slice  # type: ignore[attr-defined]
        if type(inner) is ast.Tuple:
            inside = _plain_items(inner.elts) if len(inner.elts) > 1 else None  # ``x[a,]`` keeps its comma
        else:
            inside = _plain(inner)
        if head is not None and inside is not None:
            return f"{head}[{inside}]"
    elif kind is ast.Tuple:
        items = _plain_items(node.elts) if len(node.elts) > 1 else None  # type: ignore[attr-defined]
        if items is not None:
            return f"({items})"
    elif kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if value is None or type(value) is bool or type(value) is int:
            return repr(value)
        if type(value) is str and node.kind is None and value.isascii() and value.isprintable() \
                and "'" not in value and '"' not in value and "\\" not in value:  # type: ignore[attr-defined]
            return f"'{value}'"  # ``repr``, as ``ast.unparse`` quotes a string that holds no quote to choose by
    else:
        plain = _plain(node)
        if plain is not None:
            return plain
    return ast.unparse(node)


def _plain(node: ast.AST) -> str | None:
    """A name or a dotted name as ``ast.unparse`` spells it; None for anything else."""
    parts = []
    head = node
    while type(head) is ast.Attribute:
        parts.append(head.attr)  # type: ignore[attr-defined]
        head = head.value  # type: ignore[attr-defined]
    if type(head) is not ast.Name:
        return None
    parts.append(head.id)  # type: ignore[attr-defined]
    parts.reverse()
    return ".".join(parts)


def _plain_items(items: list[ast.expr]) -> str | None:
    """Dotted names joined by ", " as ``ast.unparse`` joins a tuple's items; None unless every item is one."""
    spelt = [_plain(item) for item in items]
    return None if None in spelt else ", ".join(spelt)  # type: ignore[arg-type]


_AST = ast.AST
NO_NODE_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind", "id", "attr", "arg", "asname", "module",
                            "level", "is_async", "conversion", "simple", "kwd_attrs", "rest"})
"""Fields that never hold a node worth visiting: expression contexts and operators (no reading of a tree visits
them as nodes: ``node.ctx`` and ``node.op`` are read as attributes) and plain values. Left out, a walk visits a
third fewer nodes. (``name`` stays: a ``type`` statement's is a ``Name``.)"""
_MAY_HOLD_OTHERS = frozenset({"names", "keys", "kw_defaults"})
"""The list fields whose items may be other than nodes: ``global``/``nonlocal`` names (strings), a dict display's
keys (None for ``**``), ``kw_defaults`` (None for no default). Every other list field holds nodes only, and is
taken whole, without a look at each item (``alias`` nodes are ``Import``'s ``names``, filtered all the same)."""
CHILD_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}  # ``child_fields`` of each node type met so far


def child_fields(kind: type) -> tuple[tuple[str, bool], ...]:
    """The fields of a node type that may hold nodes to visit, in field order (``NO_NODE_FIELDS`` left out), each
    with whether a list it holds may hold other things than nodes (``_MAY_HOLD_OTHERS``)."""
    fields = CHILD_FIELDS.get(kind)
    if fields is None:
        fields = CHILD_FIELDS[kind] = tuple((field, field in _MAY_HOLD_OTHERS) for field in kind._fields
                                             if field not in NO_NODE_FIELDS)
    return fields


def children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` as a list, without its two generators and without the nodes of
    ``NO_NODE_FIELDS``: what every walk of a summary's trees pushes, once per node of a file."""
    kind = type(node)
    fields = CHILD_FIELDS.get(kind)
    found: list[ast.AST] = []
    for field, mixed in fields if fields is not None else child_fields(kind):
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend([item for item in value if isinstance(item, _AST)] if mixed else value)
        elif isinstance(value, _AST):
            found.append(value)
    return found


def walk_scope(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Every node under ``nodes`` in source order, not entering nested functions, classes or lambdas, and
    leaving out expression contexts and operators (``NO_NODE_FIELDS``)."""
    stack = list(reversed(nodes))
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        yield node
        if type(node) not in _SCOPE_TYPES:
            below = children(node)
            below.reverse()
            extend(below)


_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


@functools.cache
def blocks(kind: type) -> tuple[str, ...]:
    """The fields of a statement (or handler, or case) type that hold statements, handlers or cases, in field
    order: how to reach every statement under one without visiting its expressions."""
    return tuple(field for field in kind._fields if field in _BLOCKS)


def walk_statements(nodes: Sequence[ast.AST], into_scopes: bool = False) -> Iterator[ast.AST]:
    """The statements (and handlers and cases) under ``nodes`` in the order ``walk_scope`` meets them, without
    visiting any expression, and entering nested functions and classes only ``into_scopes``: what a search for a
    kind of statement (a ``return``, a store, a class) needs, at a fraction of a walk of every node."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if into_scopes or not isinstance(node, SCOPES):
            children: list[ast.AST] = []
            for field in blocks(type(node)):
                children.extend(getattr(node, field))
            stack.extend(reversed(children))


def stored_targets(target: ast.expr) -> list[ast.expr]:
    """What a target stores to, out of any tuple, list or starred target (``a, (self.b, *c) = ...``: ``a``,
    ``self.b``, ``c``), in source order: the names, attributes and subscripts each fact module reads."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [leaf for element in target.elts for leaf in stored_targets(element)]
    if isinstance(target, ast.Starred):
        return stored_targets(target.value)
    return [target]


def qualname(scope: Scope, name: str = "") -> str:
    """The dotted path of ``name`` inside its module, spelt as ``__qualname__`` spells it (``f.<locals>.C``)."""
    parts: list[str] = []
    for kind, scope_name in scope:
        parts.append(scope_name)
        if kind == "def":
            parts.append("<locals>")
    if name:
        parts.append(name)
    return ".".join(parts)


def known_truth(test: ast.expr) -> bool | None:
    """Whether an ``if`` test is certainly true (True) or certainly false (False) when the code runs:
    ``TYPE_CHECKING`` (as a name or ``typing.TYPE_CHECKING``) is false, ``not`` flips it, a constant is what it is;
    None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = known_truth(test.operand)
        return None if inner is None else not inner
    if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
        return False
    if isinstance(test, ast.Constant):
        return bool(test.value)
    return None


BINDINGS = {"staticmethod": "staticmethod", "classmethod": "classmethod", "partial": "staticmethod",
            "functools.partial": "staticmethod"}
"""Calls that wrap a function into what a class attribute binds differently: what it then binds like."""


def unwrapped(value: ast.expr) -> tuple[ast.expr, str]:
    """``staticmethod(f)``, ``classmethod(f)``, ``functools.partial(f)`` (or of a lambda): the function and how a
    class attribute holding the wrapper binds it ("staticmethod" or "classmethod"); else ``value`` and "". A partial
    that gives arguments (``partial(_pack, key="ids")``, none starred) binds as "partial:N:names": a staticmethod
    with the first N positional parameters and the named ones given (``MethodSummary.bound_as``)."""
    if isinstance(value, ast.Call) and value.args \
            and isinstance(value.args[0], (ast.Name, ast.Attribute, ast.Lambda)):
        binding = BINDINGS.get(dotted(value.func), "")
        if binding and len(value.args) == 1 and not value.keywords:
            return value.args[0], binding
        if dotted(value.func) in ("partial", "functools.partial") and all(k.arg for k in value.keywords) \
                and not any(isinstance(a, ast.Starred) for a in value.args):
            return value.args[0], f"partial:{len(value.args) - 1}:{','.join(str(k.arg) for k in value.keywords)}"
    return value, ""
