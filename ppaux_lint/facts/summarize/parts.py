"""What a ``to_pp_tensors`` does with the objects its instance holds: the facts that make a class a part.

Produces ``MethodSummary.parts`` for ``to_pp_tensors`` only. A container output sends its parts' tensors in its
own mapping, so SGLang never meets a part alone; the index (``index/parts.py``) asks what each expression
below can be an instance of. Each fact is the expression, an attribute chain from the method's receiver
(``self.top``, ``self.parts.first``), and how the method uses the object it holds:

- ``returned``: it returns the object's own ``to_pp_tensors()`` as its mapping
  (``return self.inner.to_pp_tensors()``): the part's mapping is the one the helper gets;
- ``merged``: it calls the object's ``to_pp_tensors()`` anywhere else (``{**self.top.to_pp_tensors(), ...}``,
  ``out = self.top.to_pp_tensors(); out.update(...)``): the part's names and tensors go into its own;
- ``renamed``: it iterates over what that call returns (``{f"top.{k}": v for k, v in
  self.top.to_pp_tensors().items()}``, a ``for`` loop over it): the part's tensors go in under names of its own;
- ``read``: it reads another attribute of the object (``{"ids": self.top.ids}``): the part's own
  ``to_pp_tensors``, if it has one, is never called;
- ``sent``: it puts the object itself in its mapping (``{"detail": self.detail}``, ``out["detail"] =
  self.detail``): the helper meets it as a value, not as an output, and a value that is no tensor is the
  container's own finding (PPA012), not the part's.

An object reached another way (a local, a loop over ``(self.a, self.b)``, a helper method) is not seen: its
class stays judged as a class the helper may meet.
"""

from __future__ import annotations

import ast

from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.summarize.syntax import walk_scope

RETURNED, MERGED, RENAMED, READ, SENT = "returned", "merged", "renamed", "read", "sent"
_ITERATING = ("items", "keys", "values")


def parts(node: ast.FunctionDef | ast.AsyncFunctionDef, receiver: str) -> tuple[tuple[tuple[str, str, int], ...], str]:
    """(expression, how, line) for each object the method's receiver holds and the method uses, in source order,
    each (expression, how) once, at the line of its first use: what ``inventory`` cites; and how it uses the
    ``to_pp_tensors`` above its own along the MRO (``super().to_pp_tensors()``, ``Base.to_pp_tensors(self)``): the
    same "returned", "merged" or "renamed" (the one most like its own when several calls differ), "" for no such
    call (``MethodSummary.up``)."""
    if not receiver:
        return (), ""
    nodes = list(walk_scope(node.body))  # read twice: how each call's result is used, then the calls
    calls: dict[int, str] = {}  # id of a ``<held>.to_pp_tensors()`` call -> how its result is used
    for child in nodes:
        if isinstance(child, ast.Return):
            for value in _branches(child.value):
                calls[id(value)] = RETURNED
        elif isinstance(child, (ast.comprehension, ast.For, ast.AsyncFor)):
            source = child.iter
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) \
                    and source.func.attr in _ITERATING:
                source = source.func.value
            calls.setdefault(id(source), RENAMED)
    found: dict[tuple[str, str], int] = {}
    up: set[str] = set()
    for child in nodes:
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and child.func.attr == TO_PP:
            if _calls_up(child, receiver):
                up.add(calls.get(id(child), MERGED))
                continue
            held = _held(child.func.value, receiver)
            if held:
                found.setdefault((held, calls.get(id(child), MERGED)), child.lineno)
        elif isinstance(child, ast.Attribute) and child.attr != TO_PP:
            held = _held(child.value, receiver)
            if held:
                found.setdefault((held, READ), child.lineno)
        for value in _mapped(child):
            held = _held(value, receiver)
            if held:
                found.setdefault((held, SENT), value.lineno)
    held_parts = tuple((held, how, line) for (held, how), line in found.items())
    return held_parts, next((how for how in (RETURNED, MERGED, RENAMED) if how in up), "")


def _calls_up(call: ast.Call, receiver: str) -> bool:
    """``super().to_pp_tensors()``, ``super(Out, self).to_pp_tensors()``, or ``Base.to_pp_tensors(self)``: the
    method above this one along the MRO (or one a base names), run on the same instance."""
    owner = call.func.value  # type: ignore[attr-defined]
    if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
        return True
    first = call.args[0] if call.args else None
    return isinstance(owner, (ast.Name, ast.Attribute)) and isinstance(first, ast.Name) and first.id == receiver


def _mapped(node: ast.AST) -> list[ast.expr]:
    """The values ``node`` puts in a mapping as they are: a dict display's (not a ``**`` spread's), or a
    subscript assignment's."""
    if isinstance(node, ast.Dict):
        return [value for key, value in zip(node.keys, node.values, strict=True) if key is not None]
    if isinstance(node, ast.Assign) and any(isinstance(target, ast.Subscript) for target in node.targets):
        return [node.value]
    return []


def _branches(value: ast.expr | None) -> list[ast.expr]:
    """The values a ``return`` gives as they are: both sides of a conditional expression (not the operands of
    ``or``: ``self.top.to_pp_tensors() or {...}`` replaces an empty mapping with another)."""
    if isinstance(value, ast.IfExp):
        return _branches(value.body) + _branches(value.orelse)
    return [value] if value is not None else []


def _held(node: ast.expr, receiver: str) -> str:
    """``self.top`` (or ``self.a.b``) as written, when ``node`` is an attribute chain from the receiver; else ""."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not names or not isinstance(node, ast.Name) or node.id != receiver:
        return ""
    return ".".join([receiver, *reversed(names)])
