"""What a transport method returns through the project's own helpers, as PPA010 and PPA014 report it.

``to_pp_tensors`` that returns ``self._pack()`` sends nothing on every path on which ``_pack`` returns None or
an empty display, and ``from_pp_tensors`` that returns ``self._rebuild(tensors)`` rebuilds nothing where
``_rebuild`` returns None: the index follows the call (``index.empty_returns``). What runs is the helper of
the instance's class, so the call is followed for each class whose instances run the method where it is
written: that class, unless it has no instance of its own (``ClassInfo.not_instantiated``), and each
subclass that inherits the method and may have instances. A subclass that overrides the helper takes its
own. The left of ``or`` is returned only when it is truthy, so it is not followed.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.facts.findings import Related
from ppaux_lint.facts.spans import Span
from ppaux_lint.facts.summary import FunctionFlow, ReturnFact
from ppaux_lint.index.empty_returns import EmptyPath
from ppaux_lint.index.inference import INSTANCE, or_operands, parse_expr
from ppaux_lint.index.namespaces import flow_at
from ppaux_lint.rules.base import CheckContext, OwnMethod
from ppaux_lint.rules.sent import written_in

_EMPTY = {"{}": "an empty dict", "[]": "an empty list", "()": "an empty tuple"}


def empty_paths(context: CheckContext, own: OwnMethod, fact: ReturnFact) -> Iterator[EmptyPath]:
    """The paths on which the call the return ``fact`` of ``own``'s method makes hands back nothing."""
    if fact.kind != "construct" or fact.when == "truthy":
        return
    if fact.constructs.rsplit(".", 1)[-1] == own.name:
        return  # ``self.top.to_pp_tensors()``: a part's own method, judged in its class (``index/parts.py``)
    index = context.index
    where = _flow_of(context, own)
    if where is None:
        return
    module, caller = where
    seen: set[EmptyPath] = set()
    for runner in context.runners(own.info, own.name):
        for path in index.empty_returns.of_call(module, caller, (INSTANCE, runner), fact.constructs):
            if path not in seen:
                seen.add(path)
                yield path


def absent_keys(context: CheckContext, own: OwnMethod, fact: ReturnFact, path: EmptyPath) -> tuple[str, ...]:
    """Literal keys one of which is absent from the tensors whenever the helper that ``fact`` hands them to (``return
    self._rebuild(tensors)``, ``ReturnFact.hands_over``) returns the None at the end of ``path``, through helpers
    that hand them on the same way (``FunctionFlow.hands``); () where that is not certain: an argument that may
    reach another parameter (a method called on its class rather than on an instance), a helper that changes the
    mapping or hands on something else."""
    if not fact.hands_over or path.returned != "None":
        return ()
    inference = context.index.inference
    flows = [inference.flow(step.module, step.function[len(step.module) + 1:]) for step in path.steps]
    if any(flow is None for flow in flows) or not flows[-1].absent:
        return ()
    caller = next((p.name for p in own.method.params if p.kind in ("posonly", "pos")), "")
    called = fact.constructs
    for at, (step, flow) in enumerate(zip(path.steps, flows, strict=True)):
        if not _binds_first(called, caller, step.function, flow):
            return ()
        if at < len(flows) - 1:  # this helper must hand its first argument on, alone, from the return on the path
            if step.line not in flow.hands:
                return ()
            called, caller = _callee(step.call), flow.receiver
    return next((keys for line, keys in flows[-1].absent if line == path.steps[-1].line), ())


def _callee(call: str) -> str:
    """The dotted callee of a flow's call text (``self._inner()``: "self._inner"); "" for anything else."""
    shape = parse_expr(call)
    return _dotted(shape[1]) if shape[0] == "call" else ""


def _dotted(shape: tuple) -> str:
    if shape[0] == "name":
        return shape[1]
    if shape[0] == "attr":
        base = _dotted(shape[1])
        return f"{base}.{shape[2]}" if base else ""
    return ""


def _binds_first(called: str, receiver: str, function: str, flow: FunctionFlow) -> bool:
    """Whether the call ``called(x)``, written where ``receiver`` is the first parameter, binds ``x`` to the first
    parameter of ``function`` after its own receiver: ``self._rebuild(x)`` binds the instance first, ``rebuild(x)``
    and ``helpers.rebuild(x)`` call a module's function, nothing bound; any other spelling may bind something else
    first, or nothing."""
    bound = bool(receiver) and called.count(".") == 1 and called.startswith(f"{receiver}.")
    plain = bool(called) and ("." not in called or function.endswith(f".{called}"))
    if flow.binding == "staticmethod":
        return bool(called)
    return bound if flow.binding in ("method", "classmethod") else flow.binding == "function" and plain


def never_taken(context: CheckContext, own: OwnMethod, fact: ReturnFact) -> bool:
    """Whether the return ``fact`` of ``own``'s method is never taken, for each class whose instances run the
    method: an implicit one whose every path off the end ends in a call of a project function that never returns
    (``fail("no ids")``, ``self._missing(tensors)``: it raises on every path, or is annotated ``NoReturn``), or the
    right of ``or`` after an operand that is always truthy (``Out.from_tensors(t) or None``: an instance of a
    project class that defines neither ``__bool__`` nor ``__len__``)."""
    truthy_before = fact.after[:1] == ("or",)
    if not (fact.implicit and fact.calls) and not truthy_before:
        return False
    index = context.index
    where = _flow_of(context, own)
    if where is None:
        return False
    module, caller = where
    classes = context.runners(own.info, own.name) or [own.info.fqn]
    if truthy_before:  # taken only when every operand before it is false: one that never is suffices
        flow = index.inference.flow(module, caller)
        operands = [operand for written in fact.after[1:] for operand in or_operands(written)]
        return flow is not None and all(
            any(_always_truthy(context, index.inference.evaluate(operand, module, flow, (INSTANCE, runner)))
                for operand in operands)
            for runner in classes)
    return all(index.empty_returns.never_returns(module, caller, (INSTANCE, runner), callee)
               for runner in classes for callee in fact.calls)


def _always_truthy(context: CheckContext, values: frozenset) -> bool:
    """Whether every value is an instance of a project class, seen whole, that defines neither ``__bool__`` nor
    ``__len__``: Python holds such an object true."""
    index = context.index
    return bool(values) and all(
        value[0] == INSTANCE and value[1] in index.classes and not index.info(value[1]).unresolved_bases
        and not index.info(value[1]).unknown
        and all(index.lookup(value[1], name, seen=True) is None for name in ("__bool__", "__len__"))
        for value in values)


def _flow_of(context: CheckContext, own: OwnMethod) -> tuple[str, str] | None:
    """The module and qualname of the flow (``summarize.flows``) of ``own``'s method, where it is written; None
    for a function nested in another, whose flow is not kept."""
    module, scope = written_in(context.index, own.info.fqn, own.method, own.module, own.scope)
    if "<locals>" in scope:
        return None
    return module, f"{scope}.{own.method.name}" if scope else own.method.name


def described(fact: ReturnFact, path: EmptyPath) -> str:
    """The path in words: "returns `self._pack()`, which returns `self._inner()`, which returns None at line 12
    (`pkg.mod.Out._inner`)"."""
    words = [f"returns `{fact.constructs}({'' if fact.empty else '...'})`"]
    words += [f"which returns `{step.call}`" for step in path.steps[:-1]]
    last = path.steps[-1]
    if last.line < 0:
        words.append(f"which can fall off its end and return None (`{last.function}`, line {-last.line})")
    else:
        what = "None" if path.returned == "None" else _EMPTY[path.returned]
        words.append(f"which returns {what} at line {last.line} (`{last.function}`)")
    return ", ".join(words)


def related(context: CheckContext, path: EmptyPath) -> Related:
    """Where the path ends, as the finding's other location."""
    last = path.steps[-1]
    line = abs(last.line)
    what = "falls off its end" if last.line < 0 else f"returns {path.returned}"
    return Related(context.index.modules[last.module].path, Span(line, 1, line, 1), f"`{last.function}` {what} here")


def wrapped_by(context: CheckContext, own: OwnMethod) -> tuple[str, str] | None:
    """The first decorator of the method that is a project function certainly doing something to it
    (``FunctionFlow.wraps``): its name as written and "changes" (the helper calls a wrapper of another shape) or
    "drops" (the wrapper never returns a value, so the method returns None). None where every decorator is
    taken to keep the method as written (a forwarding wrapper, a factory's, a library's)."""
    index = context.index
    module, scope = written_in(index, own.info.fqn, own.method, own.module, own.scope)
    for decorator in own.method.decorators:
        target = index.resolve(module, decorator, scope) if decorator else None
        flow = flow_at(index, target) if target else None
        if flow is not None and flow.wraps:
            return decorator, flow.wraps
    return None


def dropped_by(context: CheckContext, own: OwnMethod) -> str:
    """How a message says that a project decorator's wrapper drops what the method returns (``wrapped_by``'s
    "drops"), so that it returns None on every call; "" where none does."""
    wrapped = wrapped_by(context, own)
    if wrapped is None or wrapped[1] != "drops":
        return ""
    return f"is wrapped by `@{wrapped[0]}`, whose wrapper never returns what it calls: it returns None on every call"
