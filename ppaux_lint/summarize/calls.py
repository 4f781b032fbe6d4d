"""Uses of SGLang's transport helpers in expressions: calls of the add/pop helpers and raw uses of the key prefix.

Produces ``FileSummary.calls`` (``CallSite``: callee, argument kinds, enclosing
scope) and ``FileSummary.prefix_uses`` (``PrefixUse``). These are the only
facts that need every expression of a file visited, which is most of the
cost of a big module; keeping them in one scan lets the walker skip it for
files that spell neither a helper's name nor the prefix (``worth_scanning``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.pp_errors import PP_KEY_PREFIX
from ppaux_lint.summarize.syntax import Scope, dotted, is_none, qualname, string
from ppaux_lint.summarize.text import Positions
from ppaux_lint.summary import CallSite, Import, PrefixUse

HELPER_NAMES = frozenset({"add_auxiliary_output_to_pp_tensors", "pop_auxiliary_output_from_pp_tensors"})

Frame = dict[str, str | None]
"""A function body's locals bound to a call of a name (``obs = Obs()`` -> "Obs"); None once rebound."""


def worth_scanning(text: str) -> bool:
    """Whether the file can contain a helper call or a prefix use at all: a cheap test on its text."""
    return PP_KEY_PREFIX in text or any(name in text for name in HELPER_NAMES)


def remember_constructions(node: ast.Assign, frame: Frame) -> None:
    """Remember ``obs = Obs()`` so a later ``pop(d, obs)`` knows what it passes; rebinding forgets it."""
    callee = dotted(node.value.func) if isinstance(node.value, ast.Call) else ""
    for name in (t.id for t in node.targets if isinstance(t, ast.Name)):
        frame[name] = callee if (name not in frame and callee) else None


class HelperUses:
    """Helper calls and prefix uses found in the expressions the walker hands over, in source order.

    ``imports`` is the module's import list as the walk has seen it so far (the
    same list object, growing): a bare name is kept as a possible helper alias
    when an import bound it before the call.
    """

    def __init__(self, positions: Positions, imports: list[Import]) -> None:
        self.positions = positions
        self.imports = imports
        self.calls: list[CallSite] = []
        self.prefix_uses: list[PrefixUse] = []

    def scan(self, nodes: Sequence[ast.AST], scope: Scope, frame: Frame) -> None:
        stack = list(reversed(nodes))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Call):
                self._call(node, scope, frame)
            elif isinstance(node, ast.Subscript) and _starts_with_prefix(node.slice):
                self.prefix_uses.append(PrefixUse(self.positions.span(node.slice), "subscript"))
            elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                if _starts_with_prefix(node.left):
                    self.prefix_uses.append(PrefixUse(self.positions.span(node.left), "'in' test"))
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    def _call(self, node: ast.Call, scope: Scope, frame: Frame) -> None:
        callee = dotted(node.func)
        if callee and (callee.rsplit(".", 1)[-1] in HELPER_NAMES or self._imported(callee)):
            self.calls.append(CallSite(
                callee=callee,
                span=self.positions.span(node),
                arg_kinds=tuple(_arg_kind(arg, frame) for arg in node.args if not isinstance(arg, ast.Starred)),
                scope=qualname(scope),
            ))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop", "setdefault") and node.args:
            if _starts_with_prefix(node.args[0]):
                self.prefix_uses.append(PrefixUse(self.positions.span(node.args[0]), f".{node.func.attr}()"))

    def _imported(self, callee: str) -> bool:
        """A bare imported name may be an alias of a helper; kept until all imports are known."""
        return "." not in callee and any(i.local == callee for i in self.imports)

    def helper_calls(self) -> list[CallSite]:
        """The calls that name a helper, directly or through an import, now that all imports are known."""
        targets = {i.local: i.target for i in self.imports}
        return [c for c in self.calls
                if c.callee.rsplit(".", 1)[-1] in HELPER_NAMES
                or targets.get(c.callee.split(".")[0], "").rsplit(".", 1)[-1] in HELPER_NAMES]


def _arg_kind(value: ast.expr, frame: Frame) -> str:
    if is_none(value):
        return "none"
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        return f"construct:{callee}" if callee else ""
    if isinstance(value, ast.Name) and frame.get(value.id):
        return f"construct:{frame[value.id]}"
    name = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
    return f"name:{name}" if name else ""


def _starts_with_prefix(node: ast.AST) -> bool:
    text = string(node)
    if text is None and isinstance(node, ast.JoinedStr) and node.values:
        text = string(node.values[0])
    return text is not None and text.startswith(PP_KEY_PREFIX)
