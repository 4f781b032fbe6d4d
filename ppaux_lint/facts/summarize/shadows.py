"""Module-level class names that something else may hold when the module has run.

Produces ``FileSummary.shadowed``. A class statement binds its name in the module, but so may other statements:
``Out = _PPOut`` after it, an import in the ``try`` whose ``except ImportError`` holds the class as a fallback
(``try: from fastlib import Base`` / ``except ImportError: class Base: ...``), a second class of that name under an
``if``. Code that runs later (a function body, another module's import) then names what was bound last, which is not
the class statement. The index must follow that binding, not the class (``index/graph.py``), and the class statement
itself can no longer be reached by its name, so no rule judges it.

Only the names of ``FileSummary.rebound`` that a module-level class statement binds are looked at, so most files
are not walked again, and only their statements are visited. What was bound last is decided as Python runs the
module, with one assumption: the body of a ``try`` runs to its end, so the bindings of its handlers are fallbacks
that do not run (a plugin is checked for a deployment where its imports succeed). A binding under an ``if``, a loop
or a ``match`` may not run, so when such a binding comes last the name holds one of several things: "unknown".

Each entry is ``(name, kind, target, line)``, where ``line`` is that of the binding that decides: kind "import"
(``target`` is the absolute dotted name imported), "alias" (``Name = other.Name``: ``target`` is the dotted name as
written) or "unknown" (a ``def``, another expression, a binding that may not run, a class statement the index does
not keep, or bindings this pass does not see: a ``:=``, a ``global`` declaration in a function). A class statement
that is certainly what its name holds at the end gets no entry, and neither does one that ``Out = deco(Out)``
rebinds: the index follows decorators as namespace edits (``index/namespaces.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence

from ppaux_lint.facts.summarize.imports import Bindings
from ppaux_lint.facts.summarize.syntax import TRY_STATEMENTS, dotted, known_truth, stored_targets
from ppaux_lint.support.records import dataclass

Shadow = tuple[str, str, str, int]  # (name, kind, target, line)
Context = tuple[tuple[str, int, str], ...]  # the compound statements around a binding: (kind, id, part)

_CONDITIONAL = frozenset({"if", "loop", "match"})


@dataclass(frozen=True)
class _Binding:
    name: str
    kind: str  # "class", "import", "alias", "decorate" (the class stays, as edited: ``Out = deco(Out)``) or "other"
    target: str
    line: int
    context: Context


def shadowed(tree: ast.Module, names: Collection[str], module: str, is_package: bool) -> tuple[Shadow, ...]:
    """The entries for ``names``: module-level class names that the module binds more than once."""
    found: list[_Binding] = []
    _collect(tree.body, (), frozenset(names), Bindings(module, is_package), found)
    out = []
    for name in sorted(names):
        entry = _decide(name, [b for b in found if b.name == name])
        if entry is not None:
            out.append(entry)
    return tuple(out)


def _decide(name: str, bindings: list[_Binding]) -> Shadow | None:
    classes = [b for b in bindings if b.kind == "class"]
    if len(bindings) < 2:  # bound again where this pass does not look (``:=``, ``global``)
        return (name, "unknown", "", classes[0].line if classes else 0)
    tried = {c[1] for b in bindings for c in b.context if c[0] == "try" and c[2] == "body"}
    live = [b for b in bindings if not any((c[0] == "try" and c[2] == "handler" and c[1] in tried) or c[0] == "never"
                                           for c in b.context)]
    if not live:  # bound only where it never runs (``if TYPE_CHECKING:``): what annotations name, as if bound once
        return None
    last = live[-1]
    if last.kind == "decorate":  # followed as an edit of the class, under a condition or not (namespaces.py)
        return None
    if any(c[0] in _CONDITIONAL or (c[0] == "try" and c[2] == "handler") for c in last.context):
        return (name, "unknown", "", last.line)
    if last.kind == "class":
        # the index keeps the last class statement of a name: the one that holds it, or nothing is certain
        return None if last is classes[-1] else (name, "unknown", "", last.line)
    if last.kind in ("import", "alias"):
        return (name, last.kind, last.target, last.line)
    if last.kind == "def" and not classes:  # the function the name's ``def`` makes, as for a name bound once
        return None
    return (name, "unknown", "", last.line)


def _collect(body: Sequence[ast.stmt], context: Context, names: frozenset[str], bindings: Bindings,
             out: list[_Binding]) -> None:
    for stmt in body:
        kind = type(stmt)
        if kind is ast.ClassDef or kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if stmt.name in names:  # type: ignore[attr-defined]
                out.append(_Binding(stmt.name, "class" if kind is ast.ClassDef else "def", "",  # type: ignore[attr-defined]
                                    stmt.lineno, context))
        elif kind is ast.Import or kind is ast.ImportFrom:
            before = len(bindings.imports)
            if kind is ast.Import:
                bindings.import_(stmt, nested=False)  # type: ignore[arg-type]
            else:
                bindings.import_from(stmt, nested=False)  # type: ignore[arg-type]
            for imported in bindings.imports[before:]:
                if imported.local in names:
                    out.append(_Binding(imported.local, "import", imported.target, stmt.lineno, context))
        elif kind is ast.Assign or kind is ast.AnnAssign:
            value = stmt.value  # type: ignore[attr-defined]
            if value is None:
                continue
            for target in stmt.targets if kind is ast.Assign else [stmt.target]:  # type: ignore[attr-defined]
                for bound in _names(target, names):
                    out.append(_assignment(bound, target, value, stmt.lineno, context))
        elif kind is ast.AugAssign or kind is ast.Delete:
            for target in stmt.targets if kind is ast.Delete else [stmt.target]:  # type: ignore[attr-defined]
                out.extend(_others(target, names, stmt.lineno, context))
        elif kind is ast.If:
            truth = known_truth(stmt.test)  # type: ignore[attr-defined]
            if truth is None:
                _collect(stmt.body, (*context, ("if", id(stmt), "body")), names, bindings, out)  # type: ignore[attr-defined]
                _collect(stmt.orelse, (*context, ("if", id(stmt), "orelse")), names, bindings, out)  # type: ignore[attr-defined]
            else:  # ``if TYPE_CHECKING:`` never runs, its ``else`` always does
                runs, never = (stmt.body, stmt.orelse) if truth else (stmt.orelse, stmt.body)  # type: ignore[attr-defined]
                _collect(runs, context, names, bindings, out)
                _collect(never, (*context, ("never", id(stmt), "")), names, bindings, out)
        elif kind in (ast.For, ast.AsyncFor, ast.While):
            if kind is not ast.While:
                out.extend(_others(stmt.target, names, stmt.lineno, context))  # type: ignore[attr-defined]
            inner = (*context, ("loop", id(stmt), ""))
            _collect(stmt.body + stmt.orelse, inner, names, bindings, out)  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    out.extend(_others(item.optional_vars, names, stmt.lineno, context))
            _collect(stmt.body, context, names, bindings, out)  # type: ignore[attr-defined]
        elif kind in TRY_STATEMENTS:
            _collect(stmt.body, (*context, ("try", id(stmt), "body")), names, bindings, out)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                part = (*context, ("try", id(stmt), "handler"))
                if handler.name in names:
                    out.append(_Binding(handler.name, "other", "", handler.lineno, part))
                _collect(handler.body, part, names, bindings, out)
            _collect(stmt.orelse, (*context, ("try", id(stmt), "body")), names, bindings, out)  # type: ignore[attr-defined]
            _collect(stmt.finalbody, context, names, bindings, out)  # type: ignore[attr-defined]
        elif kind is ast.Match:
            for case in stmt.cases:  # type: ignore[attr-defined]
                inner = (*context, ("match", id(case), ""))
                for node in ast.walk(case.pattern):
                    captured = getattr(node, "name", None) or getattr(node, "rest", None)
                    if captured in names:
                        out.append(_Binding(captured, "other", "", stmt.lineno, inner))
                _collect(case.body, inner, names, bindings, out)


def _others(target: ast.expr, names: frozenset[str], line: int, context: Context) -> list[_Binding]:
    """The bindings of ``names`` by a target that stores what only run time knows (``for``, ``with``, ``del``)."""
    return [_Binding(name, "other", "", line, context) for name in _names(target, names)]


def _names(target: ast.expr, names: frozenset[str]) -> list[str]:
    """The names of ``names`` that a target binds (out of any tuple, list or starred target)."""
    return [leaf.id for leaf in stored_targets(target) if isinstance(leaf, ast.Name) and leaf.id in names]


def _assignment(name: str, target: ast.expr, value: ast.expr, line: int, context: Context) -> _Binding:
    """``Name = other.Name`` is an alias, ``Name = deco(Name)`` (or ``factory(...)(Name)``) a decoration of the class
    that ``Name`` held; anything else (a tuple target, another call, a literal) binds what only run time knows."""
    if isinstance(target, ast.Name):
        if isinstance(value, ast.Name) and value.id == name:  # ``Plain = Plain`` keeps what it held
            return _Binding(name, "decorate", "", line, context)
        if isinstance(value, (ast.Name, ast.Attribute)) and dotted(value):
            return _Binding(name, "alias", dotted(value), line, context)
        if isinstance(value, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in value.args):
            return _Binding(name, "decorate", "", line, context)
    return _Binding(name, "other", "", line, context)
