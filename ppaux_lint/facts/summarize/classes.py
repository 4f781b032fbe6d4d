"""One class: what it lists as bases and decorators, and what its namespace binds.

Produces ``ClassSummary`` with its ``MemberAssign`` (``to_pp_tensors = _helper``,
``= None``), ``Field`` (annotated attributes, and the attributes ``__init__`` stores
from annotated parameters) and ``Decorator`` facts; each method is summarized
by ``methods``, what builds its instances by ``constructors``. Bases are recorded as
written, dotted and unresolved: what they name is decided by the index, across files; so
are their type arguments (``Stat[float]``), which the index applies to the fields the base
declares with type variables.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace

from ppaux_lint.contract.names import LOOKED_UP, TO_PP
from ppaux_lint.facts.summarize.constructors import constructor_facts
from ppaux_lint.facts.summarize.methods import summarize_method
from ppaux_lint.facts.summarize.syntax import (
    TRY_STATEMENTS,
    Scope,
    called_name,
    dotted,
    is_none,
    known_truth,
    qualname,
    source,
    spells,
    stored_targets,
    string,
    unwrapped,
    walk_scope,
    walk_statements,
)
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summarize.unread_members import Unread, unread_members
from ppaux_lint.facts.summary import ClassSummary, Decorator, Field, MemberAssign, MethodSummary


def summarize_class(node: ast.ClassDef, scope: Scope, positions: Positions) -> ClassSummary:
    methods: list[MethodSummary] = []
    assigns: list[MemberAssign] = []
    made: list[tuple[str, str, int, bool]] = []
    fields: list[Field] = []
    inits: list[ast.FunctionDef] = []
    conditional: set[int] = set()
    statements = _class_level_statements(node.body, conditional)
    opaque = _namespace_written_through(statements, positions.text) or _made_by_expressions(node)
    superseded, conditionally = _final_bindings(statements, conditional)
    for stmt in statements:
        if id(stmt) in superseded:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                fields.append(Field(stmt.target.id, source(stmt.annotation), True))  # a field all the same
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.append(summarize_method(stmt, positions))
            if stmt.name == "__init__" and isinstance(stmt, ast.FunctionDef):
                inits.append(stmt)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    assigns.append(_member(target, stmt.value, positions))
                    _made_by_call(target, stmt.value, id(stmt) in conditional, made)
        elif isinstance(stmt, ast.Delete):
            _deleted(stmt, id(stmt) in conditional, made)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields.append(Field(stmt.target.id, source(stmt.annotation), stmt.value is not None))
            if stmt.value is not None:
                assigns.append(_member(stmt.target, stmt.value, positions))
                _made_by_call(stmt.target, stmt.value, id(stmt) in conditional, made)
    _detail_helpers(methods, statements, superseded, positions)
    _reach_up(methods, statements, positions.text)
    bases = [base for base in node.bases if dotted(base)]
    base_args = tuple(_type_arguments(base) for base in bases)
    return ClassSummary(
        name=node.name,
        qualname=qualname(scope, node.name),
        span=positions.name_span(node),
        class_line=node.lineno,
        bases=tuple(dotted(base) for base in bases),
        decorators=tuple(called_name(d) for d in node.decorator_list),
        methods=tuple(methods),
        assigns=tuple(assigns),
        fields=tuple(fields),
        metaclass=next((dotted(k.value) for k in node.keywords if k.arg == "metaclass"), ""),
        init_fields=_init_fields(node, inits[-1], positions.text) if inits else (),
        decorations=tuple(Decorator(called_name(d), isinstance(d, ast.Call), d.lineno) for d in node.decorator_list),
        opaque=opaque[0] if opaque else "",
        opaque_line=opaque[1] if opaque else 0,
        base_args=base_args if any(base_args) else (),
        type_params=tuple(p.name for p in getattr(node, "type_params", ()) if type(p).__name__ == "TypeVar"),
        constructor=constructor_facts(node, positions.text),
        unread=(*conditionally, *unread_members(statements, positions.text)),
        stores=tuple(sorted({*_instance_stores(statements, positions.text), *_converted(statements)})),
        made=tuple(made),
    )


def _detail_helpers(methods: list[MethodSummary], statements: Sequence[ast.stmt], superseded: set[int],
                    positions: Positions) -> None:
    """Summarize in detail (returns, key reads) the methods of this body that ``to_pp_tensors`` returns the call of
    (``return self._pack()``), and those that they return in turn: what the helper returns is what is sent
    (``rules/sent.py`` follows it). Only here, where the defs are at hand; most classes have none."""
    queue = [m for m in methods if m.name == TO_PP and any(f.kind == "construct" for f in m.returns)]
    if not queue:
        return
    defs = {stmt.name: stmt for stmt in statements if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            and id(stmt) not in superseded}
    done = {TO_PP}
    while queue:
        method = queue.pop()
        receiver = method.receiver
        for fact in method.returns:
            name = fact.constructs[len(receiver) + 1:] if receiver and fact.kind == "construct" else ""
            if not fact.constructs.startswith(f"{receiver}.") or "." in name or name not in defs or name in done:
                continue
            done.add(name)
            at = next(i for i, m in enumerate(methods) if m.name == name)
            methods[at] = summarize_method(defs[name], positions, detailed=True)
            queue.append(methods[at])


def _reach_up(methods: list[MethodSummary], statements: Sequence[ast.stmt], text: str) -> None:
    """``to_pp_tensors`` that calls none above it itself (``MethodSummary.up`` is "") may still reach one: a helper
    of the class calls ``super().to_pp_tensors()``, or a method names ``Base.to_pp_tensors`` without calling it
    there (``run = Base.to_pp_tensors``). Either makes it "merged": the base's may run, inside this class's
    mapping, and is judged so (``rules/base.py``). Looked for only where the file spells the name twice."""
    at = next((i for i, m in enumerate(methods) if m.name == TO_PP and not m.up), None)
    if at is None or text.count(TO_PP) < 2:
        return
    for stmt in statements:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        receiver = stmt.args.args[0].arg if stmt.args.args else ""
        for node in walk_scope(stmt.body):
            if isinstance(node, ast.Attribute) and node.attr == TO_PP and _names_above(node.value, receiver):
                methods[at] = replace(methods[at], up="merged")
                return


def _names_above(owner: ast.expr, receiver: str) -> bool:
    """``super()`` (or ``super(Out, self)``), or a class named by a dotted name that is not the receiver's."""
    if isinstance(owner, ast.Call):
        return isinstance(owner.func, ast.Name) and owner.func.id == "super"
    head = owner
    while isinstance(head, ast.Attribute):
        head = head.value
    return isinstance(head, ast.Name) and head.id != receiver


_NAMESPACE_CALLS = ("vars", "locals")
"""Builtins that, called with no argument in a class body, hand out the namespace being built."""


def _namespace_written_through(statements: Sequence[ast.stmt], text: str) -> tuple[str, int] | None:
    """``vars().update(...)`` or ``locals()[name] = ...`` in the class body: names enter the namespace that the
    analysis cannot list; ``exec(...)`` there binds whatever its code says. Looked for only where the file's text
    holds such a call, so most bodies are not walked again; methods and nested classes have namespaces of their own
    and are passed over."""
    if not spells(text, ("vars()", "locals()", "exec")):
        return None
    for stmt in statements:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for found in ast.walk(stmt):
            if not isinstance(found, ast.Call) or not isinstance(found.func, ast.Name):
                continue
            if found.func.id in _NAMESPACE_CALLS and not found.args and not found.keywords:
                return f"`{found.func.id}()` in its body (line {found.lineno}) hands out its namespace, which code " \
                       "the analysis cannot follow may fill", found.lineno
            if found.func.id == "exec":
                return f"`exec()` in its body (line {found.lineno}) binds names that the analysis cannot read", \
                    found.lineno
    return None


def _made_by_expressions(node: ast.ClassDef) -> tuple[str, int] | None:
    """A base or metaclass that an expression computes (``make_base(("ids",))``, ``Mixin if PP else object``,
    ``*EXTRA_BASES``, ``metaclass=transport_meta()``): what it gives the class is known only at run time."""
    for base in node.bases:
        if not dotted(base):
            return f"a base is computed by `{_short(base)}` (line {base.lineno}), which the analysis cannot " \
                   "follow", base.lineno
    for keyword in node.keywords:
        if keyword.arg == "metaclass" and not dotted(keyword.value):
            return f"its metaclass is computed by `{_short(keyword.value)}` (line {keyword.value.lineno}), which " \
                   "the analysis cannot follow", keyword.value.lineno
    return None


def _short(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _type_arguments(base: ast.expr) -> tuple[str, ...]:
    """A subscripted base's type arguments as written (``Stat[float]``: ("float",)); () for a plain base."""
    if not isinstance(base, ast.Subscript):
        return ()
    arguments = base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]
    return tuple(source(argument) for argument in arguments)


def _init_fields(node: ast.ClassDef, init: ast.FunctionDef, text: str) -> tuple[Field, ...]:
    """Every attribute ``__init__`` stores on its instance, with the annotation it is declared by, or "".

    ``self.lengths = lengths`` takes the parameter's annotation (``lengths: list[torch.Tensor]``), when
    ``__init__`` never rebinds the parameter; ``self.lengths: T = ...`` takes its own. Any other store gives
    "", and so does a second store of the attribute anywhere in the class (in any method, ``+=``, ``del``,
    ``setattr``), since the attribute may then hold something else. An attribute with "" still tells a rule
    that this class decides what the attribute is, so an annotation further along the MRO does not.
    """
    args = init.args
    positional = args.posonlyargs + args.args
    if not positional:
        return ()
    receiver = positional[0].arg
    first_default = len(positional) - len(args.defaults)
    params = {a.arg: Field(a.arg, source(a.annotation), i >= first_default)
              for i, a in enumerate(positional) if i and a.annotation is not None}
    params.update({a.arg: Field(a.arg, source(a.annotation), d is not None)
                   for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if a.annotation is not None})
    found: dict[str, tuple[Field, str]] = {}  # attribute -> its field, and the parameter it is stored from
    rebound: set[str] = set()
    for stmt, target in _targets(init.body, nested=False):
        if isinstance(target, ast.Name):
            rebound.add(target.id)
        elif isinstance(target, ast.Attribute) and _is_name(target.value, receiver):
            name = target.attr
            if isinstance(stmt, ast.AnnAssign):
                found[name] = (Field(name, source(stmt.annotation), stmt.value is not None), "")
            elif (isinstance(stmt, ast.Assign) and target in stmt.targets and isinstance(stmt.value, ast.Name)
                  and stmt.value.id in params):
                param = params[stmt.value.id]
                found[name] = (Field(name, param.annotation, param.has_default), param.name)
            else:
                found.setdefault(name, (Field(name, "", False), ""))
    declared = {f.name for f, _ in found.values() if f.annotation}
    if not declared:
        return tuple(f for f, _ in found.values())
    if spells(text, (":=",)):  # a walrus may rebind a parameter inside any expression
        rebound.update(n.target.id for n in walk_scope(init.body) if isinstance(n, ast.NamedExpr))
    stores = Counter(t.attr for _, t in _targets(node.body, nested=True)
                     if isinstance(t, ast.Attribute) and t.attr in declared)
    if spells(text, ("setattr", "delattr")):  # rare enough to pay for a walk of every expression
        stores.update(string(n.args[1]) or "" for n in ast.walk(node) if isinstance(n, ast.Call)
                      and len(n.args) >= 2 and dotted(n.func) in ("setattr", "delattr"))
    return tuple(f if stores[f.name] == 1 and param not in rebound else Field(f.name, "", f.has_default)
                 for f, param in found.values())


def _instance_stores(statements: Sequence[ast.stmt], text: str) -> set[str]:
    """The attributes the class's methods store on their instance (``self.<name> = ...``, ``+=``, ``del``, in a
    loop or a ``with``, or ``setattr(self, "<name>", ...)``); ``__init__``'s only when it stores something
    else than one of its parameters as it is (``self.lengths = lengths`` stores what the field declares): a
    class-level annotation of one of them does not say what it holds once such a method has run (``__post_init__``
    turning a ``list`` field into a tensor)."""
    found: set[str] = set()
    setter = spells(text, ("setattr", "delattr"))  # once per class, not per method
    for stmt in statements:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = stmt.args.posonlyargs + stmt.args.args
        if not positional:
            continue
        receiver = positional[0].arg
        params = {a.arg for a in (*positional[1:], *stmt.args.kwonlyargs)} if stmt.name == "__init__" else set()
        found.update(t.attr for store, t in _targets(stmt.body, nested=True)
                     if isinstance(t, ast.Attribute) and _is_name(t.value, receiver)
                     and not (isinstance(store, ast.Assign) and isinstance(store.value, ast.Name)
                              and store.value.id in params and t in store.targets))
        if setter:
            found.update(string(n.args[1]) or "" for n in ast.walk(stmt) if isinstance(n, ast.Call) and len(n.args) >= 2
                         and dotted(n.func) in ("setattr", "delattr") and _is_name(n.args[0], receiver))
    found.discard("")
    return found


def _converted(statements: Sequence[ast.stmt]) -> list[str]:
    """The annotated names whose value is a call given ``converter=`` (``attrs.field(converter=torch.as_tensor)``,
    ``attr.ib(converter=...)``): what the instance holds is what the converter makes, not what the annotation
    (the type it accepts) says."""
    return [stmt.target.id for stmt in statements if isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.Call)
            and any(k.arg == "converter" for k in stmt.value.keywords)]


def _targets(body: Sequence[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, ast.expr]]:
    """Every target the statements of ``body`` store to or delete, at any depth, out of any tuple or list, with
    its statement; ``nested`` also enters the functions and classes defined there. Only statements store to an
    attribute, so reading their targets rather than every expression keeps this cheap (a ``:=`` binds a name
    only, and is not seen here)."""
    for stmt in walk_statements(body, into_scopes=nested):
        if isinstance(stmt, (ast.Assign, ast.Delete)):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        else:
            targets = []
        leaves = [leaf for target in targets for leaf in stored_targets(target)]
        for leaf in reversed(leaves):  # last first, the order ``_init_fields`` has always met them in
            yield stmt, leaf  # type: ignore[misc]


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _member(target: ast.Name, value: ast.expr, positions: Positions) -> MemberAssign:
    value, binding = unwrapped(value)
    text = "none" if is_none(value) else dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
    return MemberAssign(target.id, text, positions.span(target), binding)


def _made_by_call(target: ast.Name, value: ast.expr, conditional: bool,
                  made: list[tuple[str, str, int, bool]]) -> None:
    """A member whose value a call to a named callable makes (``ids = PPField()``): Python calls the value's
    ``__set_name__`` with the class as it makes it, which may set anything on the class (the index follows a
    project class's); ``conditional``: the binding may not run."""
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        if callee:
            made.append((target.id, callee, value.lineno, conditional))


def _deleted(stmt: ast.Delete, conditional: bool, made: list[tuple[str, str, int, bool]]) -> None:
    """``del name`` in the body: the member made before it is not in the class Python makes, so its
    ``__set_name__`` never runs (a later binding of the name is another member); under a condition, it may run."""
    names = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    if conditional:
        made[:] = [(name, callee, line, maybe or name in names) for name, callee, line, maybe in made]
    else:
        made[:] = [entry for entry in made if entry[0] not in names]


def _class_level_statements(body: Sequence[ast.stmt], conditional: set[int] | None = None,
                             under: bool = False) -> list[ast.stmt]:
    """Statements that run in the class namespace, including those under if/try/with at class level. The body of
    ``if TYPE_CHECKING:`` never runs, and is left out (its ``else`` always runs); the ids of the statements that
    may not run (under any other ``if``, or in an ``except`` handler: a ``try`` body is taken to succeed, as
    ``shadows`` takes it) are added to ``conditional``."""
    out: list[ast.stmt] = []
    for stmt in body:
        kind = type(stmt)  # ``ast.parse`` makes no subclasses: one look at the type for most statements
        if kind not in _NESTING:
            out.append(stmt)
            if under and conditional is not None:
                conditional.add(id(stmt))
        elif kind is ast.If:
            runs = known_truth(stmt.test)
            if runs is None:
                out.extend(_class_level_statements(stmt.body + stmt.orelse, conditional, True))
            else:
                out.extend(_class_level_statements(stmt.body if runs else stmt.orelse, conditional, under))
        elif kind in _TRY:
            handlers = [s for h in stmt.handlers for s in h.body]
            out.extend(_class_level_statements(stmt.body + stmt.orelse, conditional, under))
            out.extend(_class_level_statements(handlers, conditional, True))
            out.extend(_class_level_statements(stmt.finalbody, conditional, under))
        else:  # ``with``
            out.append(stmt)  # for its ``as`` targets (``unread_members``); the statements it holds follow
            out.extend(_class_level_statements(stmt.body, conditional, under))
    return out


_TRY = frozenset(TRY_STATEMENTS)
_NESTING = frozenset({ast.If, ast.With, *_TRY})  # the statements ``_class_level_statements`` looks into


_PROPERTY_PARTS = frozenset({"setter", "getter", "deleter"})


def _final_bindings(statements: Sequence[ast.stmt], conditional: set[int]) -> tuple[set[int], list[Unread]]:
    """Which of a class body's ``def`` and assignment statements Python's namespace keeps, as ids of the ones it
    does not (a name bound again later: ``@overload`` stubs before the real ``def``, a ``def`` replaced by
    another); and for the looked-up names (``LOOKED_UP``) bound under a condition after their last certain
    binding, or only under one, an ``unread`` entry: which binding holds depends on the condition (every binding
    of such a name stays). A ``def``
    decorated ``@<name>.setter`` (or ``getter``, ``deleter``) adds to the property of its name, and replaces
    nothing the summary reads."""
    bound: dict[str, list[ast.stmt]] = {}
    again = False
    for stmt in statements:
        for name in _bound_names(stmt):
            found = bound.get(name)
            if found is None:
                bound[name] = [stmt]
            else:
                found.append(stmt)
                again = True
    superseded: set[int] = set()
    unread: list[Unread] = []
    if not again and not conditional:  # each name bound once, and certainly: the body as written (most classes)
        return superseded, unread
    for name, statements_of in bound.items():
        certain = [s for s in statements_of if id(s) not in conditional]
        last = certain[-1] if certain else None
        later = [s for s in statements_of if id(s) in conditional and (last is None or s.lineno > last.lineno)]
        if later:  # every binding stays, as several (a constant so bound is no constant: ``index/constants.py``)
            if name in LOOKED_UP:
                unread.append((name, f"its body binds `{name}` under a condition (line {later[0].lineno}): which "
                                     "binding holds depends on it", later[0].lineno))
            continue
        superseded.update(id(s) for s in statements_of if s is not last)
    return superseded, unread


def _bound_names(stmt: ast.stmt) -> list[str]:
    """The plain names a class-level ``def`` or assignment binds, as ``summarize_class`` reads them."""
    kind = type(stmt)  # ``ast.parse`` makes no subclasses
    if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
        parts = stmt.decorator_list and any(  # type: ignore[attr-defined]
            type(d) is ast.Attribute and d.attr in _PROPERTY_PARTS and _is_name(d.value, stmt.name)  # type: ignore
            for d in stmt.decorator_list)  # type: ignore[attr-defined]
        return [] if parts else [stmt.name]  # type: ignore[attr-defined]
    if kind is ast.Assign:
        return [target.id for target in stmt.targets if type(target) is ast.Name]  # type: ignore[attr-defined]
    if kind is ast.AnnAssign and type(stmt.target) is ast.Name and stmt.value is not None:  # type: ignore
        return [stmt.target.id]  # type: ignore[attr-defined]
    return []
