"""The classes an expression can be an instance of: the one inference every rule about routes asks.

Rules need to know what an observer's hook really returns (``after_sample``, ``after_forward``,
``from_pp_tensors``): PPA001 whether an output only ever reaches forward observers, PPA002 whether an
observer ever returns an output at all, PPA014 whether ``from_pp_tensors`` can return None, PPA015 which
output an observer rebuilds, and ``inventory`` who produces each output. Plugin code reaches its output by
many routes, so this follows the flows of ``summarize.flows`` across the project, lazily and memoised:

- constructors: ``X(...)``, ``cls(...)`` in a classmethod, ``type(self)(...)``, ``self.__class__(...)``;
- calls of project functions and methods, to any depth and across modules: ``make(...)``,
  ``self._build(...)``, ``X.from_rows(...)`` (a classmethod sees the class it was called on as ``cls``),
  ``self.builder.build()``, ``super().after_sample(...)``, properties;
- names: the function's locals (every value assigned to them), its receiver, parameters annotated with a
  project class (that class or a subclass), module-level names bound to a call, then what the index
  resolves the name to (imports, re-exports, aliases);
- attributes of an instance: every ``self.attr = value`` in the methods along its MRO and a class-level
  ``attr = None``; ``copy.copy``/``copy.deepcopy``/``dataclasses.replace`` hand back their argument's class;
- the branches of conditional expressions, ``a or b`` (whose ``a`` is returned only when truthy, so never
  as None), and every ``return`` including falling off the end.

It gives up, with ``UNKNOWN`` as a value among the others, on what it cannot see: parameters without a
project class annotation, subscripts, literals, calls of functions outside the project, attributes that no
method of the class assigns, generators and coroutines, recursion deeper than ``_DEPTH``. Where a function
that gives up declares its return type, the annotation stands in for ``UNKNOWN``: a project class there is
``SUBCLASS_OF`` it (that class or any subclass); an interface there (a Protocol every output fits) says
nothing. A cycle (``a`` returns ``b()``, ``b`` returns ``a()``) contributes nothing from the repeated call,
the least fixpoint; results computed while a cycle was cut are not memoised. Every value is a tuple, so
sets of them are hashable and cheap to union:

- ``("none",)``, ``("?",)``: None, and anything the inference cannot tell;
- ``("i", fqn)``, ``("i+", fqn)``: an instance of the project class, and of it or a subclass;
- ``("k", fqn)``: the class itself; ``("f", module, qualname, receiver)``: a function, or a method bound to
  ``receiver`` (a value, or None); ``("m", module)``: a module; ``("x", dotted)``: a name outside the project;
  ``("s", owner, receiver)``: ``super()`` in a method of ``owner``, whose attributes are looked up along the
  receiver's MRO after ``owner``; ``("xi", dotted)``: an instance of a class outside the project whose members
  are known, SGLang's ``CompositeDeviceAuxiliaryOutput`` (``X(...)`` of any other outside class is unknown).
"""

from __future__ import annotations

import ast
import functools
import weakref
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import COMPOSITE_OUTPUT
from ppaux_lint.facts.summary import Expr, FunctionFlow
from ppaux_lint.index.arguments import PARTIAL, Arguments
from ppaux_lint.index.constants import dotted_name

if TYPE_CHECKING:
    from ppaux_lint.index.graph import Member, ProjectGraph

Value = tuple
Values = frozenset

NONE: Value = ("none",)
UNKNOWN: Value = ("?",)
TRUTHY, EMPTY = "truthy", "empty"  # shapes of a flow's expressions, never values
INSTANCE, SUBCLASS_OF, CLASS, FUNCTION, MODULE, OUTSIDE, SUPER = "i", "i+", "k", "f", "m", "x", "s"
FOREIGN = "xi"
_FOREIGN_CLASSES = frozenset({COMPOSITE_OUTPUT})  # outside classes whose instances the rules ask about
_NOTHING: Values = frozenset()
_UNKNOWN: Values = frozenset({UNKNOWN})
_NONE: Values = frozenset({NONE})
_PASS_THROUGH = frozenset({"copy.copy", "copy.deepcopy", "dataclasses.replace"})  # hand back their argument's class
_TYPE = "builtins.type"
_SUPER = "builtins.super"
_MAKERS = frozenset({"type()", "type(...)", "make_dataclass()", "dataclasses.make_dataclass()", "new_class()",
                     "types.new_class()"})
"""A flow's text of a call that may make a class (``ClassSummary.made_by``): the name it is bound to is that class."""
_DEPTH = 48
_NESTING = 120
"""The most evaluations one inside another (a local's value read through another's, ``x2 = x1``, ``x1 = x0``, a
function's return through another's): each is a few frames of Python's stack, and a chain of a thousand locals in a
repository's function exceeded the recursion limit, an internal error that ended the run; past this, unknown."""
_BUDGET = 20_000
"""The most evaluations one expression's value may take, every local and return it reads included: a local bound
twice from the one before (``x1 = x0`` twice, forty times over, eighty lines) is read along every path, two to the
fortieth, which held check and the language server for ever; past this, what is left is unknown."""


@functools.lru_cache(maxsize=4096)
def parse_expr(text: Expr) -> tuple:
    """A summary's expression text back into the shape ``summarize.flows`` walked it as: ``("none",)``,
    ``("name", id)``, ``("attr", shape, attribute)``, ``("call", shape, first argument shape or None)``,
    ``("empty", "{}")``, ``("truthy", shape)`` (written ``x or ...``), ``("?",)``. Memoised: the same few texts
    recur across a project's flows."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return UNKNOWN
    return _shape(node)


def or_operands(text: Expr) -> list[str]:
    """The operands of a summary's ``a or b`` text, each as written (``ReturnFact.after`` keeps everything before
    the last operand as one text); the text itself when it is no ``or``, nothing when it does not parse."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return []
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return [ast.unparse(value) for value in node.values]
    return [text]


@functools.lru_cache(maxsize=1024)
def declared_class(annotation: str) -> tuple[str, bool]:
    """The dotted class an annotation's text names, and whether it admits None: ``Optional[TopK]``,
    ``TopK | None`` and ``"TopK"`` give ("TopK", True), (..., True) and ("TopK", False); a union of classes, a
    container or anything else names none (""). Field annotations are kept as text (``Field.annotation``)."""
    try:
        return _declared(ast.parse(annotation.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return "", False


def _declared(node: ast.expr) -> tuple[str, bool]:
    if isinstance(node, ast.Constant):
        return ("", True) if node.value is None else declared_class(node.value) if isinstance(node.value, str) \
            else ("", False)
    members: list[ast.expr] = []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = [node.left, node.right]
    elif isinstance(node, ast.Subscript) and dotted_name(node.value).rsplit(".", 1)[-1] in ("Optional", "Union"):
        members = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        members += [ast.Constant(None)] if dotted_name(node.value).endswith("Optional") else []
    if not members:
        return dotted_name(node), False
    found = [_declared(member) for member in members]
    names = [name for name, _ in found if name]
    return (names[0] if len(names) == 1 else ""), any(optional for _, optional in found)


def _shape(node: ast.expr) -> tuple:
    if isinstance(node, ast.Name):
        return ("name", node.id)
    if isinstance(node, ast.Attribute):
        return ("attr", _shape(node.value), node.attr)
    if isinstance(node, ast.Call):
        return ("call", _shape(node.func), _shape(node.args[0]) if node.args else None)
    if isinstance(node, ast.Constant) and node.value is None:
        return NONE
    if isinstance(node, ast.BoolOp) and len(node.values) == 2 and isinstance(node.values[1], ast.Constant) \
            and node.values[1].value is Ellipsis:
        return (TRUTHY, _shape(node.values[0]))
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple)) and not (node.keys if isinstance(node, ast.Dict)
                                                                    else node.elts):
        return (EMPTY, ast.unparse(node))
    return UNKNOWN


class Inference:
    """Answers about one graph; memoised for the graph's life."""

    def __init__(self, index: ProjectGraph) -> None:
        # A proxy, not a reference: the index holds its inference, and a cycle between them would outlive the
        # analysis until the (rarely run, collector.py) garbage collector, keeping every summary in memory
        # while the replay record is written.
        self.index = weakref.proxy(index)
        self._flows: dict[str, dict[str, FunctionFlow]] = {}
        self._memo: dict[tuple, Values] = {}
        self._active: set[tuple] = set()
        self._cut = False
        self._depth = 0
        self._evaluating = 0  # evaluations in progress, one inside the other
        self._spent = 0  # evaluations made for the outermost one in progress
        self._stores: dict[str, dict[str, list[tuple[str, FunctionFlow, Expr]]]] = {}
        self._arguments = Arguments(self.index)

    # -- questions ---------------------------------------------------------------------------------------
    def hook_returns(self, cls: str, hook: str, declared: bool = False) -> Values | None:
        """What ``cls().hook(...)`` can return; None when no definition is visible along the MRO. With
        ``declared``, what the hook's own return annotation names counts too, whatever the body shows: a route
        the author declared (``-> Optional[Capture]``) is one, even where the body is a stub."""
        member = self.index.lookup(cls, hook)
        if member is None:
            return None
        if member.stub_of_protocol or member.method is None:
            return _NONE if member.stub_of_protocol or member.is_none else _UNKNOWN
        if member.owner not in self.index.classes:
            return _UNKNOWN  # a known library base provides it: its body is not ours to read
        if member.method is not self.index.classes[member.owner].method(hook):
            return self._bound_function(member, cls)  # ``Obs.after_sample = staticmethod(_after)``: not the body's
        function = self._method(member.owner, hook, (INSTANCE, cls))
        values = self.call(function, None, None)
        flow = self.flow(function[1], function[2])
        if declared and flow is not None and flow.return_type:
            values = values | self._declared(function[1], flow)
        return values

    def classes(self, values: Iterable[Value]) -> Iterator[tuple[str, bool]]:
        """(fqn, with_subclasses) for each project class the values can be an instance of."""
        for value in values:
            if value[0] in (INSTANCE, SUBCLASS_OF) and value[1] in self.index.classes:
                yield value[1], value[0] == SUBCLASS_OF

    # -- functions -----------------------------------------------------------------------------------------
    def flow(self, module: str, qualname: str) -> FunctionFlow | None:
        flows = self._flows.get(module)
        if flows is None:
            summary = self.index.modules.get(module)
            flows = {f.qualname: f for f in summary.flows} if summary is not None else {}
            self._flows[module] = flows
        return flows.get(qualname)

    def returns(self, module: str, qualname: str, receiver: Value | None) -> Values:
        """What calling the function (bound to ``receiver``) can return."""
        key = (module, qualname, receiver)
        if key in self._memo:
            return self._memo[key]
        flow = self.flow(module, qualname)
        if flow is None or flow.opaque or self._depth > _DEPTH:
            return _UNKNOWN
        if self._cycle(key):
            return _NOTHING
        self._depth += 1
        outer_cut, self._cut = self._cut, False
        try:
            values = self._with_declared(module, flow, self._body(module, flow, receiver))
        finally:
            self._active.discard(key)
            self._depth -= 1
        if not self._cut:
            self._memo[key] = values
        self._cut = self._cut or outer_cut
        return values

    def body_returns(self, cls: str, name: str, never: Collection[tuple[int, Expr]] = (),
                     skipped: Collection[tuple[str, int]] = ()) -> Values | None:
        """What the body of ``cls``'s own method ``name`` can return, called on an instance of ``cls``, without
        its return annotation standing in for what the inference cannot see; None when it has no such body.
        ``never``: returns a rule knows are never taken, as (``FunctionFlow.lines`` entry, expression); ``skipped``:
        the same of the functions its returns call, as (dotted function, line)."""
        summary = self.index.classes.get(cls)
        flow = self.flow(self.index.class_module[cls], f"{summary.qualname}.{name}") if summary is not None else None
        if flow is None or flow.opaque:
            return None
        module, receiver = self.index.class_module[cls], (INSTANCE, cls)
        if not (never or skipped) or len(flow.lines) != len(flow.returns):
            return self._body(module, flow, receiver)
        return self._union(self._returned(expr, module, flow, receiver, skipped)
                           for expr, line in zip(flow.returns, flow.lines, strict=True) if (line, expr) not in never)

    def _returned(self, expr: Expr, module: str, flow: FunctionFlow, receiver: Value | None,
                  skipped: Collection[tuple[str, int]], memo: dict[Value, Values] | None = None) -> Values:
        """What a return of ``flow`` gives, the functions it calls, and theirs, leaving out their returns in
        ``skipped``: each function once (``memo``); a call back to one on the way is unknown."""
        shape = parse_expr(expr)
        if not skipped or shape[0] != "call":
            return self.evaluate(expr, module, flow, receiver)
        memo = {} if memo is None else memo
        where = (module, flow, receiver, frozenset())
        return self._union(self._called(callee, shape[2], where, skipped, memo)
                           for callee in self.evaluate(shape[1], module, flow, receiver))

    def _called(self, callee: Value, first: tuple | None, where: tuple, skipped: Collection[tuple[str, int]],
                memo: dict[Value, Values]) -> Values:
        """``call``, a project function's returns each followed by ``_returned``: its annotation still stands in for
        what the rest cannot see, as in ``returns``."""
        if callee in memo:
            return memo[callee]
        inner = self.flow(callee[1], callee[2]) if callee[0] == FUNCTION else None
        if inner is None or inner.opaque or len(inner.lines) != len(inner.returns) or len(memo) > _DEPTH:
            return self.call(callee, first, where)
        memo[callee] = _UNKNOWN  # until worked out: a call back to it on the way is not followed, and not known
        name = f"{callee[1]}.{callee[2]}"
        memo[callee] = values = self._with_declared(callee[1], inner, self._union(
            self._returned(expr, callee[1], inner, callee[3], skipped, memo)
            for expr, line in zip(inner.returns, inner.lines, strict=True) if (name, line) not in skipped))
        return values

    def _with_declared(self, module: str, flow: FunctionFlow, values: Values) -> Values:
        """``values`` of what a function returns, with its return annotation standing in for what is unknown."""
        if UNKNOWN in values and flow.return_type:
            declared = self._declared(module, flow)
            if declared:
                return (values - _UNKNOWN) | declared
        return values

    def _body(self, module: str, flow: FunctionFlow, receiver: Value | None) -> Values:
        """Every value the function's returns can give, as written: no annotation stands in."""
        return self._union(self.evaluate(expr, module, flow, receiver) for expr in flow.returns)

    def _cycle(self, key: tuple) -> bool:
        """Whether ``key`` is already being worked out further up (a cycle, cut here: the caller contributes
        nothing and its result is not memoised); otherwise it is now, until the caller discards it."""
        if key in self._active:
            self._cut = True
            return True
        self._active.add(key)
        return False

    def _declared(self, module: str, flow: FunctionFlow) -> Values:
        """The annotation's class as a value, or nothing when it names no class that says anything."""
        bound = self._bound(module, flow.return_type, flow.qualname)
        if bound == UNKNOWN:
            return _NOTHING
        return frozenset({bound, NONE} if flow.return_optional else {bound})

    def _bound(self, module: str, annotation: str, scope: str) -> Value:
        """What an annotation names, as a value: that project class or a subclass; unknown for anything else,
        and for an interface (a Protocol such as SGLang's ``DeviceAuxiliaryOutput``), which every output
        fits and so names none in particular."""
        target = self.index.resolve(module, annotation, scope) if annotation else None
        if target is None or target not in self.index.classes or self.index.is_interface(target):
            return UNKNOWN
        return (SUBCLASS_OF, target)

    # -- expressions ---------------------------------------------------------------------------------------
    def evaluate(self, expr: Expr | tuple | None, module: str, flow: FunctionFlow, receiver: Value | None,
                 reading: frozenset[str] = frozenset()) -> Values:
        """Every value ``expr`` (a summary's text, or a shape parsed from one) can have inside ``flow`` (of
        ``module``); ``reading`` the locals being read, which a self-referring assignment (``out = out or
        make()``) must not read again."""
        if expr is None:
            return _UNKNOWN
        if not self._evaluating:  # a question's own expression: its budget starts afresh
            self._spent = 0
        self._spent += 1
        if self._evaluating >= _NESTING or self._spent > _BUDGET:  # past any real code's: unknown
            return _UNKNOWN
        self._evaluating += 1
        try:
            return self._evaluate(expr, module, flow, receiver, reading)
        finally:
            self._evaluating -= 1

    def _evaluate(self, expr: Expr | tuple, module: str, flow: FunctionFlow, receiver: Value | None,
                  reading: frozenset[str]) -> Values:
        if isinstance(expr, str):
            expr = parse_expr(expr)
        kind = expr[0]
        if kind == "none":
            return _NONE
        if kind == TRUTHY:  # returned only when truthy, so never None
            return self.evaluate(expr[1], module, flow, receiver, reading) - _NONE
        if kind == "name":
            return self._name(expr[1], module, flow, receiver, reading)
        if kind == "attr":
            bases = self.evaluate(expr[1], module, flow, receiver, reading)
            return self._union(self.attribute(base, expr[2]) for base in bases)
        if kind == "call":
            callees = self.evaluate(expr[1], module, flow, receiver, reading)
            return self._union(self.call(callee, expr[2], (module, flow, receiver, reading)) for callee in callees)
        return _UNKNOWN

    def _name(self, name: str, module: str, flow: FunctionFlow, receiver: Value | None,
              reading: frozenset[str]) -> Values:
        assigned = dict(flow.locals).get(name)
        if assigned is not None and all(e in _MAKERS for e in assigned):  # ``Out = type("Out", (Base,), {...})``
            made = self.index.resolve(module, name, flow.qualname)
            if made in self.index.classes and self.index.classes[made].made_by:
                return frozenset({(CLASS, made)})
        values: set[Value] = set()
        if assigned is not None and name not in reading:
            values |= self._union(self.evaluate(e, module, flow, receiver, reading | {name}) for e in assigned)
        if name == flow.receiver and flow.receiver:
            values.add(receiver if receiver is not None else UNKNOWN)
            return frozenset(values)
        param = next((annotated for param, annotated in flow.params if param == name), None)
        if param is not None:
            bound = self._bound(module, param, flow.qualname)
            values.add(bound)
            if bound == UNKNOWN:
                values |= self._handed(module, flow, name)
            return frozenset(values)
        if assigned is not None:
            return frozenset(values)
        # A class the function defines (``f.<locals>.C``) is what its name means in the body, before any
        # module-level name of the same spelling (``C = f()``: a factory exposing what it makes).
        target = self.index.resolve(module, name, f"{flow.qualname}.<locals>" if flow.qualname else "")
        if flow.qualname and ".<locals>." not in (target or ""):
            top = self.flow(module, "")
            if top is not None and name in dict(top.locals):
                return self._name(name, module, top, None, reading)
        return self.reference(target)

    def _handed(self, module: str, flow: FunctionFlow, name: str) -> Values:
        """What the project's calls hand an unannotated parameter of a constructor (``arguments.py``)."""
        owner, _, method = f"{module}.{flow.qualname}".rpartition(".")
        if method != "__init__" or flow.binding != "method" or owner not in self.index.classes:
            return _NOTHING
        return frozenset((INSTANCE, cls) for cls in self._arguments.handed(owner, name))

    def reference(self, target: str | None) -> Values:
        """What a resolved dotted name denotes."""
        index = self.index
        if target is None:
            return _UNKNOWN
        if target in index.classes:
            return frozenset({(CLASS, target)})
        if target in index.known:
            return frozenset({(MODULE, target)})
        module, qualname = self._split(target)
        if module is not None:
            return frozenset({(FUNCTION, module, qualname, None)})
        return frozenset({(OUTSIDE, target)})

    def _split(self, target: str) -> tuple[str | None, str]:
        """(module, qualname) of a project function's dotted name."""
        parts = target.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.index.known and self.index.load(module) is not None:
                qualname = ".".join(parts[cut:])
                return (module, qualname) if self.flow(module, qualname) is not None else (None, "")
        return None, ""

    def attribute(self, base: Value, name: str) -> Values:
        kind = base[0]
        index = self.index
        if kind == MODULE:
            return self.reference(index.resolve(base[1], name))
        if kind == OUTSIDE:
            return frozenset({(OUTSIDE, f"{base[1]}.{name}")})
        if kind == CLASS:
            nested = index.member_class(base[1], name)
            if nested is not None:
                return frozenset({(CLASS, nested)})
            return self._member(base[1], name, base, bound=False)
        if kind == SUPER:
            return self._after(base[1], base[2], name)
        if kind in (INSTANCE, SUBCLASS_OF):
            if name == "__class__":
                return frozenset({(CLASS, base[1])})
            return self._member(base[1], name, (INSTANCE, base[1]), bound=True)
        return _UNKNOWN

    def _member(self, cls: str, name: str, receiver: Value, bound: bool) -> Values:
        """``name`` looked up on the class ``cls``, through an instance (``bound``) or the class itself."""
        member = self.index.lookup(cls, name)
        if member is not None and member.method is not None and member.owner in self.index.classes:
            function = self._method(member.owner, name, receiver)
            flow = self.flow(function[1], function[2])
            if flow is not None and flow.binding == "property":
                return self.call(function, None, None) if bound else _UNKNOWN
            return frozenset({function})
        level = self._class_level(member)
        if not bound:
            return level or _UNKNOWN
        return self._declared_attribute(cls, name, self._stored(cls, name, receiver) | level)

    def _bound_function(self, member: Member, cls: str) -> Values:
        """What a member bound to a project function outside a ``def`` of the class returns (``after_sample =
        _after`` in the body, ``Obs.after_sample = staticmethod(_after)`` after it, a decorator's), bound as the
        member binds it; unknown where that function's flow is not at hand (a lambda)."""
        method, site = member.method, member.site
        if method is None or site is None:
            return _UNKNOWN
        qualname = f"{site.scope}.{method.name}" if site.scope else method.name
        if self.flow(site.module, qualname) is None:
            return _UNKNOWN
        receiver: Value | None = None if "staticmethod" in method.decorators else \
            (CLASS, cls) if "classmethod" in method.decorators else (INSTANCE, cls)
        return self.returns(site.module, qualname, receiver)

    def _method(self, owner: str, name: str, receiver: Value) -> Value:
        """The method as a function bound as its decorators say: ``cls`` for a classmethod, nothing for a
        staticmethod, the instance otherwise."""
        module = self.index.class_module[owner]
        qualname = f"{self.index.classes[owner].qualname}.{name}"
        flow = self.flow(module, qualname)
        binding = flow.binding if flow is not None else "method"
        if binding == "classmethod":
            receiver = (CLASS, receiver[1])
        elif binding == "staticmethod":
            return (FUNCTION, module, qualname, None)
        return (FUNCTION, module, qualname, receiver)

    def _stored(self, cls: str, name: str, receiver: Value) -> Values:
        """Every value a method along the MRO assigns to ``self.<name>``; unknown when none does. An attribute
        assigned from itself, directly or not (``self.a = self.b``, ``self.b = self.a``), is a cycle."""
        key = ("stored", cls, name, receiver)
        if self._cycle(key):
            return _NOTHING
        try:
            found: set[Value] = set()
            any_store = False
            for owner in self.index.mro(cls):
                for module, flow, expr in self._stores_of(owner).get(name, ()):
                    any_store = True
                    found |= self.evaluate(expr, module, flow, receiver)
        finally:
            self._active.discard(key)
        return frozenset(found) if any_store else _UNKNOWN

    def _stores_of(self, owner: str) -> dict[str, list[tuple[str, FunctionFlow, Expr]]]:
        stores = self._stores.get(owner)
        if stores is None:
            stores = {}
            if owner in self.index.classes:
                module = self.index.class_module[owner]
                prefix = f"{self.index.classes[owner].qualname}."
                summary = self.index.modules[module]
                for flow in summary.flows:
                    if flow.qualname.startswith(prefix) and "." not in flow.qualname[len(prefix):]:
                        for attr, expr in flow.stores:
                            stores.setdefault(attr, []).append((module, flow, expr))
            self._stores[owner] = stores
        return stores

    def _class_level(self, member) -> Values:
        """A class attribute's own value: ``last = None`` is a value ``self.last`` can have, and ``output_cls =
        Capture`` makes ``self.output_cls(...)`` a constructor of ``Capture``."""
        if member is None or member.assign is None:
            return _NOTHING
        if member.is_none:
            return _NONE
        if not member.assign.value or member.owner not in self.index.classes:
            return _UNKNOWN
        scope = self.index.classes[member.owner].qualname
        return self.reference(self.index.resolve(self.index.class_module[member.owner], member.assign.value, scope))

    def _declared_attribute(self, cls: str, name: str, values: Values) -> Values:
        """What an attribute's declaration says where its stores do not: the first class along the MRO that
        annotates ``name`` (``top: TopK`` in its body, ``self.top: TopK = ...`` in its ``__init__``) stands for
        the unknown, as a function's return annotation does."""
        if UNKNOWN not in values:
            return values
        for owner in self.index.mro(cls):
            summary = self.index.classes.get(owner)
            if summary is None:
                continue
            annotation = next((f.annotation for f in (*summary.fields, *summary.init_fields)
                               if f.name == name and f.annotation), "")
            if annotation:
                target, optional = declared_class(annotation)
                bound = self._bound(self.index.class_module[owner], target, summary.qualname)
                if bound == UNKNOWN:
                    return values
                return (values - _UNKNOWN) | ({bound, NONE} if optional else {bound})
        return values

    def call(self, callee: Value, first: tuple | None, where: tuple | None) -> Values:
        """What calling ``callee`` returns; ``first`` is its first positional argument, read in ``where``."""
        kind = callee[0]
        if kind == OUTSIDE and callee[1] == _SUPER and first is None and where is not None:
            return self._super(where[1], where[0], where[2])
        if kind == CLASS:
            return frozenset({(INSTANCE, callee[1])})
        if kind == OUTSIDE and callee[1] in _FOREIGN_CLASSES:
            return frozenset({(FOREIGN, callee[1])})
        if kind == FUNCTION:
            return self.returns(callee[1], callee[2], callee[3])
        if kind == OUTSIDE and where is not None and first is not None and callee[1] in (*_PASS_THROUGH, _TYPE,
                                                                                        PARTIAL):
            arguments = self.evaluate(first, *where)
            if callee[1] == _TYPE:
                return frozenset((CLASS, v[1]) if v[0] in (INSTANCE, SUBCLASS_OF) else UNKNOWN for v in arguments)
            if callee[1] == PARTIAL:  # calling the partial calls the class or function it binds
                return frozenset(v if v[0] in (CLASS, FUNCTION) else UNKNOWN for v in arguments)
            return frozenset(v if v[0] in (INSTANCE, SUBCLASS_OF, NONE[0], FOREIGN) else UNKNOWN for v in arguments)
        return _UNKNOWN

    def _super(self, flow: FunctionFlow, module: str, receiver: Value | None) -> Values:
        """``super()`` with no argument, in a method of a project class bound to an instance or a class."""
        owner = f"{module}.{flow.qualname.rpartition('.')[0]}"
        if not flow.receiver or receiver is None or owner not in self.index.classes:
            return _UNKNOWN
        return frozenset({(SUPER, owner, receiver)})

    def _after(self, owner: str, receiver: Value, name: str) -> Values:
        """``super().name``: the first definition along the receiver's MRO after ``owner``."""
        mro = self.index.mro(receiver[1])
        if owner not in mro:
            return _UNKNOWN
        for cls in mro[mro.index(owner) + 1:]:
            summary = self.index.classes.get(cls)
            if summary is None:
                return _UNKNOWN  # an outside base may define it
            if summary.method(name) is not None:
                return frozenset({self._method(cls, name, receiver)})
            if summary.assign(name) is not None:
                return _UNKNOWN
        return _UNKNOWN

    @staticmethod
    def _union(groups: Iterable[Values]) -> Values:
        out: set[Value] = set()
        for group in groups:
            out |= group
        return frozenset(out)
