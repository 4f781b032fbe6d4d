"""A class's final namespace: what its statement writes, and what the code that runs around it does to it.

Python builds a class with code: its decorators run on it (project decorators that set ``cls.to_pp_tensors``,
factories that return such a decorator, one that returns a class built on it), its module's top-level code may
assign to it afterwards (``Out.to_pp_tensors = fn``, ``setattr``, in a loop over classes, under an ``if``), and so
may another module that imports it; a base's ``__init_subclass__`` runs on it as it is made. The summaries record
what each file's statements do to which names (``summarize.namespaces``); this module resolves those names across
files and applies the edits in the order they run: the class body, then the decorators from the innermost out,
then the assignments of its own module in line order, then those of other modules. What each one adds comes with
its provenance ("added by `pkg.decorators.pp_fields` (line 14)", "set at line 52 after the class"), which the
graph's member lookup hands on to every rule.

Certainty comes first. Where code the analysis cannot follow touches a class (a decorator it cannot resolve or
read, a metaclass that may rewrite the namespace, ``setattr`` with a computed name, ``vars(cls).update``,
``cls.__dict__``, an assignment in a function that may run at any time, a decorator that hands the class to code
it cannot read), the class's namespace, or that one name, is unknown: the lookup answers "unknown" (``Touch``)
rather than what the statement shows, and no rule judges it. An edit of a name the rules ask about on something
that is no class the analysis can name (``obs.from_pp_tensors = fn``, a loop over a registry) may reach any
class, so that name is unknown on every class. A ``setattr`` with a computed name on something that is no
project class is not followed: it is what generic code does to objects (``setattr(self, k, v)``), and treating
it as a touch of every class would leave nothing judged.

This module knows the graph only through ``Resolver``: it sits below ``graph.py``, which asks it.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from typing import Protocol

from ppaux_lint.contract.names import LOOKED_UP
from ppaux_lint.facts.summary import (
    GLOBALS,
    LATER,
    ClassEditor,
    ClassSummary,
    Decorator,
    FileSummary,
    FunctionFlow,
    FunctionSummary,
    MemberAssign,
    MethodSummary,
    NamespaceEdit,
)
from ppaux_lint.index.known_decorators import (
    FIELD_DECORATORS,
    HARMLESS_DECORATORS,
    HARMLESS_METACLASSES,
    METACLASS_HOOKS,
)
from ppaux_lint.index.model import Touch
from ppaux_lint.support.records import dataclass

_DEPTH = 8  # decorators calling helpers calling helpers: deeper is unknown
_BINDINGS = frozenset({"staticmethod", "classmethod"})  # the ``how`` of a "set" edit whose value is wrapped so


class Resolver(Protocol):
    """What this module asks of the graph."""

    classes: Mapping[str, ClassSummary]
    class_module: Mapping[str, str]
    modules: Mapping[str, FileSummary]
    known: set[str]  # every project module's name

    def resolve(self, module: str, name: str, scope: str = "") -> str | None: ...

    def load(self, module: str) -> FileSummary | None: ...

    def mro(self, fqn: str) -> Sequence[str]: ...


@dataclass(frozen=True)
class Site:
    """Where a member's value is written: the file, the module and the scope its names resolve in."""

    path: str
    module: str
    scope: str


@dataclass(frozen=True)
class Added:
    """A member that code outside the class statement sets (or deletes) on the class, and how."""

    name: str
    method: MethodSummary | None  # the function it is, summarized as a method, when the analysis can read it
    assign: MemberAssign | None  # the value as written ("none" for None), when it is no readable function
    origin: str  # "added by `pkg.decorators.pp_fields` (line 14)", "set at line 52 after the class"
    site: Site
    deleted: bool = False


@dataclass
class Namespace:
    """What a class's namespace holds beyond its statement, and what about it cannot be known."""

    added: dict[str, Added] = field(default_factory=dict)
    unknown: list[Touch] = field(default_factory=list)  # the whole namespace
    unknown_names: dict[str, Touch] = field(default_factory=dict)
    extra_bases: list[tuple[str, str]] = field(default_factory=list)  # (as written, resolved) from a replacement
    followed: list[str] = field(default_factory=list)  # the decorators and modules whose edits were applied


def function_at(graph: Resolver, fqn: str) -> tuple[FileSummary, str] | None:
    """The summary of the module a project function (or method) ``fqn`` is in, and its qualname there."""
    parts = fqn.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        summary = graph.load(".".join(parts[:cut]))
        if summary is not None:
            return summary, ".".join(parts[cut:])
    return None


def flow_at(graph: Resolver, fqn: str) -> FunctionFlow | None:
    """The flow of the project function (or method) ``fqn``: what it returns and binds (``summarize.flows``);
    None where ``fqn`` names no function of a project module."""
    found = function_at(graph, fqn)
    return next((flow for flow in found[0].flows if flow.qualname == found[1]), None) if found is not None else None


class Namespaces:
    """Every class's ``Namespace``, built when first asked for and kept. ``summaries`` are the files whose edits
    may reach another module's classes: the prefilter reads every file that names a class it could matter to
    (``scan/prefilter.py``), so the summaries the index starts with hold all of them."""

    def __init__(self, graph: Resolver, summaries: Iterable[FileSummary]) -> None:
        self._graph = graph
        self._summaries = list(summaries)
        self._memo: dict[str, Namespace] = {}
        self._building: set[str] = set()
        self._patches: dict[str, list[tuple[FileSummary, NamespaceEdit]]] | None = None
        self._unattributed: dict[str, Touch] = {}
        self._editors: dict[str, dict[str, ClassEditor]] = {}
        self._functions: dict[str, dict[str, FunctionSummary]] = {}
        self._maybe = False  # the edits being applied may not run (a call under a condition, ``_one_patch``)

    # -- questions -------------------------------------------------------------------------------------------
    def of(self, fqn: str) -> Namespace:
        found = self._memo.get(fqn)
        if found is not None:
            return found
        if fqn in self._building:
            return Namespace()  # a decorator that reaches its own class: what is built so far stands
        self._building.add(fqn)
        try:
            namespace = self._build(fqn)
        finally:
            self._building.discard(fqn)
        self._memo[fqn] = namespace
        return namespace

    def unattributed(self, name: str) -> Touch | None:
        """Why ``name`` is unknown on every class: it is set on something the analysis cannot name."""
        self._index_patches()
        return self._unattributed.get(name)

    def function(self, module: str, value: str, scope: str) -> tuple[FunctionSummary, Site] | None:
        """The project function a name written in ``module`` denotes (``_pack``, ``helpers.pack``), summarized as
        a method, with where it is written; None when it is no such function or it was not summarized."""
        target = self._graph.resolve(module, value, scope) if value else None
        found = function_at(self._graph, target) if target else None
        if found is None:
            return None
        summary, qualname = found
        function = self._function_table(summary).get(qualname)
        if function is None:
            return None
        return function, Site(summary.path, summary.module, qualname.rpartition(".")[0])

    def hooks(self, fqn: str, ancestors: Iterable[str]) -> Namespace:
        """What runs on the class as ``type`` makes it, in Python's order: the ``__set_name__`` of each member's
        value (``set_names``), then the first ``__init_subclass__`` among ``ancestors`` (the class's MRO after
        it); their edits, or why they cannot be known."""
        namespace = Namespace()
        self._set_names(namespace, fqn)
        for ancestor in ancestors:
            cls = self._graph.classes.get(ancestor)
            if cls is None or cls.method("__init_subclass__") is None:
                continue
            summary = self._graph.modules[self._graph.class_module[ancestor]]
            editor = self._editor_table(summary).get(f"{cls.qualname}.__init_subclass__")
            if editor is not None:
                self._edit_with(namespace, summary, editor, f"{ancestor}.__init_subclass__", 0)
            break
        return namespace

    def _set_names(self, namespace: Namespace, fqn: str) -> None:
        """``ids = PPField()`` in the body of ``fqn``: the ``__set_name__`` that the project class ``PPField`` has
        or inherits is called with the class, and what it sets there is the class's (a descriptor that adds
        ``to_pp_tensors`` to its owner). A callee that is no project class is not followed: the standard
        library's descriptors set nothing on their owner."""
        graph = self._graph
        cls = graph.classes[fqn]
        if not cls.made:
            return
        module, scope = graph.class_module[fqn], cls.qualname.rpartition(".")[0]
        for _name, callee, _line, conditional in cls.made:
            target = graph.resolve(module, callee, scope)
            if target not in graph.classes:
                continue
            owner = next((c for c in graph.mro(target) if c in graph.classes
                          and graph.classes[c].method("__set_name__") is not None), None)
            if owner is None:
                continue
            summary = graph.modules[graph.class_module[owner]]
            editor = self._editor_table(summary).get(f"{graph.classes[owner].qualname}.__set_name__")
            if editor is not None:
                with self._possibly(conditional):
                    self._edit_with(namespace, summary, editor, f"{owner}.__set_name__", 0)

    # -- building -------------------------------------------------------------------------------------------
    def _build(self, fqn: str) -> Namespace:
        graph = self._graph
        cls = graph.classes[fqn]
        summary = graph.modules[graph.class_module[fqn]]
        scope = cls.qualname.rpartition(".")[0]
        namespace = Namespace()
        if cls.opaque:
            what = f"made by `{cls.made_by}(...)`, and {cls.opaque}" if cls.made_by else cls.opaque
            namespace.unknown.append(Touch(what, summary.path, cls.opaque_line or cls.class_line))
        for name, what, line in cls.unread:
            namespace.unknown_names.setdefault(name, Touch(what, summary.path, line))
        if cls.metaclass:
            self._metaclass(namespace, summary, cls, scope)
        for decorator in reversed(cls.decorations):
            self._decorate(namespace, fqn, summary, scope, decorator)
        self._patch(namespace, fqn, cls, summary)
        return namespace

    def _metaclass(self, namespace: Namespace, summary: FileSummary, cls: ClassSummary, scope: str) -> None:
        target = self._graph.resolve(summary.module, cls.metaclass, scope)
        if not self._harmless_metaclass(target, set()):
            namespace.unknown.append(Touch(f"its metaclass `{target or cls.metaclass}` may rewrite its namespace, "
                                           "which the analysis cannot follow", summary.path, cls.class_line))

    def _harmless_metaclass(self, target: str | None, seen: set[str]) -> bool:
        """A known metaclass, or a project one whose body defines none of the hooks that see the namespace and
        whose bases are harmless too."""
        if target in HARMLESS_METACLASSES:
            return True
        cls = self._graph.classes.get(target or "")
        if cls is None or target in seen or any(cls.method(hook) or cls.assign(hook) for hook in METACLASS_HOOKS):
            return False
        seen.add(target)  # type: ignore[arg-type]
        module, scope = self._graph.class_module[target], cls.qualname.rpartition(".")[0]  # type: ignore[index]
        return all(self._harmless_metaclass(self._graph.resolve(module, base, scope), seen) for base in cls.bases) \
            and bool(cls.bases)

    def _decorate(self, namespace: Namespace, fqn: str, summary: FileSummary, scope: str,
                  decorator: Decorator) -> None:
        """Apply one decorator, as Python does: the class goes in, what it returns is bound to the name."""
        shown = decorator.name or "an expression"
        target = self._graph.resolve(summary.module, decorator.name, scope) if decorator.name else None
        if target in HARMLESS_DECORATORS:
            if target in FIELD_DECORATORS:
                self._fields(namespace, self._graph.classes[fqn], summary, target)  # type: ignore[arg-type]
            return
        touch = Touch(f"decorated by `{target or shown}` (line {decorator.line}), which the analysis cannot follow",
                      summary.path, decorator.line)
        found = self._editor_of(summary, decorator.name, target, scope)
        if found is None:
            namespace.unknown.append(touch)
            return
        editor_summary, qualname, label = found
        editor = self._editor_table(editor_summary).get(qualname)
        if decorator.called:  # a factory: what it returns is the decorator
            inner = [r[4:] for r in editor.returns if r.startswith("def:")] if editor is not None else []
            editor = self._editor_table(editor_summary).get(inner[0]) if len(inner) == 1 else None
            if editor is None:
                namespace.unknown.append(Touch(f"decorated by `{label}(...)` (line {decorator.line}), whose "
                                               "decorator the analysis cannot read", summary.path, decorator.line))
                return
        if editor is None:
            namespace.unknown.append(Touch(f"decorated by `{label}` (line {decorator.line}), which does not hand "
                                           "back the class it receives", summary.path, decorator.line))
            return
        namespace.followed.append(f"`{label}`")
        self._apply(namespace, editor_summary, editor, label, 0, fqn)

    @staticmethod
    def _fields(namespace: Namespace, cls: ClassSummary, summary: FileSummary, decorator: str) -> None:
        """A dataclass (or attrs class) field named as a transport method or hook (``to_pp_tensors: Optional[Callable]
        = None``) is stored on each instance by ``__init__``, from whatever the constructor is given: the class's
        own binding (None, a function that then gets no ``self``) is not what the helpers' ``isinstance`` check
        sees, so that name is unknown."""
        for each in cls.fields:
            if each.name in LOOKED_UP and "ClassVar" not in each.annotation:
                assign = cls.assign(each.name)
                line = assign.span.line if assign is not None else cls.class_line
                namespace.unknown_names.setdefault(each.name, Touch(
                    f"`{each.name}` is a field (`{decorator}`), which `__init__` stores on each instance (line "
                    f"{line})", summary.path, line))

    def _editor_of(self, summary: FileSummary, written: str, target: str | None,
                   scope: str) -> tuple[FileSummary, str, str] | None:
        """The module and qualname of the project function ``written`` names (also a method of a module-level
        instance: ``@registry.register``), and the name messages give it; None when it is none."""
        found = function_at(self._graph, target) if target else None
        if found is not None:
            return found[0], found[1], target  # type: ignore[return-value]
        head, _, rest = written.partition(".")
        owner_class = self._graph.resolve(summary.module, head, scope) if rest and "." not in rest else None
        if owner_class in self._graph.classes:  # ``Installer.install``: a method reached through its class
            method = self._graph.classes[owner_class].method(rest)  # type: ignore[index]
            kinds = {d.rsplit(".", 1)[-1] for d in method.decorators} if method is not None else set()
            if not kinds & {"staticmethod", "classmethod"}:
                return None  # a plain method takes the class as its ``self``: not what its edits are read for
            owner = self._graph.modules[self._graph.class_module[owner_class]]  # type: ignore[index]
            return owner, f"{self._graph.classes[owner_class].qualname}.{rest}", f"{owner_class}.{rest}"  # type: ignore[index]
        module_flow = next((f for f in summary.flows if f.qualname == ""), None)
        values = dict(module_flow.locals).get(head, ()) if module_flow is not None and rest else ()
        if len(values) != 1 or not values[0].endswith("()"):
            return None
        cls = self._graph.resolve(summary.module, values[0][:-2], scope)
        if cls not in self._graph.classes:
            return None
        owner = self._graph.modules[self._graph.class_module[cls]]  # type: ignore[index]
        return owner, f"{self._graph.classes[cls].qualname}.{rest}", f"{cls}.{rest}"  # type: ignore[index]

    def _apply(self, namespace: Namespace, summary: FileSummary, editor: ClassEditor, label: str, depth: int,
               fqn: str) -> None:
        """A decorator's body run on the class: its edits, then what it hands back bound to the class's name."""
        if not self._edit_with(namespace, summary, editor, label, depth):
            return
        returns = set(editor.returns)
        line = editor.line
        touch = Touch(f"decorated by `{label}`, which hands back something other than the class it receives (line "
                      f"{line})", summary.path, line)
        replacing = [r[6:] for r in returns if r.startswith("class:")]
        calls = [r[5:] for r in returns if r.startswith("call:")]
        if returns - {"param"} - {f"class:{r}" for r in replacing} - {f"call:{c}" for c in calls} or \
                len(replacing) > 1 or (replacing and returns != {f"class:{replacing[0]}"}):
            namespace.unknown.append(touch)
            return
        for callee in calls:
            if not self._call_on_class(namespace, summary, editor, callee, depth, fqn, label):
                return
        if replacing:
            self._replacement(namespace, summary, editor, replacing[0], label, touch)

    def _call_on_class(self, namespace: Namespace, summary: FileSummary, editor: ClassEditor, callee: str,
                       depth: int, fqn: str, label: str) -> bool:
        """``return other(cls)`` (or ``other(...)(cls)``): the class goes through another decorator."""
        called = callee.endswith("()")
        written = callee[:-2] if called else callee
        target = self._graph.resolve(summary.module, written, editor.qualname)
        if target in HARMLESS_DECORATORS:
            return True
        found = self._editor_of(summary, written, target, editor.qualname)
        inner = self._editor_table(found[0]).get(found[1]) if found is not None else None
        if called and inner is not None:
            defs = [r[4:] for r in inner.returns if r.startswith("def:")]
            inner = self._editor_table(found[0]).get(defs[0]) if len(defs) == 1 else None  # type: ignore[index]
        if inner is None or depth >= _DEPTH:
            namespace.unknown.append(Touch(f"decorated by `{label}`, which hands the class to `{target or written}`"
                                           f" (line {editor.line}), which the analysis cannot follow",
                                           summary.path, editor.line))
            return False
        self._apply(namespace, found[0], inner, found[2], depth + 1, fqn)  # type: ignore[index]
        return True

    def _replacement(self, namespace: Namespace, summary: FileSummary, editor: ClassEditor, qualname: str,
                     label: str, touch: Touch) -> None:
        """A class the decorator makes on the one it receives (``class Wrapped(cls)``, ``type(cls.__name__, (cls,
        Mixin), {...})``): what the name then holds has the class's members, the new class's own over them, and
        the other bases after them."""
        made = next((c for c in summary.classes if c.qualname == qualname), None)
        if made is None or not made.bases or made.bases[0] != editor.param or made.opaque:
            namespace.unknown.append(touch)
            return
        scope = qualname.rpartition(".")[0]
        site = Site(summary.path, summary.module, scope)
        for method in made.methods:
            namespace.added[method.name] = Added(method.name, method, None,
                                                 f"added by `{label}` (line {method.span.line})", site)
        for assign in made.assigns:
            function = self.function(summary.module, assign.value, scope) if assign.value != "none" else None
            namespace.added[assign.name] = Added(assign.name, function[0].method if function else None,
                                                 None if function else assign,
                                                 f"added by `{label}` (line {assign.span.line})",
                                                 function[1] if function else site)
        for base in made.bases[1:]:
            namespace.extra_bases.append((base, self._graph.resolve(summary.module, base, scope) or ""))

    def _edit_with(self, namespace: Namespace, summary: FileSummary, editor: ClassEditor, label: str,
                   depth: int) -> bool:
        """The editor's edits and the calls it hands the class to; False when one of them makes it unknown."""
        for edit in editor.edits:
            self._set(namespace, summary, edit, f"by `{label}` (line {edit.span.line})", "added")
        for escape in editor.escapes:
            if not self._escape(namespace, summary, editor, escape.callee, escape.first, escape.line, label, depth):
                return False
        return not namespace.unknown

    def _escape(self, namespace: Namespace, summary: FileSummary, editor: ClassEditor, callee: str, first: bool,
                line: int, label: str, depth: int) -> bool:
        """The class handed to a call inside a decorator: a project function that takes it first is followed (what
        it returns does not matter here), a method of some object is bookkeeping (``REGISTRY.append(cls)``),
        anything else is unknown."""
        target = self._graph.resolve(summary.module, callee, editor.qualname)
        if target in HARMLESS_DECORATORS or (target is None and "." in callee):
            return True
        found = function_at(self._graph, target) if target else None
        if found is not None and first and depth < _DEPTH:
            inner = self._editor_table(found[0]).get(found[1])
            if inner is None:
                return True  # it neither changes nor passes on what it is handed
            return self._edit_with(namespace, found[0], inner, target, depth + 1)  # type: ignore[arg-type]
        namespace.unknown.append(Touch(f"`{label}` hands the class to `{target or callee}` (line {line}), which the "
                                       "analysis cannot follow", summary.path, line))
        return False

    def _set(self, namespace: Namespace, summary: FileSummary, edit: NamespaceEdit, where: str, verb: str) -> None:
        """One edit, as the class's namespace sees it; its origin is ``verb`` ("added", "set", or "deleted" for a
        ``del``) and ``where`` ("by `pkg.deco.pp_fields` (line 14)", "at line 52 after the class")."""
        line = edit.span.line
        origin = f"{'deleted' if edit.kind == 'delete' else verb} {where}"
        if edit.kind == "opaque":
            namespace.unknown.append(Touch(f"{edit.how} (line {line}) changes its namespace in a way the analysis "
                                           "cannot follow", summary.path, line))
            return
        conditional = edit.conditional or self._maybe
        if conditional and (edit.kind == "delete" or edit.value == "none"):
            namespace.unknown_names[edit.name] = Touch(
                f"`{edit.name}` is {'deleted' if edit.kind == 'delete' else 'set to None'} under a condition "
                f"(line {line})", summary.path, line)
            return
        origin = f"{origin}, under a condition" if conditional else origin
        site = Site(summary.path, summary.module, edit.scope)
        if edit.kind == "delete":
            namespace.added[edit.name] = Added(edit.name, None, None, origin, site, deleted=True)
            return
        function = self._function_table(summary).get(edit.function) if edit.function else None
        located: tuple[FunctionSummary, Site] | None = (
            (function, Site(summary.path, summary.module, edit.function.rpartition(".")[0])) if function
            else self.function(summary.module, edit.value, edit.scope) if edit.value not in ("", "none") else None)
        wrapped = edit.how in _BINDINGS or edit.how.startswith("partial:")  # ``staticmethod(_pack)``, ``partial(...)``
        binding = edit.how if wrapped else ""  # as that wrapper binds it (``MethodSummary.bound_as``)
        assign = MemberAssign(edit.name, edit.value, edit.span, binding)
        method = located[0].method if located else None
        if method is not None and binding:
            method = method.bound_as(binding)
        namespace.added[edit.name] = Added(edit.name, method, None if located else assign, origin,
                                           located[1] if located else site)
        namespace.unknown_names.pop(edit.name, None)

    # -- assignments outside the class ---------------------------------------------------------------------
    def _patch(self, namespace: Namespace, fqn: str, cls: ClassSummary, summary: FileSummary) -> None:
        """The module-level assignments to the class: its own module's after the class, in line order, then other
        modules'. Two modules setting one name run in import order, which is not known."""
        own = [edit for edit in summary.edits if (edit.span.line > cls.class_line or edit.scope)
               and self._reaches(summary, edit, fqn)]
        for edit in sorted(own, key=lambda e: e.span.line):
            self._one_patch(namespace, fqn, summary, edit, f"at line {edit.span.line} after the class")
        if own:
            namespace.followed.append(f"`{summary.module}`")
        self._index_patches()
        foreign = (self._patches or {}).get(fqn, [])
        by_module: dict[str, str] = {}  # a module importing the class runs after it: only two such can clash
        for other, edit in foreign:
            earlier = by_module.setdefault(edit.name, other.module)
            if earlier != other.module and edit.name:
                namespace.unknown_names[edit.name] = Touch(
                    f"`{edit.name}` is set both in `{earlier}` and in `{other.module}` (line {edit.span.line}), in an "
                    "order that depends on which is imported first", other.path, edit.span.line)
                continue
            self._one_patch(namespace, fqn, other, edit, f"in `{other.module}` at line {edit.span.line}")
        namespace.followed.extend(dict.fromkeys(f"`{other.module}`" for other, _ in foreign))

    def _one_patch(self, namespace: Namespace, fqn: str, summary: FileSummary, edit: NamespaceEdit,
                   where: str) -> None:
        if edit.kind == "decorate":  # ``Out = deco(Out)``: as ``@deco`` would
            if edit.conditional:
                namespace.unknown.append(Touch(f"rebound to `{edit.how}(...)` under a condition (line "
                                               f"{edit.span.line})", summary.path, edit.span.line))
                return
            called = edit.how.endswith("()")
            self._decorate(namespace, fqn, summary, edit.scope,
                           Decorator(edit.how[:-2] if called else edit.how, called, edit.span.line))
            return
        if edit.kind == "call":
            with self._possibly(edit.conditional):
                self._call_patch(namespace, fqn, summary, edit)
            return
        if edit.scope and edit.kind != "opaque":  # in a function: when it runs, and whether, is not known
            on = " on a class `globals()` looks up" if edit.target == GLOBALS else ""
            namespace.unknown_names[edit.name] = Touch(
                f"`{edit.name}` is set{on} in `{summary.module}.{edit.scope}` (line {edit.span.line}), which may run "
                "at any time", summary.path, edit.span.line)
            return
        self._set(namespace, summary, edit, where, "set")

    @contextlib.contextmanager
    def _possibly(self, conditional: bool) -> Iterator[None]:
        """The edits applied inside may not run (``conditional``): ``_set`` marks what they add, and makes what
        they delete or set to None unknown."""
        self._maybe, before = self._maybe or conditional, self._maybe
        try:
            yield
        finally:
            self._maybe = before

    def _call_patch(self, namespace: Namespace, fqn: str, summary: FileSummary, edit: NamespaceEdit) -> None:
        """The class handed to a call: a factory's decorator (at module level, first), or a project function."""
        factory = "" if edit.scope or edit.value == LATER else \
            edit.how[:-2] if edit.how.endswith("()") else _factory_bound_to(summary, edit.how)
        if factory:  # ``pp_fields("ids")(Out)`` or ``_deco(Out)`` (``_deco = pp_fields(..)``)
            if self._is_project_function(summary.module, factory):  # an outside registry's leaves it alone
                self._decorate(namespace, fqn, summary, edit.scope, Decorator(factory, True, edit.span.line))
            return
        self._handed(namespace, summary, edit)

    def _is_project_function(self, module: str, name: str) -> bool:
        target = self._graph.resolve(module, name, "")
        return target is not None and flow_at(self._graph, target) is not None

    def _handed(self, namespace: Namespace, summary: FileSummary, edit: NamespaceEdit) -> None:
        """``install_transport(Out, "to", fn)`` at module level: a project function (or a static or class method, or a
        method of a module-level instance: ``REGISTRY.install(Out)``) that edits what it is handed first runs on the
        class as a decorator's body does, and says so where what it did cannot be followed. Handed to such a
        function in another argument (its edits are read for the first), or inside a function (which may run at any
        time, or never), the class is unknown. Any other callee (a registry's ``register(Out)``, a library's, a
        project function that changes nothing it is handed) is taken to leave the class as it is."""
        written = edit.how
        target = self._graph.resolve(summary.module, written, edit.scope)
        found = self._editor_of(summary, written, target, edit.scope)
        editor = self._editor_table(found[0]).get(found[1]) if found is not None else None
        if editor is None or found is None:
            return
        label, line = found[2], edit.span.line
        namespace.followed.append(f"`{label}`")
        if edit.scope:
            namespace.unknown.append(Touch(f"handed to `{label}` in `{summary.module}.{edit.scope}` (line {line}), "
                                           "which may run at any time", summary.path, line))
        elif edit.value == LATER:
            namespace.unknown.append(Touch(f"handed to `{label}` (line {line}) other than as its first argument, "
                                           "which the analysis cannot follow", summary.path, line))
        elif not self._edit_with(namespace, found[0], editor, label, 0):
            namespace.unknown.insert(0, Touch(f"handed to `{label}` (line {line})", summary.path, line))

    def _reaches(self, summary: FileSummary, edit: NamespaceEdit, fqn: str) -> bool:
        """Whether the edit, written in the class's own module, is made to it (``globals()[name]``: it may be)."""
        return edit.target == GLOBALS or (bool(edit.target)
                                          and self._graph.resolve(summary.module, edit.target, edit.scope) == fqn)

    def _index_patches(self) -> None:
        """Which class each other module's edit reaches; an edit of a name the rules ask about that reaches no
        class the analysis can name makes that name unknown everywhere."""
        if self._patches is not None:
            return
        self._patches = {}
        graph = self._graph
        for summary in self._summaries:
            for edit in summary.edits:
                if edit.target == GLOBALS:
                    continue  # some class of its own module (``_patch``)
                target = graph.resolve(summary.module, edit.target, edit.scope) if edit.target and \
                    summary.module else None
                if target in graph.classes:
                    if graph.class_module[target] != summary.module:  # type: ignore[index]
                        self._patches.setdefault(target, []).append((summary, edit))  # type: ignore[arg-type]
                    continue
                if target is not None and (target in graph.known or function_at(graph, target) is not None):
                    continue  # an attribute of a project module or function
                if edit.name in LOOKED_UP:
                    self._unattributed.setdefault(edit.name, Touch(
                        f"`{edit.name}` is set on `{edit.target or 'an expression'}` (line {edit.span.line}), which "
                        "may be any class", summary.path, edit.span.line))

    # -- the summaries' tables -------------------------------------------------------------------------------
    def _editor_table(self, summary: FileSummary) -> dict[str, ClassEditor]:
        table = self._editors.get(summary.path)
        if table is None:
            table = self._editors[summary.path] = {e.qualname: e for e in summary.editors}
        return table

    def _function_table(self, summary: FileSummary) -> dict[str, FunctionSummary]:
        table = self._functions.get(summary.path)
        if table is None:
            table = self._functions[summary.path] = {f.qualname: f for f in summary.functions}
        return table


def _factory_bound_to(summary: FileSummary, name: str) -> str:
    """The dotted callee whose call the module binds ``name`` to, once (``_deco = pp_fields("ids")``), from the
    module's own flow (its locals bound to calls); "" otherwise."""
    if not name or "." in name:
        return ""
    module = next((flow for flow in summary.flows if flow.qualname == ""), None)
    values = dict(module.locals).get(name, ()) if module is not None else ()
    try:
        node = ast.parse(values[0], mode="eval").body if len(values) == 1 else None
    except (SyntaxError, ValueError, RecursionError):
        return ""
    callee = ast.unparse(node.func) if isinstance(node, ast.Call) else ""
    return callee if callee.replace(".", "").replace("_", "").isalnum() else ""  # a dotted name, nothing else
