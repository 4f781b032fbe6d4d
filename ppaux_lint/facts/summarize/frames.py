"""What a name in a module, class or function body is bound to, when that is certain.

Produces no field of its own: ``calls`` uses it to say what a helper's argument is (``observer = None``
then ``pop(tensors, observer)``) and whether a key starts with the transport prefix through a constant
(``_PREFIX = "__sampling_observer_output__."`` then ``tensors[_PREFIX + name]``).

A name means one thing only when its body binds it exactly once. Every binding counts, whatever its form
(assignment, ``for``, ``with``, ``except ... as``, ``import``, ``def``, a parameter, ``:=``, ``del``, a
``global`` or ``nonlocal`` rebinding from an inner body), and a second one makes the name unknown rather
than a guess. A loop may rebind a name after a use, so uses are settled only once the whole module has
been walked (``settle``); until then they are ``Value``s that still refer to their frame. Inside its own
body a binding counts only for uses after it in the text.

The binding counts come from the expression scan, so only the files that scan (``calls.worth_scanning``)
have them; ``describe`` runs in those and in the files ``handoffs`` scans, which reads only ``Frame.get``.
"""

from __future__ import annotations

import ast

from ppaux_lint.contract.pp_errors import PP_KEY_PREFIX
from ppaux_lint.facts.summarize.syntax import dotted, is_none, string
from ppaux_lint.support.records import dataclass

Position = tuple[int, int]
"""(line, column) as ``ast`` counts them: only ever compared with another."""


@dataclass(frozen=True)
class Value:
    """What an expression evaluates to, as far as syntax shows.

    kind: "none" (the literal None), "prefix" (a string that visibly starts with the transport prefix),
    "construct" (a call of ``dotted``), "name" (the object ``dotted`` names), "lead" (a string built from
    ``dotted`` first: ``dotted + x``, ``f"{dotted}..."``), or "" (unknown). ``frame`` and ``at`` are where
    the names in it are looked up, once every binding is known.
    """

    kind: str
    dotted: str = ""
    frame: Frame | None = None
    at: Position = (0, 0)


UNKNOWN = Value("")
NAMED = Value("named")  # bound by ``def``, ``class`` or ``import``: the index knows what it denotes
FREE = Value("free")  # bound nowhere in the module: a builtin, or a star import's name
_DEPTH = 8  # how many aliases ``settle`` follows (``a = b``, ``b = c``, ...) before giving up


class Frame:
    """The bindings of one body. A function's frame looks names up in the enclosing function's, then the
    module's (a class body in between is not visible to it, as in Python)."""

    def __init__(self, parent: Frame | None = None, *, is_class: bool = False) -> None:
        self.parent = parent
        self.module: Frame = parent.module if parent is not None else self
        self.is_class = is_class
        self._counts: dict[str, int] = {}
        self._values: dict[str, tuple[Value, Position]] = {}
        self._assigned: dict[str, str | None] = {}
        self._globals: set[str] = set()
        self._nonlocals: set[str] = set()

    def function(self) -> Frame:
        """The frame of a function defined in this body."""
        return Frame(self)

    def class_body(self) -> Frame:
        return Frame(self, is_class=True)

    def _enclosing(self) -> Frame | None:
        """The body whose names this one sees next: class bodies are skipped, as Python skips them."""
        frame = self.parent
        while frame is not None and frame.is_class:
            frame = frame.parent
        return frame

    def declare(self, node: ast.Global | ast.Nonlocal) -> None:
        (self._globals if isinstance(node, ast.Global) else self._nonlocals).update(node.names)

    def _owner(self, name: str) -> Frame:
        if name in self._globals:
            return self.module
        if name in self._nonlocals:
            return self._enclosing() or self
        return self

    def bind(self, name: str, value: Value = UNKNOWN) -> None:
        """One binding of ``name`` in this body; ``value`` is what it binds when a statement says so."""
        owner = self._owner(name)
        owner._counts[name] = owner._counts.get(name, 0) + 1
        if value is not UNKNOWN:
            owner._values.setdefault(name, (value, (0, 0)))

    def describe(self, node: ast.Assign | ast.AnnAssign) -> None:
        """What an assignment binds its plain-name targets to; the scan counts the binding itself."""
        if node.value is None:
            return
        value = value_of(node.value, self)
        done = (node.end_lineno or 0, node.end_col_offset or 0)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        callee = value.dotted if value.kind == "construct" else ""
        in_function = self.parent is not None and not self.is_class
        for name in (t.id for t in targets if isinstance(t, ast.Name)):
            owner = self._owner(name)
            owner._values.setdefault(name, (value, done))
            if in_function:
                self._assigned[name] = callee if (name not in self._assigned and callee) else None

    def get(self, name: str) -> str | None:
        """The class a local was bound to by its only assignment so far (``obs = Obs()`` -> "Obs"), or None:
        a reading in source order, for the facts that need no more than that (``handoffs``)."""
        return self._assigned.get(name)

    def lookup(self, name: str, at: Position) -> Value:
        """What ``name`` used at ``at`` in this body is bound to: a Value, NAMED, FREE or UNKNOWN."""
        frame: Frame | None = self
        own = True
        while frame is not None:
            owner = frame._owner(name)
            if owner is not frame:
                frame, own = owner, False
                continue
            count = frame._counts.get(name, 0)
            if count > 1:
                return UNKNOWN
            if count == 1:
                return frame._only_binding(name, at, own)
            frame, own = frame._enclosing(), False
        return FREE

    def _only_binding(self, name: str, at: Position, own: bool) -> Value:
        value, done = self._values.get(name, (UNKNOWN, (0, 0)))
        if value is NAMED:
            return NAMED
        if own and at < done:
            return UNKNOWN  # used before the binding in the text: in a loop, a later pass may see it
        if not own and self is self.module and value.kind in ("none", "construct"):
            return UNKNOWN  # a module-level placeholder (``observer = None``) is often set from elsewhere
        return value


def value_of(node: ast.expr, frame: Frame) -> Value:
    """What ``node`` evaluates to, its names still to be looked up in ``frame``."""
    at = (node.lineno, node.col_offset)
    if is_none(node):
        return Value("none")
    if isinstance(node, ast.Call):
        callee = dotted(node.func)
        return Value("construct", callee, frame, at) if callee else UNKNOWN
    lead = _lead(node)
    text = string(lead)
    if text is not None:
        return Value("prefix") if text.startswith(PP_KEY_PREFIX) else UNKNOWN
    name = dotted(lead) if isinstance(lead, (ast.Name, ast.Attribute)) else ""
    if not name:
        return UNKNOWN
    return Value("name" if lead is node else "lead", name, frame, (lead.lineno, lead.col_offset))


def _lead(node: ast.expr) -> ast.expr:
    """The part a string built from ``node`` starts with: the left of ``+``, the first part of an f-string."""
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            node = node.left
        elif isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if not isinstance(first, ast.FormattedValue):
                return first
            if first.format_spec is not None or first.conversion not in (-1, ord("s")):
                return node
            node = first.value
        else:
            return node


def settle(value: Value, depth: int = 0) -> Value:
    """``value`` with its names looked up, now that every binding is known: "none", "prefix", or a
    "construct"/"name"/"lead" whose ``dotted`` is left for the index (a builtin, a ``def``, a class or an
    import), or UNKNOWN."""
    if value.kind not in ("construct", "name", "lead") or value.frame is None:
        return value
    head = value.dotted.split(".", 1)[0]
    found = value.frame.lookup(head, value.at)
    if found is NAMED or found is FREE:
        return Value(value.kind, value.dotted)
    if found is UNKNOWN or "." in value.dotted or depth >= _DEPTH or value.kind == "construct":
        return UNKNOWN
    aliased = settle(found, depth + 1)
    if value.kind != "lead" or aliased.kind == "prefix":
        return aliased
    # a string that starts with a name: what carries over is only where its text comes from
    return Value("lead", aliased.dotted) if aliased.kind in ("name", "lead") else UNKNOWN
