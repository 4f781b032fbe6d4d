"""What a name bound to a constant holds, across files: the values Python computes for keys written as names.

A key may be written ``K_ACCEPTED``, ``keys.TOP1``, ``Keys.ACCEPTED`` or ``f"{_NS}.top1"``; the summaries keep
such a key as its source (``KeyFact.computed``) and each module's constants as theirs (``summarize.constants``).
This module evaluates them the way Python would, following names through imports, re-exports (an explicit
import, a ``from m import *``, an alias ``K = keys.K``), modules and packages, and class attributes along
the MRO, loading a module's summary on demand when a name leads into a file the prefilter skipped.

It answers only what is certain, and ``UNKNOWN`` for everything else: a name its module binds more than once
(``rebound``) or to anything but a constant, an import that leaves the project, a name a star import might
shadow when several star imports could bind it, a class attribute of a class whose namespace is not only
its statement (a metaclass, a decorator other than the dataclass ones, a base outside the project other than
``object``, ``Generic``, ``Protocol``, ``ABC`` and the protocol roots: an ``Enum`` member is no string),
``self.NAME`` where an instance attribute may hide the class's (``_on_instance``), an f-string's format
spec, an operation Python would refuse, a cycle, or a chain deeper than ``_DEPTH``. A value is what
``ast.literal_eval`` makes of the constant: a string, bytes, a number, a bool, None or a tuple of those.
"""

from __future__ import annotations

import ast
import functools
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ppaux_lint.index.graph import ProjectGraph

UNKNOWN = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()
"""What a value is when it is not certain (None is a value: ``K = None``)."""
_DEPTH = 24
_PLAIN_DECORATORS = frozenset({"dataclasses.dataclass", "typing.final", "typing_extensions.final",
                               "functools.total_ordering"})
_SCALARS = (str, bytes, int, float, complex, bool, type(None), tuple)
_PLAIN_OUTSIDE = frozenset({"builtins.object", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol",
                            "abc.ABC"})
"""Outside bases that bind no constant a subclass reads and change no attribute lookup (the configured
protocol roots, SGLang's, are such bases too: methods only); an ``Enum`` is not one."""
Where = tuple[str, str]
"""(module, qualname) of a constant: ``("pkg.keys", "ACCEPTED")``, ``("pkg.keys", "Keys.A")``."""


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> ast.expr | None:
    """The expression ``text`` (a constant's or a key's source), or None. Memoised: each rule that reads a key
    asks for it again (``rules/sent.key``: its value, then where it is bound), and nothing here changes a
    tree it is given."""
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class Constants:
    """Answers about one graph, memoised for its life."""

    def __init__(self, graph: ProjectGraph) -> None:
        self.graph = weakref.proxy(graph)  # the graph holds this object: no cycle to keep summaries alive
        self._tables: dict[str, dict[str, tuple[str, int]]] = {}
        self._values: dict[Where, object] = {}
        self._active: set[Where] = set()
        roots = graph.protocols
        self._outside = _PLAIN_OUTSIDE | {*roots.output, *roots.observer, *roots.pp_output, *roots.pp_observer,
                                          *roots.forward_observer}

    # -- questions ---------------------------------------------------------------------------------------
    def key(self, module: str, scope: str, text: str, instance: str = "") -> object:
        """The value of an expression written in a method of ``module`` whose class is ``scope`` (its
        qualname): the method sees the module's names, never the class body's, and ``self.NAME`` is looked up
        on the class of the instance, ``instance`` (a subclass of ``scope``'s class; that class when ""). A
        class made in a function sees that function's locals, which no summary holds: unknown."""
        if "<locals>" in scope:
            return UNKNOWN
        node = parse(text)
        return UNKNOWN if node is None else self._evaluate(node, module, "", 0, instance or f"{module}.{scope}")

    def definition(self, module: str, name: str, scope: str = "") -> Where | None:
        """Where the constant ``name`` (dotted) used in ``module`` is defined, when it certainly is one; in a
        class body ``scope``, its own names come first."""
        return self._find(module, name, scope, 0)

    def source(self, where: Where) -> str:
        return self._table(where[0]).get(where[1], ("", 0))[0]

    def written(self, module: str, scope: str, text: str, instance: str = "") -> tuple[Where, int] | None:
        """Where the constant a key written as one name (``K_ACCEPTED``, ``keys.TOP1``, ``self.KEY``) in a method
        of ``scope`` reads is bound, and the line; None for any other key (an f-string, a ``+``), or where the
        name is not certainly a constant. The name as written: an alias (``K = keys.K``) is where it points."""
        node = parse(text) if "<locals>" not in scope else None
        name = dotted_name(node) if node is not None else ""
        head, _, rest = name.partition(".")
        if not name:
            return None
        if head == "self":
            where = self._on_instance(instance or f"{module}.{scope}", rest, 1) if rest else None
        else:
            where = self._find(module, name, "", 1)
        return (where, self._table(where[0])[where[1]][1]) if where is not None else None

    # -- evaluation ---------------------------------------------------------------------------------------
    def _evaluate(self, node: ast.expr, module: str, body: str, depth: int, instance: str = "") -> object:
        """``node``, written in ``module`` at the level of ``body`` (a class qualname, or "" for functions and
        the module), evaluated; UNKNOWN where it is not certain. In a method, ``instance`` is the class of
        ``self``; "" elsewhere, where ``self`` is just a name."""
        if depth > _DEPTH:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, _SCALARS) else UNKNOWN
        if isinstance(node, ast.Tuple):
            items = [self._evaluate(e, module, body, depth + 1, instance) for e in node.elts]
            return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
        if isinstance(node, ast.JoinedStr):
            return self._format(node, module, body, depth, instance)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self._evaluate(node.left, module, body, depth + 1, instance)
            right = self._evaluate(node.right, module, body, depth + 1, instance)
            return _add(left, right)
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = dotted_name(node)
            head, _, rest = name.partition(".")
            if instance and head == "self":
                where = self._on_instance(instance, rest, depth + 1) if rest else None
            else:
                where = self._find(module, name, body, depth + 1) if name else None
            return self._value(where, depth + 1) if where is not None else UNKNOWN
        return UNKNOWN

    def _format(self, node: ast.JoinedStr, module: str, body: str, depth: int, instance: str) -> object:
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
                continue
            if not isinstance(part, ast.FormattedValue) or part.format_spec is not None:
                return UNKNOWN
            value = self._evaluate(part.value, module, body, depth + 1, instance)
            if value is UNKNOWN:
                return UNKNOWN
            parts.append(repr(value) if part.conversion == ord("r") else ascii(value) if part.conversion == ord("a")
                         else str(value))
        return "".join(parts)

    def _value(self, where: Where, depth: int) -> object:
        if where in self._values:
            return self._values[where]
        if where in self._active:
            return UNKNOWN  # a constant defined through itself
        node = parse(self.source(where))
        if node is None:
            return UNKNOWN
        self._active.add(where)
        try:
            body = where[1].rpartition(".")[0]  # a class constant sees its class body's names
            value = self._evaluate(node, where[0], body, depth + 1)
        finally:
            self._active.discard(where)
        if depth == 1 or value is not UNKNOWN:  # an unknown found deep may be a cut cycle: not memoised
            self._values[where] = value
        return value

    # -- names ---------------------------------------------------------------------------------------------
    def _find(self, module: str, name: str, body: str, depth: int) -> Where | None:
        """Where ``name``, used in ``module`` at the level of ``body``, is bound to a constant."""
        if depth > _DEPTH:
            return None
        head = name.partition(".")[0]
        if body:
            cls = f"{module}.{body}"
            if cls in self.graph.classes and self._binds(cls, head):  # the class body's own name
                return self._in_class(cls, name, depth + 1)
        return self._global(module, name, depth + 1)

    def _global(self, module: str, name: str, depth: int) -> Where | None:
        summary = self.graph.load(module)
        if summary is None or depth > _DEPTH:
            return None
        head, _, rest = name.partition(".")
        if head in summary.rebound:
            return None
        if head in self._table(module):
            return None if rest else (module, head)
        cls = f"{module}.{head}"
        if cls in self.graph.classes:
            return self._in_class(cls, rest, depth + 1) if rest else None
        targets = [i.target for i in summary.imports if i.local == head and not i.star and not i.nested]
        if targets:
            return self._absolute(_join(targets[0], rest), depth + 1) if len(targets) == 1 else None
        if head in summary.defs:
            return None
        if summary.is_package and f"{module}.{head}" in self.graph.known:
            return self._global(f"{module}.{head}", rest, depth + 1) if rest else None
        stars = [i.target for i in summary.imports if i.star and not i.nested]
        exporting = [star for star in stars if self._exports(star, head)]
        if len(exporting) == 1 and all(star in self.graph.known for star in stars):  # no other may bind it too
            return self._global(exporting[0], name, depth + 1)
        return None

    def _exports(self, module: str, head: str) -> bool:
        """Whether ``from module import *`` binds ``head``: the project module binds it, and lists it in its
        ``__all__`` (or has none and the name is public)."""
        if self.graph.load(module) is None:
            return False
        exported = self.graph.modules[module].all_names
        return ((head in exported) if exported is not None else not head.startswith("_")) and (
            head in self._table(module) or self.graph.resolve(module, head) not in (None, f"builtins.{head}"))

    def _absolute(self, dotted: str, depth: int) -> Where | None:
        """An absolute dotted name: the longest prefix that is a project module, the rest found in it."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.graph.known:
                return self._global(module, ".".join(parts[cut:]), depth + 1)
        return None  # a module itself, or outside the project

    def _on_instance(self, cls: str, name: str, depth: int) -> Where | None:
        """The class constant ``self.<name>`` reads on an instance of ``cls``: only where no class along the MRO
        declares ``name`` an instance attribute (an annotated field, not a ``ClassVar``; one ``__init__`` stores) or
        takes over
        attribute lookup (``__getattribute__``), since an instance attribute would hide it. (A store of that
        name on anything in the class constant's own file already makes it no constant.)"""
        head = name.partition(".")[0]
        if cls not in self.graph.classes:
            return None
        for owner in self.graph.mro(cls):
            summary = self.graph.classes.get(owner)
            if summary is None:
                continue  # builtins.object; any other class outside the project makes ``_in_class`` unknown
            if (any(f.name == head and "ClassVar" not in f.annotation for f in (*summary.fields, *summary.init_fields))
                    or summary.method("__getattribute__") is not None or summary.assign("__getattribute__")):
                return None
        return self._in_class(cls, name, depth + 1)

    def _in_class(self, cls: str, name: str, depth: int) -> Where | None:
        """The class attribute ``name`` (dotted: nested classes first) of ``cls``, looked up along the MRO."""
        head, _, rest = name.partition(".")
        nested = self.graph.member_class(cls, head)
        if nested is not None:
            return self._in_class(nested, rest, depth + 1) if rest else None
        if not self._plain(cls):
            return None
        for owner in self.graph.mro(cls):
            if owner not in self.graph.classes:
                if owner in self._outside and not head.startswith("__"):
                    continue
                return None
            if self._binds(owner, head):
                qualname = f"{self.graph.classes[owner].qualname}.{head}"
                module = self.graph.class_module[owner]
                return (module, qualname) if qualname in self._table(module) and not rest else None
        return None

    def _binds(self, cls: str, name: str) -> bool:
        """Whether the class statement binds ``name`` itself, in any form."""
        summary = self.graph.classes[cls]
        qualname = f"{summary.qualname}.{name}"
        return (qualname in self._table(self.graph.class_module[cls]) or summary.method(name) is not None
                or summary.assign(name) is not None or self.graph.member_class(cls, name) is not None)

    def _plain(self, cls: str) -> bool:
        """Whether the classes along the MRO are made by their statements alone, from project classes and plain
    outside bases (``_PLAIN_OUTSIDE``, the protocol roots)."""
        if self.graph.unresolved_bases(cls):
            return False
        for owner in self.graph.mro(cls):
            summary = self.graph.classes.get(owner)
            if summary is None:
                if owner not in self._outside:
                    return False
                continue
            module = self.graph.class_module[owner]
            scope = summary.qualname.rpartition(".")[0]
            if summary.metaclass or any(self.graph.resolve(module, d, scope) not in _PLAIN_DECORATORS
                                        for d in summary.decorators):
                return False
        return True

    def _table(self, module: str) -> dict[str, tuple[str, int]]:
        table = self._tables.get(module)
        if table is None:
            summary = self.graph.load(module)
            table = self._tables[module] = ({qualname: (text, line) for qualname, text, line in summary.constants}
                                            if summary is not None else {})
        return table


def _add(left: object, right: object) -> object:
    """``left + right`` where Python certainly computes it from these types, else UNKNOWN."""
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    same = type(left) is type(right) and isinstance(left, (str, bytes, tuple))
    numbers = all(isinstance(v, (int, float, complex)) and not isinstance(v, bool) for v in (left, right))
    return left + right if same or numbers else UNKNOWN  # type: ignore[operator]


def dotted_name(node: ast.expr) -> str:
    """``a.b.C`` for a Name/Attribute chain, else "" (what the summaries' ``dotted`` gives for these)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _join(base: str, rest: str) -> str:
    return f"{base}.{rest}" if rest else base
