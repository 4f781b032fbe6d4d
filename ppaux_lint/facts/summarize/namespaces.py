"""What code outside a class's body does to classes: the facts a class's final namespace is made from.

Produces ``FileSummary.edits`` (``NamespaceEdit``), ``FileSummary.editors`` (``ClassEditor``),
``FileSummary.functions`` (``FunctionSummary``) and the ``ClassSummary`` of each ``type(name, bases, ns)``
call. Python builds a class with code that runs around its statement: decorators that set methods on the class
they receive (``cls.to_pp_tensors = fn``) or return another class, assignments after it
(``Out.to_pp_tensors = fn``, ``setattr(Out, "to_pp_tensors", fn)``, also in a loop over a literal tuple of
classes), and ``type(...)`` calls that make a class without a statement. This module records what each
statement of the file does to which name, as written; which class a name is, across files, and in which order
the edits run is the index's question (``index/namespaces.py``).

It reads statements only, as ``flows`` does, fed by the walker: an edit of a class is a statement (an
assignment, a ``del``, a ``setattr`` call standing alone). Two forms that hide inside expressions are looked
for only in files whose text holds them (``vars(`` and ``__dict__``), since they make a namespace unreadable
wherever they are.

Inside a function, an edit of the parameter a class arrives in makes the function a ``ClassEditor``; an edit of
a class-like global name (``Out.x = ...`` in a function that may run at any time) is an edit with the
function's ``scope``, which the index cannot order and so takes for unknown.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import field, replace

from ppaux_lint.contract.names import (
    AFTER_FORWARD,
    AFTER_SAMPLE,
    LOOKED_UP,
    TRANSPORT_METHODS,
    is_class_like,
    is_near_miss,
)
from ppaux_lint.facts.summarize.flow import can_fall_through
from ppaux_lint.facts.summarize.methods import summarize_method
from ppaux_lint.facts.summarize.syntax import (
    TRY_STATEMENTS,
    Scope,
    called_name,
    dotted,
    is_none,
    qualname,
    stored_targets,
    string,
    unwrapped,
)
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summary import (
    GLOBALS,
    LATER,
    ClassEditor,
    ClassSummary,
    Escape,
    FunctionSummary,
    MemberAssign,
    MethodSummary,
    NamespaceEdit,
)
from ppaux_lint.support.records import dataclass

_DETAILED = frozenset({*TRANSPORT_METHODS, AFTER_SAMPLE, AFTER_FORWARD})
_SETATTR = {"setattr": "set", "delattr": "delete", "type.__setattr__": "set", "type.__delattr__": "delete"}
# (``object.__setattr__(Out, ...)`` raises TypeError on a class: it sets nothing there)
_MAKER_MODULES = {"make_dataclass": "dataclasses", "new_class": "types"}
_MAKER_CALLS = frozenset(f"{module}.{name}" for name, module in _MAKER_MODULES.items())  # besides ``type(...)``
_COMPUTED = "with a computed name"  # the ``how`` of an opaque ``setattr``
_UNNAMED = "<comprehension>"  # an edit's target that no name resolves to: it may reach any class
_PLAIN = frozenset({ast.Name, ast.Constant})  # values that hold no call (nor does a dotted name)
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_MUTABLE = frozenset({ast.List, ast.Set})
# Where a module's text names a word, binds it, and loops over it (``_only_looped``).
_WORD = re.compile(r"(?<![\w.])(\w+)")
_BOUND = re.compile(r"(?<![\w.])(\w+)\s*(?::[^=\n]*)?=(?!=)")
_LOOPED = re.compile(r"\bin\s+(\w+)\s*:")
_CONDITIONAL = frozenset({ast.If, ast.While, *TRY_STATEMENTS, ast.Match})
# Builtins that only read the class they are handed: passing it to them changes nothing.
_READERS = frozenset({
    "isinstance", "issubclass", "getattr", "hasattr", "print", "repr", "str", "id", "len", "callable", "hash",
    "super", "type", "sorted", "list", "tuple", "set", "frozenset", "format", "iter", "bool", "any", "all",
    "dir", "ascii"})


@dataclass
class _Frame:
    """One function while its body is walked: the parameter a class would arrive in, what is done to it."""

    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    param: str  # "" when it takes no parameter that could be a class
    params: frozenset[str]
    implicit: str = ""  # a method's own ``self`` (or ``cls``): what it sets there is the instance's, or the class's
    loose: bool = False  # it sets a name the rules ask about on an object it cannot name (``_loose``)
    defs: dict[str, str] = field(default_factory=dict)  # name -> qualname of the functions defined in it
    classes: dict[str, str] = field(default_factory=dict)  # name -> qualname of the classes made in it
    local_names: set[str] = field(default_factory=set)
    looked_up: set[str] = field(default_factory=set)  # locals bound to ``globals()[...]``: a class of the module
    drawn: dict[str, str] = field(default_factory=dict)  # a loop's variable -> the module's name it runs over
    # (or whose call it runs over: ``REGISTRY.values()``)
    edits: list[NamespaceEdit] = field(default_factory=list)
    escapes: list[Escape] = field(default_factory=list)
    returns: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Region:
    """A compound statement whose body may not run (``loop`` empty), or a loop over a literal tuple or list whose
    variable ``loop`` takes each of ``values`` in turn."""

    scope: Scope
    start: int
    end: int
    loop: str = ""
    values: tuple[str, ...] = ()


class Namespaces:
    """The edits, class editors, ``type(...)`` classes and bindable functions of one module, fed by the walker:
    ``enter_function``/``leave_function`` and ``enter_class``/``leave_class`` around each body, ``statement`` for
    every other statement, in source order."""

    def __init__(self, positions: Positions) -> None:
        self.positions = positions
        self.edits: list[NamespaceEdit] = []
        self.editors: list[ClassEditor] = []
        self.classes: list[ClassSummary] = []  # made by type(...)
        self.functions: list[FunctionSummary] = []
        self._frames: list[_Frame | None] = []  # None: a class body
        self._regions: list[_Region] = []
        self._tuples: dict[tuple[Scope, str], tuple[str, ...]] = {}  # literal tuples of names bound in a scope
        self._word_counts: tuple[Counter[str], Counter[str], Counter[str]] | None = None  # ``_only_looped``
        self._module_defs: dict[str, str] = {}
        self._defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # qualname -> every non-method def
        self._wanted: set[str] = set()  # qualnames bound into a class somewhere in this file
        text = positions.text
        self._hidden = "__dict__" in text or "vars(" in text  # forms found only by walking expressions
        self._masked: set[str] = set()  # the variables of the comprehensions being walked (``_comprehension``)

    # -- the walker's hooks ------------------------------------------------------------------------------
    def enter_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        name = qualname(scope, node.name)
        in_class = bool(scope) and scope[-1][0] == "class"
        positional = [a.arg for a in node.args.posonlyargs + node.args.args]
        decorators = {called_name(d).rsplit(".", 1)[-1] for d in node.decorator_list}
        skip = 1 if in_class and "staticmethod" not in decorators and node.name != "__init_subclass__" else 0
        param = positional[skip] if len(positional) > skip else ""
        every = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                                 node.args.vararg, node.args.kwarg) if a is not None}
        if not in_class:
            self._defs[name] = node
            parent = self._frames[-1] if self._frames else None
            if parent is not None:
                parent.defs[node.name] = name
            elif not scope:
                self._module_defs[node.name] = name
        implicit = positional[0] if skip and positional else ""
        self._frames.append(_Frame(name, node, param, frozenset(every), implicit))

    def leave_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        frame = self._frames.pop()
        assert frame is not None
        if frame.param and self._hidden and self._mentions_namespace(node):
            frame.edits.extend(self._hidden_edits(node.body, frame.param, frame.qualname))
        hands_back = any(r == "param" or r.startswith(("def:", "class:", "call:")) for r in frame.returns)
        factory = any(r.startswith("def:") for r in frame.returns)  # ``pp_fields(*names)``: its result decorates
        if (frame.param and (hands_back or frame.edits or frame.escapes)) or factory or frame.loose:
            if can_fall_through(node.body):  # asked only of an editor: most functions are none
                frame.returns.append("none")
            self.editors.append(ClassEditor(frame.qualname, frame.param, node.lineno, tuple(frame.edits),
                                            tuple(frame.escapes), tuple(dict.fromkeys(frame.returns))))

    def enter_class(self, node: ast.ClassDef, scope: Scope) -> None:
        frame = self._frames[-1] if self._frames else None
        if frame is not None:
            frame.classes[node.name] = qualname(scope, node.name)
        self._frames.append(None)

    def leave_class(self) -> None:
        self._frames.pop()

    def statement(self, node: ast.stmt, scope: Scope) -> None:
        frame = self._frames[-1] if self._frames else None
        if frame is None and scope:
            return  # a class body: summarized with its class
        line = node.lineno
        if self._regions and self._regions[-1].end < line:
            self._regions = [r for r in self._regions if r.end >= line]
        kind = type(node)  # ``ast.parse`` makes no subclasses: one look at the type, not a chain of isinstance
        if kind in _CONDITIONAL:
            self._regions.append(_Region(scope, line, node.end_lineno or line))
        elif kind is ast.For or kind is ast.AsyncFor:
            values = self._literal(node.iter, scope) if type(node.target) is ast.Name else None  # type: ignore[attr-defined]
            if frame is not None and values is None and type(node.target) is ast.Name:  # type: ignore[attr-defined]
                source = node.iter.func if type(node.iter) is ast.Call else node.iter  # type: ignore[attr-defined]
                if dotted(source) and self._global(dotted(source), frame):  # ``OUTPUTS``, ``REGISTRY.values()``
                    frame.drawn[node.target.id] = dotted(source) + ("()" if source is not node.iter else "")  # type: ignore[attr-defined]
            loop = node.target.id if values is not None else ""  # type: ignore[attr-defined]
            self._regions.append(_Region(scope, line, node.end_lineno or line, loop, values or ()))
        elif kind is ast.Return:
            if frame is not None:
                frame.returns.append(self._returned(node.value, frame, scope))  # type: ignore[attr-defined]
        elif kind is ast.Assign:
            self._assign(node, node.targets, node.value, scope, frame)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            if node.value is not None:  # type: ignore[attr-defined]
                self._assign(node, [node.target], node.value, scope, frame)  # type: ignore[attr-defined]
        elif kind is ast.AugAssign:
            self._assign(node, [node.target], None, scope, frame)  # type: ignore[attr-defined]
        elif kind is ast.Delete:
            for target in node.targets:  # type: ignore[attr-defined]
                if isinstance(target, ast.Attribute):
                    self._edit(dotted(target.value), target.attr, "delete", None, target, scope, frame)
                else:
                    self._hidden_target(target, scope, frame)
        elif kind is ast.Expr and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            self._call(node.value, scope, frame)  # type: ignore[attr-defined]
        elif kind is ast.Expr and frame is None and not scope and type(node.value) not in _PLAIN:  # type: ignore[attr-defined]
            self._handed_inside(node.value, None, scope)  # type: ignore[attr-defined]  # ``[setattr(c, ...) for c in ...]``

    def finish(self, classes: Sequence[ClassSummary]) -> None:
        """Summarize the functions that may become methods (``FunctionSummary``): those this file binds into
        a class, and those that look like methods written outside a class."""
        for cls in classes:
            for assigned in cls.assigns:
                target = self._module_defs.get(assigned.value)
                if target is not None:
                    self._wanted.add(target)
        for name, node in self._defs.items():
            positional = node.args.posonlyargs + node.args.args
            if (name in self._wanted or node.name in _DETAILED or (positional and positional[0].arg == "self")
                    or any(is_near_miss(node.name, m) for m in TRANSPORT_METHODS)):
                self.functions.append(FunctionSummary(name, summarize_method(node, self.positions, detailed=True)))

    # -- statements ---------------------------------------------------------------------------------------
    def _only_looped(self, name: str) -> bool:
        """Whether the module's text names ``name`` only where it binds it (``NAME = [...]``) and where a loop
        runs over it (``for cls in NAME:``): then nothing in the module fills the list or hands it on. (Another
        module that imports it and appends to it is not seen.) The text is counted once per module, whatever
        the number of lists it binds."""
        if self._word_counts is None:
            text = self.positions.text
            self._word_counts = (Counter(_WORD.findall(text)), Counter(_BOUND.findall(text)),
                                 Counter(_LOOPED.findall(text)))
        every, bound, looped = self._word_counts
        return every[name] == bound[name] + looped[name]

    def _assign(self, node: ast.stmt, targets: list[ast.expr], value: ast.expr | None, scope: Scope,
                frame: _Frame | None) -> None:
        made = self._made_class(value, targets, scope, frame) if isinstance(value, ast.Call) else None
        for target in targets:
            if isinstance(target, ast.Name):
                decorator = _decorating(value, target.id) if frame is None else None
                if decorator is not None:  # ``Out = deco(Out)``: a decorator applied after the class
                    self._edit(target.id, "", "decorate", None, value, scope, frame, how=decorator)  # type: ignore[arg-type]
                if frame is not None:
                    frame.local_names.add(target.id)
                    if value is not None and _looks_up_globals(value):
                        frame.looked_up.add(target.id)
                    else:
                        frame.looked_up.discard(target.id)
                # a list or set bound to a name may be filled before it is read (``OUTPUTS.append(cls)`` in a
                # registering decorator): only a tuple's items are known wherever the name is read, and a list's
                # or set's where the module names it nowhere but where it binds it and where loops run over it
                values = self._literal(value, scope) if value is not None and (
                    type(value) not in _MUTABLE or (frame is None and self._only_looped(target.id))) else None
                if values is not None:
                    self._tuples[(scope, target.id)] = values
                else:
                    self._tuples.pop((scope, target.id), None)
            elif isinstance(target, ast.Attribute):
                owner = GLOBALS if _looks_up_globals(target.value) else dotted(target.value)
                self._edit(owner, target.attr, "set", value if made is None else None, target,
                           scope, frame)
            elif isinstance(target, (ast.Tuple, ast.List)):
                self._assign(node, [e.value if isinstance(e, ast.Starred) else e for e in target.elts], None,
                             scope, frame)
            else:
                self._hidden_target(target, scope, frame)
        if frame is not None and isinstance(value, ast.Call):
            self._escape(value, frame)
            self._handed(value, scope, frame)
        elif frame is None and not scope and value is not None and type(value) not in _PLAIN and not (
                type(value) is ast.Attribute and dotted(value)):
            self._handed_inside(value, value if any(type(t) is ast.Name and _decorating(value, t.id) is not None
                                                    for t in targets) else None, scope)

    def _call(self, call: ast.Call, scope: Scope, frame: _Frame | None) -> None:
        """A call standing alone: ``setattr``/``delattr`` on a class, ``vars(X).update(...)``, a class handed to a
        call (``_handed``), or a class editor's class handed on."""
        callee = dotted(call.func)
        if callee in _SETATTR and len(call.args) >= 2:
            self._setattr(call, callee, scope, frame)
        else:
            if self._hidden and isinstance(call.func, ast.Attribute):
                self._hidden_target(call.func.value, scope, frame)
            self._handed(call, scope, frame)
        if frame is not None:
            self._escape(call, frame)
        elif not scope:
            self._handed_inside(call, call, scope)

    def _setattr(self, call: ast.Call, callee: str, scope: Scope, frame: _Frame | None, target: str = "") -> None:
        """``setattr(Out, "to_pp_tensors", fn)``, ``delattr``, or the same through ``type.__setattr__``; ``target``
        stands for the first argument where it is no name of the module's."""
        target = target or dotted(call.args[0])
        kind = _SETATTR[callee]
        value = call.args[2] if kind == "set" and len(call.args) > 2 else None
        names = self._names(call.args[1], scope)
        if names is None:
            self._edit(target, "", "opaque", None, call, scope, frame, how=f"`{callee}` {_COMPUTED}")
        for name in names or ():
            self._edit(target, name, kind, value, call, scope, frame)

    def _handed(self, call: ast.Call, scope: Scope, frame: _Frame | None = None) -> None:
        """A class handed to a call, as "call" edits whose ``how`` is the callee. At module level, handed first:
        ``pp_fields("ids")(Out)`` (``how`` ends in "()", followed as the decorator when the factory is the project's,
        left alone as a registry's when it is not), or ``install_transport(Out, "to", fn)`` (followed when the
        function is the project's). Handed otherwise, the edit's ``value`` is ``LATER``: in another argument
        (``install(fn, Out)``), in a literal tuple or list (``enable_pp((A, B))``), or by name to a class the module
        binds a literal tuple of. ``map(enable_pp, (A, B))`` hands each one first, as a loop would, under a condition
        (nothing may consume the map). Inside a function (``frame``) only the module's classes count, not what the
        function has of its own."""
        callee = dotted(call.func)
        if callee in _READERS or (callee == "map" and len(call.args) == 2):
            if callee == "map" and dotted(call.args[0]):
                self._mapped(call, scope, frame)
            return
        first = dotted(call.args[0]) if call.args else ""
        if first and self._global(first, frame):
            decorator = _decorating(call, first) if frame is None else None
            if decorator is not None and decorator.endswith("()"):
                self._edit(first, "", "call", None, call, scope, frame, how=decorator)
            elif callee:
                self._edit(first, "", "call", None, call, scope, frame, how=callee)
        if not callee:
            return
        for index, argument in enumerate([*call.args, *(k.value for k in call.keywords)]):
            argument = argument.value if isinstance(argument, ast.Starred) else argument
            name = dotted(argument)
            names = ((name,) if index and name else ()) + (self._literal(argument, scope) or ())
            for each in names:
                if is_class_like(each.rsplit(".", 1)[-1]) and self._global(each, frame):
                    self._edit(each, "", "call", None, call, scope, frame, how=callee, later=True)

    def _mapped(self, call: ast.Call, scope: Scope, frame: _Frame | None) -> None:
        """``map(enable_pp, (A, B))``: each class handed first to the function, if the map is consumed."""
        region = _Region(scope, call.lineno - 1, call.end_lineno or call.lineno)  # no loop: a condition
        self._regions.append(region)
        for each in self._literal(call.args[1], scope) or ():
            if is_class_like(each.rsplit(".", 1)[-1]) and self._global(each, frame):
                self._edit(each, "", "call", None, call, scope, frame, how=dotted(call.args[0]))
        self._regions.remove(region)

    @staticmethod
    def _global(name: str, frame: _Frame | None) -> bool:
        """Whether ``name`` is the module's, not a parameter, local, function or class of the function running."""
        head = name.partition(".")[0]
        return frame is None or not (head in frame.params or head in frame.local_names or head in frame.defs
                                     or head in frame.classes)

    def _handed_inside(self, value: ast.expr, done: ast.expr | None, scope: Scope) -> None:
        """The same inside an expression at module level, where the call's result is put to other use
        (``OUTPUTS = [enable_pp(A), enable_pp(B)]``, ``x = pp_fields("ids")(Base).x``): the class is changed all the
        same. ``done`` is a call already read as a statement's own; a ``lambda``'s body does not run here, and a
        comprehension over a literal tuple of classes (``[enable_pp(c) for c in (A, B)]``) hands each one, as a
        ``for`` statement's loop does."""
        todo: list[ast.AST] = [value]
        while todo:
            node = todo.pop()
            kind = type(node)
            if kind is ast.Lambda:
                todo.extend(node.args.defaults)  # type: ignore[attr-defined]
                continue
            if kind in _COMPREHENSIONS:
                self._comprehension(node, done, scope)  # type: ignore[arg-type]
                continue
            if kind is ast.IfExp or kind is ast.BoolOp or (kind is ast.Compare and len(node.comparators) > 1):  # type: ignore[attr-defined]
                # the test, the first operand, the first comparison always run; the rest only as it goes
                first, rest = (node.test, (node.body, node.orelse)) if kind is ast.IfExp else \
                    (node.values[0], node.values[1:]) if kind is ast.BoolOp else \
                    (node.left, node.comparators)  # type: ignore[attr-defined]
                todo.append(first)
                if kind is ast.Compare:
                    todo.append(rest[0])
                    rest = rest[1:]
                self._under_a_condition(rest, done, scope, node)
                continue
            if kind is ast.Call and node is not done and node.args:  # type: ignore[attr-defined]
                callee = dotted(node.func)  # type: ignore[attr-defined]
                # a comprehension's own variable is not the module's name (``for Out in registry()``): what a
                # setattr sets on it reaches classes the analysis cannot name, and a call hands it nothing known
                own = dotted(node.args[0]).partition(".")[0] in self._masked  # type: ignore[attr-defined]
                if callee in _SETATTR and len(node.args) >= 2:  # type: ignore[attr-defined]
                    self._setattr(node, callee, scope, None, _UNNAMED if own else "")  # type: ignore[arg-type]
                elif not own:
                    self._handed(node, scope)  # type: ignore[arg-type]
            todo.extend(ast.iter_child_nodes(node))

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       done: ast.expr | None, scope: Scope) -> None:
        """The first iterable always runs; the element runs once per item, only as far as the filters let it, and a
        generator's only when something consumes it (all of which may not happen: a condition). A loop over a
        literal tuple of classes hands each one; over anything else, the loop's variables are its own names."""
        loops = node.generators
        self._handed_inside(loops[0].iter, done, scope)
        results = (node.key, node.value) if type(node) is ast.DictComp else (node.elt,)  # type: ignore[union-attr]
        parts = [*(loop.iter for loop in loops[1:]), *(test for loop in loops for test in loop.ifs), *results]
        values = self._literal(loops[0].iter, scope) if len(loops) == 1 and type(loops[0].target) is ast.Name \
            else None
        region = _Region(scope, node.lineno - 1, node.end_lineno or node.lineno, loops[0].target.id, values) \
            if values is not None else None  # type: ignore[attr-defined]
        masked = set() if region is not None else \
            {leaf.id for loop in loops for leaf in stored_targets(loop.target) if isinstance(leaf, ast.Name)}
        certain = region is not None and type(node) is not ast.GeneratorExp and not loops[0].ifs and bool(values)
        if region is not None:
            self._regions.append(region)
        added, self._masked = masked - self._masked, self._masked | masked
        if certain:
            for part in parts:
                self._handed_inside(part, done, scope)
        else:
            self._under_a_condition(parts, done, scope, node)
        self._masked -= added
        if region is not None:
            self._regions.remove(region)

    def _under_a_condition(self, parts: Sequence[ast.expr], done: ast.expr | None, scope: Scope,
                           node: ast.expr) -> None:
        """``parts`` as ``_handed_inside`` reads them, each edit marked as one that may not run."""
        region = _Region(scope, node.lineno - 1, node.end_lineno or node.lineno)  # no loop: a condition
        self._regions.append(region)
        for part in parts:
            self._handed_inside(part, done, scope)
        self._regions.remove(region)

    def _edit(self, target: str, name: str, kind: str, value: ast.expr | None, node: ast.AST, scope: Scope,
              frame: _Frame | None, how: str = "", later: bool = False) -> None:
        if not target:
            return
        if name == "__bases__" and kind != "call":  # ``Out.__bases__ = (Mixin, Base)``: a new MRO, read nowhere
            kind, name, how = "opaque", "", f"`{target}.__bases__` {'deleted' if kind == 'delete' else 'assigned'}"
        head = target.split(".", 1)[0]
        line = node.lineno  # type: ignore[attr-defined]
        own = frame is not None and target == frame.param
        if frame is not None and not own:
            if head in frame.looked_up and target == head:
                target = head = GLOBALS  # ``target = globals()[name]; target.to_pp_tensors = ...``
            elif head in frame.params or head in frame.local_names or not is_class_like(target.rsplit(".", 1)[-1]):
                if head in frame.drawn and target == head and name in LOOKED_UP and kind != "opaque":
                    # ``for cls in OUTPUTS: cls.to_pp_tensors = fn``: any class the module's name may hold
                    self.edits.append(NamespaceEdit(f"{frame.drawn[head]}[...]", name, kind, self.positions.span(node),
                                                    scope=frame.qualname))
                elif target != frame.implicit and (name in LOOKED_UP or _COMPUTED in how):
                    self._loose(frame, target, name, node)
                return  # an object of the function's own, or not a class by its name
        loop = None if own else next((r for r in reversed(self._regions) if r.loop == head and r.scope == scope
                                      and r.start < line <= r.end), None)
        if not own and loop is None and not is_class_like(target.rsplit(".", 1)[-1]) and name not in LOOKED_UP:
            return  # an object's attribute (``config.debug = True``), unless it is one the rules ask about (the
            # index cannot tell which classes such an edit reaches)
        span = self.positions.span(node)  # what is kept is worked out only now: most stores are dropped above
        conditional = any(r.scope == scope and r.start < line <= r.end and (not r.loop or not r.values)
                          for r in self._regions)  # a loop over an empty literal never runs its body
        binding = ""
        if kind == "set" and value is not None:
            value, binding = unwrapped(value)  # ``Out.to_pp_tensors = staticmethod(_pack)``: ``how`` says so
            how = how or binding
        text, function = self._value(value, scope, frame) if kind == "set" else (LATER if later else "", "")
        if own:
            frame.edits.append(NamespaceEdit(target, name, kind, span, text, function, frame.qualname,  # type: ignore[union-attr]
                                             conditional, how))
            return
        where = frame.qualname if frame is not None else ""
        for each in ([value + target[len(head):] for value in loop.values] if loop is not None else [target]):
            self.edits.append(NamespaceEdit(each, name, kind, span, text, function, where, conditional, how))

    def _loose(self, frame: _Frame, target: str, name: str, node: ast.AST) -> None:
        """A function that sets a name the rules ask about (or a computed one) on an object it cannot name: a
        parameter other than the one a class arrives in, a loop's variable, a local (``def enable_pp(*classes): for
        c in classes: c.to_pp_tensors = fn``). Whatever class it is handed, in whatever argument, may be that
        object: an opaque edit makes the function a ``ClassEditor`` whose classes are unknown."""
        frame.loose = True
        frame.edits.append(NamespaceEdit(frame.param, "", "opaque", self.positions.span(node), scope=frame.qualname,
                                         how=f"setting `{target}.{name or '<computed name>'}` on what may be any "
                                             "class it is handed"))

    def _value(self, value: ast.expr | None, scope: Scope, frame: _Frame | None) -> tuple[str, str]:
        """(the value as an edit records it, the qualname of the function it is in this module or "")."""
        if value is None:
            return "", ""
        if is_none(value):
            return "none", ""
        if isinstance(value, ast.Lambda):
            return "", self._lambda(value, scope)
        text = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
        function = ""
        if isinstance(value, ast.Name):
            for each in reversed(self._frames):
                if each is not None and value.id in each.defs:
                    function = each.defs[value.id]
                    break
            else:
                function = self._module_defs.get(value.id, "")
        if function:
            self._wanted.add(function)
        return text, function

    def _lambda(self, node: ast.Lambda, scope: Scope, name: str = "") -> str:
        """A ``lambda`` bound into a class, summarized as the method it becomes; its qualname in this file."""
        key = qualname(scope, f"<lambda>@{node.lineno}:{node.col_offset}")
        self.functions.append(FunctionSummary(key, self._lambda_method(node, name or key)))
        return key

    def _lambda_method(self, node: ast.Lambda, name: str) -> MethodSummary:
        body = ast.copy_location(ast.Return(value=node.body), node.body)
        function = ast.copy_location(ast.FunctionDef(name=name, args=node.args, body=[body], decorator_list=[],
                                                     returns=None, type_params=[]), node)
        return replace(summarize_method(function, self.positions, detailed=True), span=self.positions.span(node))

    def _escape(self, call: ast.Call, frame: _Frame) -> None:
        """A class editor's class passed to a call: the callee may change it."""
        if not frame.param:
            return
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if not any(isinstance(a, ast.Name) and a.id == frame.param for a in arguments):
            return
        callee = dotted(call.func)
        head = callee.split(".", 1)[0]
        if callee in _READERS or callee in _SETATTR or (
                "." in callee and (head in frame.params or head in frame.local_names)):
            return  # a builtin that reads it, an edit (recorded), or bookkeeping on the function's own objects
        first = bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == frame.param
        frame.escapes.append(Escape(callee, call.lineno, first))

    def _returned(self, value: ast.expr | None, frame: _Frame, scope: Scope) -> str:
        if value is None or is_none(value):
            return "none"
        if isinstance(value, ast.Name):
            if value.id == frame.param:
                return "param"
            if value.id in frame.defs:
                return f"def:{frame.defs[value.id]}"
            if value.id in frame.classes:
                return f"class:{frame.classes[value.id]}"
            return "other"
        if isinstance(value, ast.Call):
            made = self._made_class(value, [], scope, frame)
            if made is not None:
                return f"class:{made}"
            if value.args and isinstance(value.args[0], ast.Name) and value.args[0].id == frame.param:
                self._escape(value, frame)
                if isinstance(value.func, ast.Call) and dotted(value.func.func):
                    return f"call:{dotted(value.func.func)}()"
                if dotted(value.func):
                    return f"call:{dotted(value.func)}"
        return "other"

    # -- type(name, bases, namespace) -------------------------------------------------------------------------
    def _made_class(self, call: ast.expr | None, targets: list[ast.expr], scope: Scope,
                    frame: _Frame | None) -> str | None:
        """The qualname of the class a ``type(name, bases, namespace)``, ``dataclasses.make_dataclass(name, fields,
        bases=..., namespace=...)`` or ``types.new_class(name, bases)`` call makes (its ``ClassSummary`` added), or
        None when the call is no such call."""
        made = self._maker(call) if isinstance(call, ast.Call) else None
        if made is None:
            return None
        maker, name_arg, bases_arg, namespace, opaque = made
        bound = next((t.id for t in targets if isinstance(t, ast.Name)), None)
        name = bound or string(name_arg) or f"<type@{call.lineno}>"  # type: ignore[union-attr]
        bases: list[str] = []
        if isinstance(bases_arg, (ast.Tuple, ast.List)) and all(dotted(b) for b in bases_arg.elts):
            bases = [dotted(b) for b in bases_arg.elts]
        else:
            opaque = opaque or "its bases are built at run time"
        methods: list[MethodSummary] = []
        assigns: list[MemberAssign] = []
        if not isinstance(namespace, ast.Dict) or any(string(k) is None for k in namespace.keys):
            opaque = opaque or "its namespace is built at run time"
        else:
            for key, written in zip(namespace.keys, namespace.values, strict=True):
                member = string(key) or ""
                value, binding = unwrapped(written)
                if isinstance(value, ast.Lambda):
                    method = self._lambda_method(value, member)
                    methods.append(method.bound_as(binding) if binding else method)
                    continue
                text, function = self._value(value, scope, frame)
                assigns.append(MemberAssign(member, function if function and "<locals>" in function else text,
                                            self.positions.span(key), binding))  # type: ignore[arg-type]
        summary = ClassSummary(name=name, qualname=qualname(scope, name), span=self.positions.span(call.func),  # type: ignore[union-attr]
                               class_line=call.lineno, bases=tuple(bases), decorators=(), methods=tuple(methods),  # type: ignore[union-attr]
                               assigns=tuple(assigns), made_by=maker, opaque=opaque)
        self.classes.append(summary)
        if frame is not None:
            frame.classes[name] = summary.qualname
        return summary.qualname

    def _maker(self, call: ast.Call) -> tuple[str, ast.expr, ast.expr, ast.expr, str] | None:
        """(the maker as messages name it, the name, bases and namespace arguments, why the namespace cannot be
        read or "") of a call that makes a class; None for any other call. ``make_dataclass`` and ``new_class``
        count as written with their module, or by name where the file imports them from it (the text says so)."""
        callee = dotted(call.func)
        args = call.args
        if callee == "type" and len(args) == 3 and not call.keywords:
            return "type", args[0], args[1], args[2], ""
        maker = callee.rpartition(".")[2] if callee in _MAKER_CALLS or (
            callee in _MAKER_MODULES and f"from {_MAKER_MODULES[callee]} import" in self.positions.text) else ""
        if not maker:
            return None
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        empty_tuple, empty_dict = ast.Tuple(elts=[], ctx=ast.Load()), ast.Dict(keys=[], values=[])
        if maker == "make_dataclass" and args and len(args) <= 2 and all(k.arg for k in call.keywords):
            fields = args[1] if len(args) > 1 else keywords.get("fields")
            named = [string(f.elts[0]) if isinstance(f, ast.Tuple) and f.elts else string(f)
                     for f in (fields.elts if isinstance(fields, (ast.List, ast.Tuple)) else ())]
            looked_up = next((n for n in named if n in LOOKED_UP), None)
            namespace = keywords.get("namespace", empty_dict)
            return ("make_dataclass", args[0], keywords.get("bases", empty_tuple),
                    empty_dict if is_none(namespace) else namespace,
                    f"its field `{looked_up}` is stored on each instance" if looked_up else "")
        if maker == "new_class" and args and all(k.arg for k in call.keywords):
            rest = dict(zip(("bases", "kwds", "exec_body"), args[1:], strict=False)) | keywords
            body, kwds = rest.get("exec_body"), rest.get("kwds")
            opaque = f"`{ast.unparse(body)}` fills its namespace" if body is not None and not is_none(body) else \
                "it is given class keywords" if kwds is not None and not is_none(kwds) and not (
                    isinstance(kwds, ast.Dict) and not kwds.keys) else ""
            return "new_class", args[0], rest.get("bases", empty_tuple), empty_dict, opaque
        return None

    # -- what hides in expressions ------------------------------------------------------------------------
    def _hidden_target(self, node: ast.expr, scope: Scope, frame: _Frame | None) -> None:
        """``vars(X)[...] = ...``, ``X.__dict__.update(...)``: the namespace of ``X`` changed unreadably."""
        if not self._hidden:
            return
        while isinstance(node, (ast.Subscript, ast.Attribute)) and not _namespace_of(node):
            node = node.value
        target = _namespace_of(node)
        if target:
            self._edit(target, "", "opaque", None, node, scope, frame, how=f"`{_shown(node)}`")

    def _mentions_namespace(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether the function's own lines hold ``vars(`` or ``__dict__``: a file that does somewhere has its
        functions walked only where they do."""
        lines = self.positions.lines(node.lineno, node.end_lineno or node.lineno)
        return any("__dict__" in line or "vars(" in line for line in lines)

    def _hidden_edits(self, body: list[ast.stmt], param: str, where: str) -> list[NamespaceEdit]:
        """``vars(cls)`` or ``cls.__dict__`` anywhere in a class editor's body (a read too: it may be changed
        through what it gives)."""
        found = []
        for node in (n for stmt in body for n in ast.walk(stmt)):
            if isinstance(node, (ast.Call, ast.Attribute)) and _namespace_of(node) == param:
                found.append(NamespaceEdit(param, "", "opaque", self.positions.span(node), scope=where,
                                           how=f"`{_shown(node)}`"))
        return found

    # -- literals -------------------------------------------------------------------------------------------
    def _literal(self, node: ast.expr | None, scope: Scope) -> tuple[str, ...] | None:
        """The names or strings a literal tuple, list or set holds (``(A, B)``, ``("a", "b")``), or a name bound
        to one in the same scope; None for anything else."""
        if isinstance(node, ast.Name):
            return self._tuples.get((scope, node.id))
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return None
        values = [dotted(e) or string(e) for e in node.elts]
        return tuple(values) if all(values) else None  # type: ignore[arg-type]

    def _names(self, node: ast.expr, scope: Scope) -> tuple[str, ...] | None:
        """The attribute names a ``setattr`` may set: a string, or each string a literal loop gives its variable."""
        text = string(node)
        if text is not None:
            return (text,)
        if isinstance(node, ast.Name):
            line = node.lineno
            loop = next((r for r in reversed(self._regions) if r.loop == node.id and r.scope == scope
                         and r.start < line <= r.end), None)
            if loop is not None and all(not is_class_like(v) and "." not in v for v in loop.values):
                return loop.values
        return None


def _decorating(value: ast.expr | None, name: str) -> str | None:
    """``deco(Name)`` or ``factory(...)(Name)`` whose only argument is the name it is bound to (or, for a call
    standing alone, the class it is handed): what it decorates with, as a ``Decorator`` names it (the callee,
    with "()" after a factory's), or None."""
    if not (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords and name
            and dotted(value.args[0]) == name):
        return None
    if isinstance(value.func, ast.Call):
        callee = dotted(value.func.func)
        return f"{callee}()" if callee else None
    return dotted(value.func) or None


def _looks_up_globals(node: ast.AST) -> bool:
    """``globals()[name]`` or ``globals().get(name)``: a name of the module that is only known at run time."""
    if isinstance(node, ast.Subscript):
        node = node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        node = node.func.value
    else:
        return False
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals" and \
        not node.args


def _namespace_of(node: ast.AST) -> str:
    """The dotted name whose namespace ``vars(X)`` or ``X.__dict__`` is, or ""."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and node.args:
        return dotted(node.args[0])
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return dotted(node.value)
    return ""


def _shown(node: ast.AST) -> str:
    return ast.unparse(node)
