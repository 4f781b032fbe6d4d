"""Objects constructed and handed to a call: how an output reaches a forward observer that returns what it was
given.

Produces ``FileSummary.handoffs``. A forward observer often returns an output it was built with
(``Recording(DeviceOutput(...))``, then ``return self.output``), and code may put an output straight on the
result (``forward_auxiliary_output=DeviceOutput(...)``); neither shows in the observer's own method, so the
index reads these facts to tell a forward-only output (``routes``). Finding them means visiting every
expression, so only files whose text names a forward observer's hook, attribute or result field are scanned
(``worth_scanning``), as ``calls`` does for the helpers: SGLang 0.5.23 has none. A handoff that is not
recorded only keeps a finding; it never hides one.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.contract.names import AFTER_FORWARD, FORWARD_OBSERVER_ATTR, FORWARD_OUTPUT_FIELD
from ppaux_lint.facts.summarize.calls import Frame
from ppaux_lint.facts.summarize.syntax import Scope, dotted, qualname
from ppaux_lint.facts.summary import Handoff

FORWARD_WORDS = (AFTER_FORWARD, FORWARD_OBSERVER_ATTR, FORWARD_OUTPUT_FIELD)


def worth_scanning(text: str) -> bool:
    """Whether the file mentions forward observers at all: a cheap test on its text."""
    return any(word in text for word in FORWARD_WORDS)


class Handoffs:
    """The handoffs found in the expressions the walker hands over, in source order."""

    def __init__(self) -> None:
        self.found: list[Handoff] = []

    def scan(self, nodes: Sequence[ast.AST], scope: Scope, frame: Frame) -> None:
        stack = list(reversed(nodes))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Call):
                self._call(node, qualname(scope), frame)
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    def _call(self, node: ast.Call, scope: str, frame: Frame) -> None:
        callee = dotted(node.func)
        if not callee:
            return
        arguments = [("", arg) for arg in node.args] + [(k.arg, k.value) for k in node.keywords if k.arg]
        for keyword, value in arguments:
            constructs = _constructed(value, frame)
            if constructs:
                self.found.append(Handoff(callee, constructs, keyword, scope))


def _constructed(value: ast.expr, frame: Frame) -> str:
    """The dotted class a value is a new instance of, as far as one function's body shows: ``X(...)``, or a
    local bound once to ``X(...)``."""
    if isinstance(value, ast.Call):
        return dotted(value.func)
    if isinstance(value, ast.Name):
        return frame.get(value.id) or ""
    return ""
