"""PPA020: a transport helper called with an argument that will make it raise.

Only what is certain at the call is judged, with the arguments mapped onto the helpers' parameters
(``tensors, output`` and ``tensors, observer``) as Python maps them, positional or keyword; a ``*args`` or
``**kwargs`` hides the mapping, and such a call is not judged. An argument is certain when it is ``None``, a
new instance of a project class, or the project class itself, as written or through a local bound once
before the call (``observer = None``), and the class has no unseen base that might change the answer.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import ADD_HELPER, FROM_PP, POP_HELPER, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import CallSite, FileSummary
from ppaux_lint.index.project_index import Member
from ppaux_lint.rules.base import CheckContext, Rule
from ppaux_lint.support.records import dataclass

_PARAMETERS = {ADD_HELPER: ("tensors", "output"), POP_HELPER: ("tensors", "observer")}
# What each helper passes to the method it calls, so a class passed for an instance can be called unbound.
_PASSES = {TO_PP: 0, FROM_PP: 1}
_PROTOCOL_PARAMETERS = {TO_PP: ("self",), FROM_PP: ("self", "tensors")}  # the PP Protocols' stubs
MISSING, STUB, PRESENT = "missing", "stub", "present"


def check(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    helpers = {f"{module}.{name}": name for module in index.protocols.helper_modules for name in _PARAMETERS}
    for summary in context.summaries:
        for call in summary.calls:
            target = index.resolve(summary.module, call.callee, call.scope) if summary.module else None
            helper = helpers.get(target or "")
            arguments = _bind(call, _PARAMETERS[helper]) if helper else None
            if arguments is None:
                continue
            site = _Site(context, summary, call)
            problem = _add_problem(site, arguments) if helper == ADD_HELPER else _pop_problem(site, arguments)
            if problem:
                yield RULE.finding(f"`{helper}` {problem}", summary.path, call.span, _symbol(summary, call))


def _bind(call: CallSite, parameters: tuple[str, ...]) -> dict[str, str] | None:
    """Each parameter's argument kind, or None when the call hides the mapping or would not bind at all."""
    if "*" in call.arg_kinds or len(call.arg_kinds) > len(parameters):
        return None
    bound = dict(zip(parameters, call.arg_kinds, strict=False))
    for name, kind in call.keywords:
        if name not in parameters or name in bound:
            return None
        bound[name] = kind
    return bound if len(bound) == len(parameters) else None


def _symbol(summary: FileSummary, call: CallSite) -> str:
    scope = call.scope.replace(".<locals>", "")
    return ".".join(p for p in (summary.module, scope) if p)


@dataclass(frozen=True)
class _Site:
    """One call, for the questions about what its arguments are."""

    context: CheckContext
    summary: FileSummary
    call: CallSite

    def project_class(self, kind: str, form: str) -> str | None:
        """The project class an argument of ``kind`` is an instance of (``form`` "construct") or is itself
        (``form`` "name")."""
        if not kind.startswith(f"{form}:"):
            return None
        target = self.context.index.resolve(self.summary.module, kind.split(":", 1)[1], self.call.scope)
        return target if target in self.context.index.classes else None

    def is_project_object(self, kind: str) -> bool:
        return self.project_class(kind, "construct") is not None or self.project_class(kind, "name") is not None

    def method(self, fqn: str, name: str) -> tuple[str, Member | None]:
        """Whether the class has the method as the helper's ``isinstance`` check sees it; "" when unknown."""
        index = self.context.index
        member = index.lookup(fqn, name)
        if member is not None and member.unknown is not None:
            return "", None  # code the analysis cannot follow touches the class (namespaces.py)
        if member is None:
            return ("" if index.unresolved_bases(fqn) or index.dynamic_attributes(fqn) else MISSING), None
        if member.is_none:
            return MISSING, member
        return (STUB if member.stub_of_protocol else PRESENT), member

    def swapped(self, kind: str, role: str) -> str | None:
        """The class of a new output or observer (``role``) passed where the tensors dict belongs."""
        cls = self.project_class(kind, "construct")
        info = self.context.index.info(cls) if cls is not None else None
        return cls if info is not None and role in info.roles else None


def _add_problem(site: _Site, arguments: dict[str, str]) -> str:
    tensors, output = arguments["tensors"], arguments["output"]
    swapped = site.swapped(tensors, "output")
    if swapped and output != "none" and not site.is_project_object(output):
        return (f"is passed a new `{swapped}` first, where the dict of stage tensors belongs (`tensors, output`): "
                f"the arguments are swapped, so the helper checks the dict as the output, and a dict has no "
                f"`{TO_PP}`: {pp_errors.raised(pp_errors.OUTPUT_NOT_PP)}")
    problem = _object_problem(site, output, TO_PP, "output", pp_errors.OUTPUT_NOT_PP, pp_errors.EMPTY_OUTPUT)
    return f"{problem[0]}: {problem[1]}" if problem else ""


def _pop_problem(site: _Site, arguments: dict[str, str]) -> str:
    tensors, observer = arguments["tensors"], arguments["observer"]
    swapped = site.swapped(tensors, "observer")
    if swapped and not site.is_project_object(observer) and site.method(swapped, "items")[0] == MISSING:
        return (f"is passed a new `{swapped}` first, where the received tensors belong (`tensors, observer`): the "
                f"arguments are swapped, and the helper's first step, `tensors.items()`, raises AttributeError: "
                f"'{swapped.rsplit('.', 1)[-1]}' object has no attribute 'items'")
    if observer == "none":
        problem: tuple[str, str] | None = ("is passed `None` as the observer", pp_errors.raised(pp_errors.NO_OBSERVER))
    else:
        problem = _object_problem(site, observer, FROM_PP, "observer", pp_errors.OBSERVER_NOT_PP,
                                  pp_errors.NOT_RECONSTRUCTED)
    # the pop helper returns None before any check when nothing arrived
    return f"{problem[0]}: as soon as the tensors carry an auxiliary output, {problem[1]}" if problem else ""


def _object_problem(site: _Site, kind: str, method: str, role: str, missing: str,
                    stub: str) -> tuple[str, str] | None:
    """(what is passed, what the helper does with it) for a new instance, or for the class itself where an
    instance belongs: a runtime-checkable ``isinstance`` asks only whether the attribute exists, which a class
    answers as its instances do, and the helper then calls the method on the class, unbound."""
    instance = site.project_class(kind, "construct")
    cls = instance or site.project_class(kind, "name")
    if cls is None:
        return None
    state, member = site.method(cls, method)
    what = f"is passed a new `{cls}` {role}" if instance else f"is passed the class `{cls}` itself as the {role}"
    if state == MISSING:
        return f"{what}, which has no `{method}`", pp_errors.raised(missing)
    if member is None or not state:
        return None
    if instance:
        return (f"{what}, which keeps the `{method}` stub of `{member.owner}`",
                f"the isinstance check passes, the stub returns None, so {pp_errors.raised(stub)}") \
            if state == STUB else None
    error = _unbound_call_error(site, member, method)
    return (f"{what}, not an instance", f"the isinstance check passes, and calling `{method}` on the class "
            f"raises {error}") if error else None


def _unbound_call_error(site: _Site, member: Member, method: str) -> str:
    """The TypeError of ``Class.method(...)`` called as the helper calls it on an instance; "" when that call
    binds (a staticmethod, a classmethod, defaults) or its signature cannot be read."""
    passes = _PASSES[method]
    if member.method is None:
        if not member.stub_of_protocol:
            return ""
        required, qualname = _PROTOCOL_PARAMETERS[method], member.owner.rsplit(".", 1)[-1]
    else:
        if member.method.decorators:
            return ""
        positional = [p for p in member.method.params if p.kind in ("posonly", "pos")]
        if passes > len(positional) and not any(p.kind == "vararg" for p in member.method.params):
            return ""  # a TypeError of another kind, and PPA016's business
        required = tuple(p.name for p in positional if not p.has_default)
        qualname = site.context.index.classes[member.owner].qualname
    names = [repr(name) for name in required[passes:]]
    if not names:
        return ""
    listed = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + ", and " + names[-1]
    plural = "s" if len(names) > 1 else ""
    return f"TypeError: {qualname}.{method}() missing {len(names)} required positional argument{plural}: {listed}"


RULE = Rule("PPA020", "bad-pp-helper-argument",
            "A PP transport helper is called with an argument that will make it raise", check)
