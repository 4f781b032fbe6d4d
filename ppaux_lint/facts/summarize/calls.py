"""Uses of SGLang's transport helpers in expressions: calls of the add/pop helpers and raw uses of the key prefix.

Produces ``FileSummary.calls`` (``CallSite``: callee, what each argument is, enclosing scope) and
``FileSummary.prefix_uses`` (``PrefixUse``). These are the only facts that need every expression of a file
visited, which is most of the cost of a big module; keeping them in one scan lets the walker skip it for
files that spell neither a helper's name, nor the prefix, nor a helper module's name for it
(``worth_scanning``). What a name stands for (``observer = None``, ``_PREFIX = "..."``) is known only once
the whole module has been walked (``frames``), so both facts are settled at the end (``settle``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.contract.names import HELPER_NAMES, PREFIX_CONSTANTS
from ppaux_lint.contract.pp_errors import PP_KEY_PREFIX
from ppaux_lint.facts.summarize.frames import Frame, Value, settle, value_of
from ppaux_lint.facts.summarize.syntax import Scope, children, dotted, qualname
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summary import CallSite, Import, PrefixUse, Span
from ppaux_lint.support.records import dataclass

__all__ = ["HELPER_NAMES", "Frame", "HelperUses", "worth_scanning"]

_STARRED = Value("*")
_KEY_METHODS = ("get", "pop", "setdefault")


def worth_scanning(text: str) -> bool:
    """Whether the file can contain a helper call or a prefix use at all: a cheap test on its text."""
    return PP_KEY_PREFIX in text or any(name in text for name in (*HELPER_NAMES, *PREFIX_CONSTANTS))


@dataclass(frozen=True)
class _Call:
    callee: str
    span: Span
    args: tuple[Value, ...]
    keywords: tuple[tuple[str, Value], ...]
    scope: str


@dataclass(frozen=True)
class _Key:
    span: Span
    how: str
    value: Value
    scope: str


class HelperUses:
    """Helper calls and prefix uses found in the expressions the walker hands over, in source order.

    ``imports`` is the module's import list as the walk has seen it so far (the
    same list object, growing): a bare name is kept as a possible helper alias
    when an import bound it before the call.
    """

    def __init__(self, positions: Positions, imports: list[Import]) -> None:
        self.positions = positions
        self.imports = imports
        self._calls: list[_Call] = []
        self._keys: list[_Key] = []
        self.calls: list[CallSite] = []
        self.prefix_uses: list[PrefixUse] = []

    def scan(self, nodes: Sequence[ast.AST], scope: Scope, frame: Frame) -> None:
        stack = list(reversed(nodes))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name):
                if not isinstance(node.ctx, ast.Load):
                    frame.bind(node.id)
            elif isinstance(node, ast.Call):
                self._call(node, scope, frame)
            elif isinstance(node, ast.Subscript):
                self._key(node.slice, "subscript", scope, frame)
            elif isinstance(node, ast.Compare):
                if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                    self._key(node.left, "'in' test", scope, frame)
            elif isinstance(node, ast.Lambda):  # its parameters shadow names: counting them here forgets them
                for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                            node.args.vararg, node.args.kwarg):
                    if arg is not None:
                        frame.bind(arg.arg)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                frame.bind(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                frame.bind(node.rest)
            below = children(node)
            below.reverse()
            stack.extend(below)

    def _call(self, node: ast.Call, scope: Scope, frame: Frame) -> None:
        callee = dotted(node.func)
        if callee and (callee.rsplit(".", 1)[-1] in HELPER_NAMES or self._imported(callee)):
            self._calls.append(_Call(
                callee=callee,
                span=self.positions.span(node),
                args=tuple(_STARRED if isinstance(a, ast.Starred) else value_of(a, frame) for a in node.args),
                keywords=tuple((k.arg or "**", value_of(k.value, frame)) for k in node.keywords),
                scope=qualname(scope),
            ))
        if isinstance(node.func, ast.Attribute) and node.func.attr in _KEY_METHODS and node.args:
            self._key(node.args[0], f".{node.func.attr}()", scope, frame)

    def _key(self, key: ast.expr, how: str, scope: Scope, frame: Frame) -> None:
        if isinstance(key, ast.Slice):
            return
        value = value_of(key, frame)
        if value.kind in ("prefix", "name", "lead"):
            self._keys.append(_Key(self.positions.span(key), how, value, qualname(scope)))

    def _imported(self, callee: str) -> bool:
        """A bare imported name may be an alias of a helper; kept until all imports are known."""
        return "." not in callee and any(i.local == callee for i in self.imports)

    def settle(self) -> None:
        """Turn what was found into facts, now that every binding of the module is known."""
        self.calls = [CallSite(c.callee, c.span, tuple(_argument(v) for v in c.args), c.scope,
                               tuple((name, _argument(v)) for name, v in c.keywords)) for c in self._calls]
        self.prefix_uses = [use for use in map(self._prefix_use, self._keys) if use is not None]

    def _prefix_use(self, key: _Key) -> PrefixUse | None:
        found = settle(key.value)
        if found.kind == "prefix":
            return PrefixUse(key.span, key.how, through=key.value.dotted, scope=key.scope)
        if found.kind in ("name", "lead") and self._original_name(found.dotted) in PREFIX_CONSTANTS:
            return PrefixUse(key.span, key.how, constant=found.dotted, scope=key.scope)
        return None

    def _original_name(self, name: str) -> str:
        """The name ``name`` has in the module it comes from: ``P`` of ``from m import X as P`` is ``X``."""
        if "." in name:
            return name.rsplit(".", 1)[-1]
        target = next((i.target for i in self.imports if i.local == name and not i.star), name)
        return target.rsplit(".", 1)[-1]

    def helper_calls(self) -> list[CallSite]:
        """The calls that name a helper, directly or through an import, now that all imports are known."""
        targets = {i.local: i.target for i in self.imports}
        return [c for c in self.calls
                if c.callee.rsplit(".", 1)[-1] in HELPER_NAMES
                or targets.get(c.callee.split(".")[0], "").rsplit(".", 1)[-1] in HELPER_NAMES]


def _argument(value: Value) -> str:
    """An argument's kind as ``CallSite`` spells it."""
    found = value if value.kind == "*" else settle(value)
    if found.kind in ("none", "*"):
        return found.kind
    if found.kind in ("construct", "name"):
        return f"{found.kind}:{found.dotted}"
    return ""
