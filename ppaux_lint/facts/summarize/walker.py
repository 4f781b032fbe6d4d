"""The one pass over a module: visits it in source order and hands each statement to the facts it holds.

Produces ``FileSummary.defs`` itself; everything else it delegates (classes to
``classes``, imports and aliases to ``imports``, what is done to classes outside
their bodies to ``namespaces``, expressions to ``calls`` and ``handoffs``, each
only in the files whose text says it can find something).
It exists so that a file is walked once, whatever the number of kinds of fact,
and so that each fact module sees the scope it is in (for qualified names and
nested imports) and the function frame (for what a local was bound to).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.facts.summarize.calls import HelperUses
from ppaux_lint.facts.summarize.classes import summarize_class
from ppaux_lint.facts.summarize.constants import Constants
from ppaux_lint.facts.summarize.flows import Flows
from ppaux_lint.facts.summarize.frames import NAMED, UNKNOWN, Frame, Value
from ppaux_lint.facts.summarize.handoffs import Handoffs
from ppaux_lint.facts.summarize.imports import Bindings
from ppaux_lint.facts.summarize.namespaces import Namespaces
from ppaux_lint.facts.summarize.syntax import TRY_STATEMENTS, Scope, known_truth
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summary import ClassSummary

_BODY_FIELDS = ("body", "orelse", "finalbody")
_TRY = frozenset(TRY_STATEMENTS)
_FLAT = frozenset(kind for kind in ast.stmt.__subclasses__()
                  if not {*_BODY_FIELDS, "handlers", "cases"} & set(kind._fields))
"""The statements that hold no statements (an expression, an assignment, an import, ``return``): most of a file."""


class Collector:
    """Walks one module in source order, keeping the enclosing classes and functions for qualified names."""

    def __init__(self, module: str, is_package: bool, positions: Positions) -> None:
        self.positions = positions
        self.classes: list[ClassSummary] = []
        self.bindings = Bindings(module, is_package)
        self.uses = HelperUses(positions, self.bindings.imports)
        self.handoffs = Handoffs(positions)
        self.flows = Flows()
        self.namespaces = Namespaces(positions)
        self.constants = Constants()
        self.defs: list[str] = []
        self.deep = False
        self.forward = False
        self._top: set[int] = set()

    def walk(self, tree: ast.Module, deep: bool, forward: bool = False) -> None:
        """``deep`` also visits every expression, for helper calls and prefix uses; files that spell
        neither a helper's name nor the prefix skip that, which is most of the cost of a big module.
        ``forward`` likewise visits them for handoffs, in files that mention observers or transport methods."""
        self.deep = deep
        self.forward = forward
        self._top = {id(stmt) for stmt in tree.body}  # the statements that certainly run (``Import.certain``)
        self._walk(tree.body, scope=(), frame=Frame())
        self.uses.settle()
        self.flows.finish()
        self.namespaces.finish(self.classes)
        self.classes.extend(self.namespaces.classes)

    def _walk(self, body: Sequence[ast.stmt], scope: Scope, frame: Frame, never_runs: bool = False) -> None:
        """``never_runs``: the body of ``if TYPE_CHECKING:`` (``known_truth``). Its imports and names still serve the
        annotations; a function defined there does not exist at run time, and is passed over, so that the name
        means what the ``else`` binds (a decorator stubbed for type checkers, imported for real)."""
        for stmt in body:
            kind = type(stmt)  # ``ast.parse`` makes no subclasses: one look at the type, not a chain of isinstance
            if never_runs and (kind is ast.FunctionDef or kind is ast.AsyncFunctionDef):
                continue
            if kind is ast.ClassDef:
                self.classes.append(summarize_class(stmt, scope, self.positions))
                self.constants.definition(scope, stmt.name)
                if self.deep or self.forward:  # the header's expressions, for the scans that want them
                    self._expressions(stmt.decorator_list + stmt.bases + [k.value for k in stmt.keywords], scope,
                                      frame)
                self._bind(frame, stmt.name, NAMED)
                self.flows.enter_class()
                self.namespaces.enter_class(stmt, scope)
                self._walk(stmt.body, (*scope, ("class", stmt.name)), frame.class_body())
                self.namespaces.leave_class()
                self.flows.leave_class()
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                if not scope:
                    self.defs.append(stmt.name)
                self.constants.definition(scope, stmt.name)
                if self.deep or self.forward:
                    defaults = [d for d in stmt.args.defaults + stmt.args.kw_defaults if d is not None]
                    self._expressions(stmt.decorator_list + defaults, scope, frame)
                self._bind(frame, stmt.name, NAMED)
                body = frame.function()
                if self.deep:  # ``_bind``'s condition, asked once for all the parameters
                    for param in _params(stmt.args):
                        body.bind(param, UNKNOWN)
                self.flows.enter_function(stmt, scope)
                self.namespaces.enter_function(stmt, scope)
                self._walk(stmt.body, (*scope, ("def", stmt.name)), body)
                self.namespaces.leave_function(stmt)
                self.flows.leave_function(stmt)
            else:
                self._statement(stmt, scope, frame)
                if self.deep or self.forward:
                    children, bodies = _split_statement(stmt)
                    self._expressions(children, scope, frame, stmt)
                elif kind in _FLAT:  # no statement below it, and no scan wants its expressions
                    continue
                else:
                    bodies = _split_statement(stmt)[1]
                truth = known_truth(stmt.test) if kind is ast.If else None  # type: ignore[attr-defined]
                for position, nested in enumerate(bodies):  # an ``if``'s: its body, then its ``else``
                    self._walk(nested, scope, frame, never_runs or truth is (position == 1))

    def _expressions(self, nodes: Sequence[ast.AST], scope: Scope, frame: Frame,
                     stmt: ast.stmt | None = None) -> None:
        """The expressions of ``stmt`` (None: a class's or function's header) to the scans that want them."""
        if self.deep:
            self.uses.scan(nodes, scope, frame)
        if self.forward and (stmt is None or self.handoffs.wants(stmt.lineno, stmt.end_lineno or stmt.lineno)):
            self.handoffs.scan(nodes, scope, frame)

    def _bind(self, frame: Frame, name: str, value: Value = UNKNOWN) -> None:
        """A binding the expression scan does not see; counted only where that scan runs, its one reader."""
        if self.deep:
            frame.bind(name, value)

    def _statement(self, node: ast.stmt, scope: Scope, frame: Frame) -> None:
        self.flows.statement(node)
        self.namespaces.statement(node, scope)
        self.constants.statement(node, scope)
        kind = type(node)
        if kind is ast.Import or kind is ast.ImportFrom:
            before = len(self.bindings.imports)
            if kind is ast.Import:
                self.bindings.import_(node, bool(scope))  # type: ignore[arg-type]
            else:
                self.bindings.import_from(node, bool(scope), id(node) in self._top)  # type: ignore[arg-type]
            for imported in self.bindings.imports[before:]:
                self._bind(frame, imported.local, NAMED)
        elif kind is ast.Assign or kind is ast.AnnAssign:
            if self.deep or self.forward:  # the frame's only readers
                frame.describe(node)  # type: ignore[arg-type]
            if kind is ast.Assign and not scope:  # class bodies are summarized with their class
                self.bindings.assign(node)  # type: ignore[arg-type]
        elif kind is ast.AugAssign and not scope:
            self.bindings.augment(node)  # type: ignore[arg-type]
        elif kind is ast.Global or kind is ast.Nonlocal:
            frame.declare(node)  # type: ignore[arg-type]
        elif kind in _TRY:
            for handler in node.handlers:  # type: ignore[attr-defined]
                if handler.name:
                    self._bind(frame, handler.name)


def _split_statement(stmt: ast.stmt) -> tuple[list[ast.AST], list[list[ast.stmt]]]:
    """A compound statement's own expressions, and the statement lists nested in it."""
    expressions: list[ast.AST] = []
    bodies: list[list[ast.stmt]] = []
    kind = type(stmt)
    for name, role in _ROLES.get(kind) or _roles(kind):  # ``ast.iter_fields`` without its generator
        value = getattr(stmt, name, None)
        if role is _BODY and type(value) is list:
            bodies.append(value)
        elif role is _HANDLERS:
            for handler in value:
                if handler.type is not None:
                    expressions.append(handler.type)
                bodies.append(handler.body)
        elif role is _CASES:
            for case in value:
                expressions.append(case.pattern)
                if case.guard is not None:
                    expressions.append(case.guard)
                bodies.append(case.body)
        elif isinstance(value, ast.AST):
            expressions.append(value)
        elif type(value) is list:
            expressions.extend([v for v in value if isinstance(v, ast.AST)])
    return expressions, bodies


_BODY, _HANDLERS, _CASES, _OTHER = "body", "handlers", "cases", "other"
_ROLES: dict[type, tuple[tuple[str, str], ...]] = {}  # each statement type's fields, with what each holds


def _roles(kind: type) -> tuple[tuple[str, str], ...]:
    """The fields of a statement type in field order, each with its role in ``_split_statement``: once per type,
    not a comparison of each field's name once per statement of a file."""
    roles = _ROLES[kind] = tuple(
        (name, _BODY if name in _BODY_FIELDS else _HANDLERS if name == "handlers" else _CASES if name == "cases"
         else _OTHER) for name in kind._fields)
    return roles


def _params(args: ast.arguments) -> list[str]:
    every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return [arg.arg for arg in every if arg is not None]
