"""Names a module or a class body binds once, to a value Python computes from constants alone.

Produces ``FileSummary.constants`` and ``FileSummary.rebound``: what lets the index say what a key written as a
name holds (``{K_ACCEPTED: t}`` with ``K_ACCEPTED = "accepted"``, ``tensors[keys.TOP1]``, ``f"{_NS}.top1"``),
across files and re-exports, and which names are type variables (``T = TypeVar("T")``) a generic base is
parametrised by. A constant is recorded as its source, since what the names in it hold is decided in other
files (``index.constants``); a summary never refers to another file.

A name is a constant only when its body binds it exactly once, in any form: an assignment or annotated
assignment to a literal, a tuple of them, a name or attribute chain (an alias), an f-string of those without
a format spec, a ``+`` of them (``values.computed``), or a ``TypeVar(...)`` call. Every other binding counts
too (``for``, ``with``, ``import``, ``def``, ``class``, ``del``, an ``except`` or match capture, ``+=``, a
``global`` declaration in a function, ``:=``), and a second one makes the name no constant, its value then
depending on which ran last. A class-level name is no constant either when the file stores an attribute of
that name on anything (``Keys.A = "b"``, ``setattr(Keys, "A", ...)``) or the class is made in a function
(its closure may differ per call). Module-level names bound more than once are listed in ``rebound``: the
index must not follow the import of such a name (``try: from a import K`` / ``except: K = ...``).

A module whose text calls ``globals()`` binds no constant at module level: ``globals()["K"] = ...`` (or
``.update``) may rebind any of them.

Limits, stated rather than hidden: a star import after a constant may rebind it, and another module may
assign to it (``keys.K = ...``, ``setattr(keys, "K", ...)``); neither is followed.
"""

from __future__ import annotations

import ast
import re

from ppaux_lint.facts.summarize.syntax import TRY_STATEMENTS, Scope, dotted, qualname, source, stored_targets
from ppaux_lint.facts.summarize.values import computed

_TYPE_VARIABLES = frozenset({"TypeVar"})
_STORES = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)
_BINDINGS = frozenset({*_STORES, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Import, ast.ImportFrom,
                       *TRY_STATEMENTS, ast.Match, *([ast.TypeAlias] if hasattr(ast, "TypeAlias") else [])})
_TRAILING_NAME = re.compile(r"(\w+)\s*$")
_SETTER = re.compile(r"\b(?:setattr|delattr)\s*\(")
_SETTER_NAME = re.compile(r"[^,()\[\]{}'\"]*,\s*(['\"])(\w+)\1\s*[,)]")  # the first argument, then "name"
_LONGEST = 240  # characters of source kept for a constant: a key is short, a prompt template is not one


class Constants:
    """The bindings of the module body and of every class body not made in a function, fed by the walker."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], int] = {}  # (body's qualname, name) -> bindings
        self._values: dict[tuple[str, str], tuple[str, int]] = {}  # the source and line of a binding that may
        # make a constant
        self._stored: set[str] = set()  # attribute names assigned to anywhere in the file
        self._declared: set[str] = set()  # names a function declares global

    def definition(self, scope: Scope, name: str) -> None:
        """A ``def`` or ``class`` statement binding ``name`` in the body ``scope``."""
        if _recorded(scope):
            self._bind(qualname(scope), name)

    def statement(self, stmt: ast.stmt, scope: Scope) -> None:
        """Any other statement of the body ``scope`` (the walker hands over those of nested blocks too)."""
        kind = type(stmt)
        if kind in _STORES:
            targets = stmt.targets if kind is ast.Assign or kind is ast.Delete else [stmt.target]  # type: ignore[attr-defined]
            for target in targets:
                if type(target) is not ast.Name:
                    self._stored.update(_attributes(target))
        if scope and (scope[-1][0] != "class" or not _recorded(scope)):  # the innermost body decides most
            if kind is ast.Global:
                self._declared.update(stmt.names)  # type: ignore[attr-defined]
            return
        if kind not in _BINDINGS:  # most statements (an expression, an ``if``) bind nothing themselves
            return
        body = qualname(scope)
        if kind is ast.Assign:
            value = _constant(stmt.value)
            for target in stmt.targets:
                self._targets(body, target, value)
        elif kind is ast.AnnAssign:
            if stmt.value is not None:
                self._targets(body, stmt.target, _constant(stmt.value))
        elif kind in (ast.AugAssign, ast.For, ast.AsyncFor, ast.Delete):
            for target in stmt.targets if kind is ast.Delete else [stmt.target]:
                self._targets(body, target, "")
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._targets(body, item.optional_vars, "")
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in stmt.names:
                if alias.name != "*":
                    self._bind(body, alias.asname or alias.name.split(".", 1)[0])
        elif kind in TRY_STATEMENTS:
            for handler in stmt.handlers:
                if handler.name:
                    self._bind(body, handler.name)
        elif kind is ast.Match:
            for case in stmt.cases:
                for node in ast.walk(case.pattern):
                    captured = getattr(node, "name", None) or getattr(node, "rest", None)
                    if isinstance(captured, str):
                        self._bind(body, captured)
        else:  # ``type X = ...``, Python 3.12
            self._bind(body, stmt.name.id)  # type: ignore[attr-defined]

    def finish(self, text: str) -> tuple[tuple[tuple[str, str, int], ...], tuple[str, ...]]:
        """(constants, rebound), once the whole module has been walked. Two facts live in expressions the
        walker does not hand over, and are read from the text, erring on the side of caution (a match in a string
        or a comment counts too) rather than walking every expression: every name written before a ``:=`` counts
        as rebound, and ``setattr(x, "name", ...)`` or ``delattr`` as a store of ``name``, or of anything at all
        when the name is not a plain literal there."""
        if ":=" in text:
            self._declared.update(m.group(1) for chunk in text.split(":=")[:-1]
                                  for m in [_TRAILING_NAME.search(chunk[-200:])] if m)
        anything = False  # an attribute set under a name only run time knows
        if "setattr" in text or "delattr" in text:
            for call in _SETTER.finditer(text):
                literal = _SETTER_NAME.match(text, call.end())
                anything = anything or literal is None
                if literal is not None:
                    self._stored.add(literal.group(2))
        constants = []
        through_globals = "globals()" in text  # ``globals()["K"] = ...`` may rebind any module-level name
        for (body, name), (value, line) in self._values.items():
            if (body and (anything or name in self._stored)) or (not body and through_globals):
                continue
            if self._counts[(body, name)] == 1 and name not in self._declared:
                constants.append((f"{body}.{name}" if body else name, value, line))
        rebound = sorted(name for (body, name), count in self._counts.items()
                         if not body and (count > 1 or name in self._declared))
        return tuple(constants), tuple(rebound)

    def _targets(self, body: str, target: ast.expr, value: str) -> None:
        if isinstance(target, ast.Name):
            self._bind(body, target.id)
            if value and not target.id.startswith("__"):
                self._values[(body, target.id)] = (value, target.lineno)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._targets(body, element, "")
        elif isinstance(target, ast.Starred):
            self._targets(body, target.value, "")

    def _bind(self, body: str, name: str) -> None:
        key = (body, name)
        self._counts[key] = self._counts.get(key, 0) + 1


def _recorded(scope: Scope) -> bool:
    """The module body and class bodies outside functions: the bodies whose names another file can read."""
    return all(kind == "class" for kind, _ in scope)


def _attributes(target: ast.expr) -> list[str]:
    """The attribute names a target assigns to (``Keys.A = ...``, ``a.x, b.y = ...``)."""
    return [leaf.attr for leaf in stored_targets(target) if isinstance(leaf, ast.Attribute)]


def _constant(value: ast.expr) -> str:
    """The source of a value that may make a constant, or ""."""
    if computed(value, ()):
        text = source(value)
        return text if len(text) <= _LONGEST else ""
    if (isinstance(value, ast.Call) and dotted(value.func).rsplit(".", 1)[-1] in _TYPE_VARIABLES
            and value.args and isinstance(value.args[0], ast.Constant)):
        return f"{dotted(value.func)}({source(value.args[0])})"
    return ""
