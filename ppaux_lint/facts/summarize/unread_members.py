"""The names a class gets in ways its ``ClassSummary`` does not read: what makes one of them unknown on it.

Produces ``ClassSummary.unread``. A class summary reads its namespace from ``def`` statements and from
assignments and annotated assignments to a plain name; Python binds a name in a class body by every other form
too (``to_pp_tensors, _ = _pack, None``, ``(to_pp_tensors := _pack)``, an import, a ``for`` or ``with`` target,
a match capture, ``del``); ``exec()`` in the body makes the whole namespace unknown (``classes.py``). Its
instances can also hold a name of their own: ``self.to_pp_tensors = ...`` in a method, or ``setattr(self,
"to_pp_tensors", ...)``, is an attribute the helpers' ``isinstance`` check sees as much as a method (a
classmethod's store sets the class it is called on, at a time only run time knows). Either way the summary alone
would call the method missing (a false PPA001 or PPA002), so each such name is listed, with what binds it and
where, and the index makes it unknown on the class (``index/namespaces.py``): no rule judges it, and
``inventory`` says why. What ``__init_subclass__`` sets on the class it receives reaches the subclasses, and is
``index/namespaces.py``'s to follow.

Only the names the rules look up (``LOOKED_UP``) are listed, and only where the file's text spells one of them,
so most classes cost nothing here. Special methods are looked up on the type, never on the instance, so an
instance's ``__getattr__`` is not listed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from ppaux_lint.contract.names import DYNAMIC_LOOKUP, LOOKED_UP
from ppaux_lint.facts.summarize.syntax import dotted, spells, stored_targets, string, walk_statements

Unread = tuple[str, str, int]  # (name, what binds it, line)

_ON_INSTANCES = LOOKED_UP - frozenset(DYNAMIC_LOOKUP)
_LOOKED_UP = tuple(sorted(LOOKED_UP))  # what ``spells`` is asked, in an order that does not vary between runs
_SETTING = ("setattr", *(f".{name}" for name in sorted(_ON_INSTANCES)))
_FORMS = {ast.For: "a `for` loop", ast.AsyncFor: "a `for` loop", ast.With: "a `with` statement",
          ast.AsyncWith: "a `with` statement", ast.Import: "an import", ast.ImportFrom: "an import",
          ast.Delete: "`del`", ast.AugAssign: "an augmented assignment", ast.Assign: "an unpacking assignment",
          ast.Match: "a match capture"}


def unread_members(statements: Sequence[ast.stmt], text: str) -> tuple[Unread, ...]:
    """``(name, what, line)`` for each looked-up name that the class body ``statements`` (its class-level ones) or
    its methods bind in a form the summary does not read."""
    if not spells(text, _LOOKED_UP):
        return ()
    found: dict[str, Unread] = {}
    for stmt in statements:
        for name, what, line in _body_bindings(stmt, text):
            found.setdefault(name, (name, f"its body binds `{name}` by {what} (line {line})", line))
    on_instances = spells(text, _SETTING)
    for stmt in statements if on_instances else ():
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt.name in _CLASS_RECEIVERS:
            continue  # what ``__init_subclass__`` sets on the class it receives is ``index/namespaces.py``'s
        on_class = any(dotted(d) == "classmethod" for d in stmt.decorator_list)
        for name, line in _instance_stores(stmt, text):
            what = (f"`{stmt.name}` sets `{name}` on the class it is called on (line {line}), at a time only run time "
                    "knows") if on_class else (f"`{stmt.name}` sets `{name}` on its instances (line {line}), which "
                                               "the helpers' isinstance check sees")
            found.setdefault(name, (name, what, line))
    return tuple(found.values())


_CLASS_RECEIVERS = frozenset({"__init_subclass__", "__class_getitem__", "__new__"})
"""Methods whose first parameter is a class, implicitly: no instance of this class is what they store on."""


def _body_bindings(stmt: ast.stmt, text: str) -> Iterator[tuple[str, str, int]]:
    """The looked-up names a class-level statement binds in a form the summary does not read."""
    kind = type(stmt)
    if kind is ast.Import or kind is ast.ImportFrom:
        for alias in stmt.names:  # type: ignore[attr-defined]
            local = alias.asname or alias.name.split(".")[0]
            if local in LOOKED_UP:
                yield local, _FORMS[kind], stmt.lineno
    elif kind is ast.Assign:
        for target in stmt.targets:  # type: ignore[attr-defined]
            if not isinstance(target, ast.Name):
                yield from ((n, _FORMS[kind], stmt.lineno) for n in _stored_names(target))
    elif kind in (ast.For, ast.AsyncFor, ast.AugAssign, ast.Delete, ast.With, ast.AsyncWith):
        if kind is ast.With or kind is ast.AsyncWith:
            targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]  # type: ignore[attr-defined]
        else:
            targets = stmt.targets if kind is ast.Delete else [stmt.target]  # type: ignore[attr-defined]
        for target in targets:
            yield from ((n, _FORMS[kind], stmt.lineno) for n in _stored_names(target))
    elif kind is ast.Match:
        for case in stmt.cases:  # type: ignore[attr-defined]
            for node in ast.walk(case.pattern):
                captured = getattr(node, "name", None) or getattr(node, "rest", None)
                if captured in LOOKED_UP:
                    yield captured, _FORMS[kind], stmt.lineno
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) or not spells(text, (":=",)):
        return
    for node in ast.walk(stmt):
        if isinstance(node, ast.NamedExpr) and node.target.id in LOOKED_UP:
            yield node.target.id, "an assignment expression (`:=`)", node.lineno


def _stored_names(target: ast.expr) -> Iterator[str]:
    """The looked-up plain names a target binds, out of any tuple, list or starred target."""
    return (leaf.id for leaf in stored_targets(target) if isinstance(leaf, ast.Name) and leaf.id in LOOKED_UP)


def _instance_stores(method: ast.FunctionDef | ast.AsyncFunctionDef, text: str) -> Iterator[tuple[str, int]]:
    """The looked-up names a method stores on its receiver: ``self.name = ...`` (any assignment form) or
    ``setattr(self, "name", ...)``."""
    positional = method.args.posonlyargs + method.args.args
    if not positional or any(dotted(d) == "staticmethod" for d in method.decorator_list):
        return
    receiver = positional[0].arg
    setter = spells(text, ("setattr",))
    for stmt in walk_statements(method.body):
        kind = type(stmt)
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            for target in stmt.targets if kind is ast.Assign else [stmt.target]:  # type: ignore[attr-defined]
                for attribute in _attributes(target, receiver):
                    yield attribute, stmt.lineno
        elif setter and kind is ast.Expr and isinstance(stmt.value, ast.Call):  # type: ignore[attr-defined]
            call = stmt.value  # type: ignore[attr-defined]
            if (dotted(call.func) == "setattr" and len(call.args) >= 2 and isinstance(call.args[0], ast.Name)
                    and call.args[0].id == receiver and string(call.args[1]) in _ON_INSTANCES):
                yield string(call.args[1]), stmt.lineno  # type: ignore[misc]


def _attributes(target: ast.expr, receiver: str) -> Iterator[str]:
    """The looked-up attributes a target stores on ``receiver``, out of any tuple, list or starred target."""
    return (leaf.attr for leaf in stored_targets(target) if isinstance(leaf, ast.Attribute)
            and isinstance(leaf.value, ast.Name) and leaf.value.id == receiver and leaf.attr in _ON_INSTANCES)
