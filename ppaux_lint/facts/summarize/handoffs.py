"""Objects constructed and handed to a call: how an output reaches a forward observer that returns what it was
given, and what a container's constructor stores.

Produces ``FileSummary.handoffs``. A forward observer often returns an output it was built with
(``Recording(DeviceOutput(...))``, then ``return self.output``), and code may put an output straight on the
result (``forward_auxiliary_output=DeviceOutput(...)``); neither shows in the observer's own method, so the
index reads these facts to tell a forward-only output (``routes``). The inference reads them too, for what an
unannotated constructor parameter holds: ``Bundle(TopK(...), Entropy(...))`` puts a ``TopK`` in the parameter
``Bundle.__init__`` stores as ``self.top`` (``index/parts.py`` asks what a container's fields hold).
``functools.partial`` is a constructor bound in advance: ``partial(Recording, DeviceOutput(...))`` hands the
output to ``Recording``, and ``partial(DeviceOutput, x)()`` constructs one (``Handoff.through`` names the
partial as written, for the index to check it is ``functools.partial``).

Finding them means visiting every expression, so only files whose text names a forward observer's hook,
attribute or result field, a sampling observer's hook or a transport method are scanned (``worth_scanning``):
where observers and outputs are built, as ``calls`` does for the helpers; and of those, the ones that name no
forward observer only in statements where a class-like call is handed another, or a ``partial`` (``Handoffs``).
A handoff that is not recorded only keeps a finding: it never hides one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from ppaux_lint.contract.names import (
    AFTER_FORWARD,
    AFTER_SAMPLE,
    FORWARD_OBSERVER_ATTR,
    FORWARD_OUTPUT_FIELD,
    FROM_PP,
    TO_PP,
)
from ppaux_lint.facts.summarize.calls import Frame
from ppaux_lint.facts.summarize.syntax import Scope, children, dotted, qualname
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summary import Handoff

FORWARD_WORDS = (AFTER_FORWARD, FORWARD_OBSERVER_ATTR, FORWARD_OUTPUT_FIELD)
WORDS = (*FORWARD_WORDS, AFTER_SAMPLE, TO_PP, FROM_PP)
# Where a handoff the index reads can be, outside files that name a forward observer (``index/arguments.py``: a
# class-like callee, or ``cls``, handed a new instance of a class-like name; or a ``partial``): a call of such a
# name whose arguments, before any other parenthesis, call a class-like name (``Bundle(top=TopK(``).
_CONSTRUCTION = re.compile(r"\b(?:_*[A-Z]\w*|cls)\s*\([^()]*?\b_*[A-Z]\w*\s*\(|\bpartial\b")
_PARTIAL = "partial"
_Call = ast.Call
_LEAVES = frozenset({ast.Name, ast.Constant})  # no call below them


def worth_scanning(text: str) -> bool:
    """Whether the file mentions observers or the transport at all: a cheap test on its text."""
    return any(word in text for word in WORDS)


class Handoffs:
    """The handoffs found in the expressions the walker hands over, in source order.

    A file that names a forward observer's hook, attribute or result field has every expression read: an
    output reaches a forward observer through any call. Elsewhere only what the inference asks of handoffs is
    looked for (what a constructor is handed, ``partial``), so a statement is read only when its lines hold a
    class-like call handed another, or ``partial``: most statements of a large module hold neither."""

    def __init__(self, positions: Positions) -> None:
        self.found: list[Handoff] = []
        self._positions = positions
        self._every = any(word in positions.text for word in FORWARD_WORDS)
        self._flags: bytearray | None = None  # 1 at each line that may hold one, found on first use

    def wants(self, first: int, last: int) -> bool:
        """Whether a statement on lines ``first`` to ``last`` may hold a handoff worth recording: asked per
        statement, so a search of a bytearray rather than a look at its expressions."""
        if self._every:
            return True
        if self._flags is None:
            self._flags = _construction_lines(self._positions)
        return self._flags.find(1, first, last + 1) >= 0

    def scan(self, nodes: Sequence[ast.AST], scope: Scope, frame: Frame) -> None:
        """Every call in ``nodes``, in source order (a pre-order walk). Most files that name a transport method
        are scanned, so the walk pushes each node's ``syntax.children`` (no generators, no contexts or
        operators) and skips the leaves that hold no call."""
        calls: list[ast.Call] = []
        stack = list(reversed(nodes))
        pop = stack.pop
        while stack:
            node = pop()
            kind = type(node)
            if kind in _LEAVES:
                continue
            if kind is _Call:
                calls.append(node)  # type: ignore[arg-type]
            below = children(node)
            below.reverse()
            stack.extend(below)
        if calls:
            where = qualname(scope)
            for call in calls:
                self._call(call, where, frame)

    def _call(self, node: ast.Call, scope: str, frame: Frame) -> None:
        callee, through, positional = dotted(node.func), "", node.args
        bound = _partial(node)
        if bound:  # partial(Obs, Out()): a handoff to Obs, the arguments after it shifted by one
            callee, through, positional = bound, dotted(node.func), node.args[1:]
        if not callee:
            return
        arguments = [("", i, arg) for i, arg in enumerate(positional)]
        arguments += [(k.arg, -1, k.value) for k in node.keywords if k.arg]
        for keyword, position, value in arguments:
            constructs, inner = _constructed(value, frame)
            if constructs:
                self.found.append(Handoff(callee, constructs, keyword, scope, position, through or inner))


def _construction_lines(positions: Positions) -> bytearray:
    """1 at each line (as the parser numbers them) where a class-like call handed another class-like call, or a
    ``partial``, starts, 0 elsewhere: one search of the whole text, each match's line counted from the one
    before. A text with a line end other than ``\\n`` (rare) has every line marked, so nothing is missed there."""
    text = positions.text
    flags = bytearray(text.count("\n") + text.count("\r") + 2)
    if "\r" in text:
        return bytearray(b"\x01") * len(flags)
    line, at = 1, 0
    for match in _CONSTRUCTION.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        flags[line] = 1
    return flags


def _partial(node: ast.Call) -> str:
    """The dotted class or function ``partial(X, ...)`` binds, or "" when the call is none."""
    if not node.args or dotted(node.func).rsplit(".", 1)[-1] != _PARTIAL:
        return ""
    return dotted(node.args[0])


def _constructed(value: ast.expr, frame: Frame) -> tuple[str, str]:
    """The dotted class a value is a new instance of, as far as one function's body shows: ``X(...)``,
    ``partial(X, ...)(...)`` (with the partial's callee as written), or a local bound once to ``X(...)``."""
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Call):
            bound = _partial(value.func)
            return (bound, dotted(value.func.func)) if bound else ("", "")
        return dotted(value.func), ""
    if isinstance(value, ast.Name):
        return frame.get(value.id) or "", ""
    return "", ""
