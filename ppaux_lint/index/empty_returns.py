"""How a call of a project function can hand back nothing: the paths on which it returns None or an empty display.

``to_pp_tensors`` that returns ``self._pack()`` sends nothing when ``_pack`` returns None (SGLang's helper
treats a falsy mapping as empty: PPA010), and ``from_pp_tensors`` that returns ``self._rebuild(tensors)``
fails the reconstruction when ``_rebuild`` does (PPA014). This follows such a call with the inference's own
machinery (``inference.py``): the callee is evaluated as the inference evaluates any callee (a method along
the receiver's MRO, a classmethod or staticmethod, ``super()``, a function of any module), and the callee's
flow (``summarize.flows``) says what each of its returns is, with its line: ``None`` (or falling off the
end), ``{}``, ``[]`` or ``()``, or the call of another function, followed in turn.

Only what a return certainly is counts: a local or an attribute may hold None on one path and a mapping on
the next (flows are not path-sensitive), so they are not followed, nor is the left of ``or``, which is
returned only when truthy. Recursion contributes nothing from the repeated call, and the chain ends after
``_DEPTH`` calls. Generators and coroutines hand back no return.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, NamedTuple

from ppaux_lint.index.inference import EMPTY, FUNCTION, NONE, Inference, Value, parse_expr

if TYPE_CHECKING:
    from ppaux_lint.facts.summary import FunctionFlow
    from ppaux_lint.index.graph import ProjectGraph

_DEPTH = 8
_NO_RETURN = frozenset({"NoReturn", "Never"})  # return annotations of a function that never returns


class Step(NamedTuple):
    """A function along a path: its dotted name and module, the line of its return, and that return's call
    (as its source writes it, "" for the last step)."""

    function: str
    module: str
    line: int  # negative: falling off the end of the function whose ``def`` is on that line
    call: str


class EmptyPath(NamedTuple):
    """What is returned at the end ("None", "{}", "[]" or "()") and the functions it comes back through."""

    returned: str
    steps: tuple[Step, ...]


class EmptyReturns:
    """Answers about one index, memoised for its life."""

    def __init__(self, index: ProjectGraph, inference: Inference) -> None:
        self.index = weakref.proxy(index)
        self.inference = inference
        self._memo: dict[Value, tuple[EmptyPath, ...]] = {}
        self._active: set[Value] = set()
        self._raising: dict[Value, bool] = {}

    def of_call(self, module: str, caller: str, receiver: Value, callee: str) -> tuple[EmptyPath, ...]:
        """The paths on which calling ``callee`` (dotted, as written in the function ``caller`` of ``module``,
        whose receiver is ``receiver``) returns nothing, one per return of nothing, in a stable order."""
        flow = self.inference.flow(module, caller)
        if flow is None:
            return ()
        return self._through(self.inference.evaluate(callee, module, flow, receiver), 0)

    def never_returns(self, module: str, caller: str, receiver: Value, callee: str) -> bool:
        """Whether calling ``callee`` (as for ``of_call``) certainly never returns: every function it may be raises
        on every path (its flow has no return, and every path off its end ends in such a call too) or is annotated
        ``NoReturn`` or ``Never``. False where the callee is not certainly a project function."""
        flow = self.inference.flow(module, caller)
        if flow is None:
            return False
        callees = self.inference.evaluate(callee, module, flow, receiver)
        return bool(callees) and all(c[0] == FUNCTION and self._raises(c) for c in callees)

    def _raises(self, function: Value) -> bool:
        if function in self._raising:
            return self._raising[function]
        _, module, qualname, receiver = function
        flow = self.inference.flow(module, qualname)
        self._raising[function] = False  # a call of itself on the way: not known to raise
        if flow is None or flow.opaque:
            found = False
        elif flow.return_type.rsplit(".", 1)[-1] in _NO_RETURN:
            found = True
        else:  # no return but falling off its end, and that never taken
            only_off_the_end = all(line < 0 for line in flow.lines or (0,) * len(flow.returns))
            found = only_off_the_end and self._ends_raising(flow, module, qualname, receiver)
        self._raising[function] = found
        return found

    def _ends_raising(self, flow: FunctionFlow, module: str, qualname: str, receiver: Value) -> bool:
        """Whether the function's falling off its end (its flow's ``None`` with a negative line) is never taken:
        every such path ends in a call that never returns; true, too, of a flow with no return at all."""
        return not flow.returns or (bool(flow.calls) and all(
            self.never_returns(module, qualname, receiver, callee) for callee in flow.calls))

    def _through(self, callees: frozenset[Value], depth: int) -> tuple[EmptyPath, ...]:
        paths: list[EmptyPath] = []
        for callee in sorted(callees, key=repr):
            if callee[0] == FUNCTION:
                paths.extend(path for path in self._function(callee, depth) if path not in paths)
        return tuple(paths)

    def _function(self, function: Value, depth: int) -> tuple[EmptyPath, ...]:
        if function in self._memo:
            return self._memo[function]
        if function in self._active or depth > _DEPTH:
            return ()
        _, module, qualname, receiver = function
        flow = self.inference.flow(module, qualname)
        if flow is None or flow.opaque:
            return ()
        name = f"{module}.{qualname}"
        lines = flow.lines or (0,) * len(flow.returns)
        paths: list[EmptyPath] = []
        self._active.add(function)
        try:
            for expr, line in zip(flow.returns, lines, strict=True):
                shape = parse_expr(expr)
                if line < 0 and self._ends_raising(flow, module, qualname, receiver):
                    continue  # every path off its end raises first
                if shape == NONE or shape[0] == EMPTY:
                    paths.append(EmptyPath("None" if shape == NONE else shape[1], (Step(name, module, line, ""),)))
                elif shape[0] == "call":
                    inner = self._through(self.inference.evaluate(shape[1], module, flow, receiver), depth + 1)
                    paths.extend(EmptyPath(p.returned, (Step(name, module, line, expr), *p.steps)) for p in inner)
        finally:
            self._active.discard(function)
        self._memo[function] = found = tuple(paths)
        return found
