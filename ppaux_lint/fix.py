"""Autofix: findings in, edits out.

Two stages, so that ``check`` can say which findings have a fix without paying
for libcst:

1. **Plan** (stdlib ``ast``, cheap; runs on every ``check``): for each finding
   the fix families below understand, decide whether a fix exists and what it
   will do. :func:`attach_fixes` turns plans into ``Finding.fix`` (description
   and safety; no edits yet).
2. **Materialize** (libcst codemods; only under ``--fix``/``--diff``): run the
   plan as a transformer over the file's concrete syntax tree, so every
   untouched node keeps its exact text, and turn the difference into
   ``Edit``s. Edits of one file are applied together unless they overlap;
   overlapping fixes wait for the next round (``--fix`` re-analyses and
   repeats, as ruff does).

Fix families (the checks stay fix-agnostic; this module reads their findings):

- PPA017 (safe): rename the near-miss ``def`` to the real name, and
  ``self.<old>``/``cls.<old>`` uses inside the same class. Offered only when
  the old name is used nowhere else in the file and the class binds nothing
  under the new name.
- PPA001 (unsafe: adds behaviour): an output that is a dataclass, or whose
  ``__init__`` stores ``torch.Tensor``-annotated parameters as attributes, gets
  ``to_pp_tensors`` returning ``{"field": self.field, ...}`` (dataclass fields
  along the MRO, as ``dataclasses`` collects them; fields defaulting to
  ``None`` or with ``init=False`` stay home, since the first would make the
  helper raise and the second cannot be passed back to the constructor).
  An output that sets ``to_pp_tensors = None`` on purpose gets no fix.
- PPA002 (unsafe): an observer whose paired output is known, can be rebuilt
  from keyword arguments, and whose sent keys are known (from its own
  ``to_pp_tensors`` dict literal of ``self.<attr>`` values, or the tensor
  fields PPA001's fix would send) gets ``from_pp_tensors(self, tensors)``
  returning ``Output(field=tensors["field"], ...)``; an import of the output
  is added when the observer's module does not bind it at run time.

A generated method goes at the end of the class body, indented with the
module's indentation unit, separated by as many blank lines as the class's
last method, quoted as the file mostly quotes, annotated only when the
class's other methods annotate their returns, and wrapped one item per line
when it would pass the project's line length (ruff's or black's
``line-length``, else 88). A fix whose result does not compile is dropped.
"""

from __future__ import annotations

import ast
import difflib
import io
import sys
import tokenize
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from ppaux_lint.findings import Edit, Finding, Fix
from ppaux_lint.index import FROM_PP, TO_PP

if TYPE_CHECKING:
    from ppaux_lint.engine import Analysis

FIXABLE = frozenset({"PPA001", "PPA002", "PPA017"})
TENSOR = "torch.Tensor"
DEFAULT_LINE_LENGTH = 88
MAX_ROUNDS = 10
_DATACLASS = frozenset({"dataclasses.dataclass"})
_FIELD = frozenset({"dataclasses.field"})
_TYPE_CHECKING = frozenset({"TYPE_CHECKING", "typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


# -- plans ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MethodSpec:
    """A method to generate. kind "dict": ``return {key: self.attr}`` over ``items`` (key, attr);
    kind "construct": ``return constructor(param=tensors[key])`` over ``items`` (param, key)."""

    name: str
    params: tuple[str, ...]
    kind: str
    items: tuple[tuple[str, str], ...]
    constructor: str = ""
    returns: str = ""


@dataclass(frozen=True)
class Plan:
    finding: Finding
    path: str
    description: str
    safe: bool
    class_name: str
    class_line: int  # line of the class *name*, as in ClassSummary.span
    rename: tuple[str, str, int, int] | None = None  # (old, new, line, 1-based column) of the def name
    method: MethodSpec | None = None
    add_import: tuple[str, str] | None = None  # (module, name)
    quote: str = '"'
    line_length: int = DEFAULT_LINE_LENGTH
    body_column: int = 4  # absolute indentation of the class body, in characters

    @property
    def fix(self) -> Fix:
        return Fix(self.description, self.safe, self.path)


@dataclass(frozen=True)
class _Constructor:
    """How an output class is built: keyword parameters and which attributes carry tensors."""

    params: tuple[str, ...]  # keyword-capable parameters, in order
    required: frozenset[str]
    attr_to_param: dict[str, str]  # attribute stored -> parameter that sets it
    tensors: tuple[tuple[str, str], ...]  # (attribute, annotation as written) of tensor-typed attributes
    positional_only: frozenset[str] = frozenset()


def attach_fixes(analysis: "Analysis") -> list[Finding]:
    """``analysis.findings``, each with ``fix`` set when a fix is available (description and safety)."""
    plans = {id(plan.finding): plan for plan in plan_fixes(analysis)}
    out = []
    for finding in analysis.findings:
        plan = plans.get(id(finding))
        out.append(replace(finding, fix=plan.fix) if plan is not None and finding.fix is None else finding)
    return out


def plan_fixes(analysis: "Analysis") -> list[Plan]:
    if not any(f.code in FIXABLE for f in analysis.findings):
        return []
    planner = _Planner(analysis)
    plans = []
    for finding in analysis.findings:
        if finding.code not in FIXABLE:
            continue
        try:
            plan = planner.plan(finding)
        except Exception:  # noqa: BLE001 - a file we cannot see as the summary did: offer nothing, never fail check
            plan = None
        if plan is not None:
            plans.append(plan)
    return plans


class _Planner:
    def __init__(self, analysis: "Analysis") -> None:
        self.analysis = analysis
        self.index = analysis.index
        self.infos = analysis.classes
        self._trees: dict[str, tuple[str, ast.Module]] = {}
        self._line_length: int | None = None

    # -- files --
    def tree(self, path: str) -> ast.Module:
        if path not in self._trees:
            text = read_source(path)[0]
            self._trees[path] = (text, ast.parse(text, filename=path))
        return self._trees[path][1]

    def text(self, path: str) -> str:
        self.tree(path)
        return self._trees[path][0]

    def class_node(self, fqn: str) -> tuple[ast.ClassDef, str, str] | None:
        """The ast node of a project class, with its file path and module."""
        summary = self.index.classes.get(fqn)
        if summary is None:
            return None
        module = self.index.class_module[fqn]
        path = self.index.modules[module].path
        for node in ast.walk(self.tree(path)):
            if isinstance(node, ast.ClassDef) and node.name == summary.name and node.lineno == summary.class_line:
                return node, path, module
        return None

    def line_length(self) -> int:
        if self._line_length is None:
            self._line_length = _configured_line_length(self.analysis.project.root)
        return self._line_length

    def resolves_to(self, module: str, scope: str, node: ast.expr | None, targets: Iterable[str]) -> bool:
        text = _dotted(node)
        if not text:
            return False
        resolved = self.index.resolve(module, text, scope)
        return resolved in targets or (resolved is None and text in targets)

    def plan(self, finding: Finding) -> Plan | None:
        if finding.code == "PPA017":
            return self.plan_rename(finding)
        if finding.code == "PPA001":
            return self.plan_to_pp(finding)
        if finding.code == "PPA002":
            return self.plan_from_pp(finding)
        return None

    def _base_plan(self, finding: Finding, fqn: str, node: ast.ClassDef, **kwargs) -> Plan:
        summary = self.index.classes[fqn]
        return Plan(finding=finding, path=finding.path, class_name=summary.name, class_line=summary.span.line,
                    quote=_quote_style(self.text(finding.path)), line_length=self.line_length(),
                    body_column=_body_column(node, self.text(finding.path)), **kwargs)

    # -- PPA017 --
    def plan_rename(self, finding: Finding) -> Plan | None:
        owner = finding.symbol
        found = self.class_node(owner)
        if found is None or found[1] != finding.path:
            return None
        node, path, _ = found
        definition = next((d for d in node.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and d.lineno == finding.span.line), None)
        if definition is None:
            return None
        old = definition.name
        new = _intended_name(old)
        if new is None or _binds(node, new):
            return None
        if _other_references(self.tree(path), node, definition, old):
            return None  # renaming the def alone would break those uses
        return self._base_plan(finding, owner, node, description=f"Rename `{old}` to `{new}`", safe=True,
                               rename=(old, new, finding.span.line, finding.span.column))

    # -- PPA001 --
    def plan_to_pp(self, finding: Finding) -> Plan | None:
        fqn = finding.symbol
        if self.index.lookup(fqn, TO_PP) is not None:
            return None  # bound to None or otherwise deliberately: not ours to overrule
        found = self.class_node(fqn)
        constructor = self.constructor(fqn)
        if found is None or constructor is None or not constructor.tensors or found[1] != finding.path:
            return None
        node = found[0]
        attrs = [attr for attr, _ in constructor.tensors]
        for observer in self._observers_of(fqn):
            member = self.index.lookup(observer, FROM_PP)
            method = member.method if member is not None else None
            if method is not None and method.keys_read_exact and all(k.kind == "str" for k in method.keys_read):
                if {k.value for k in method.keys_read} != set(attrs):
                    return None  # generating these keys would only trade PPA001 for PPA015
        returns = f"dict[str, {constructor.tensors[0][1]}]" if _annotates_returns(node) else ""
        spec = MethodSpec(TO_PP, ("self",), "dict", tuple((attr, attr) for attr in attrs), returns=returns)
        return self._base_plan(finding, fqn, node, safe=False, method=spec,
                               description=f"Add `{TO_PP}` returning {_names(attrs)}")

    # -- PPA002 --
    def plan_from_pp(self, finding: Finding) -> Plan | None:
        fqn = finding.symbol
        info = self.infos.get(fqn)
        if info is None or info.pair is None or self.index.lookup(fqn, FROM_PP) is not None:
            return None
        found = self.class_node(fqn)
        if found is None or found[1] != finding.path:
            return None
        node, path, module = found
        pair = info.pair
        constructor = self.constructor(pair)
        keys = self.sent_keys(pair, constructor)
        if constructor is None or not keys:
            return None
        items = []
        for key, attr in keys:
            param = constructor.attr_to_param.get(attr)
            if param is None or param in constructor.positional_only:
                return None
            items.append((param, key))
        if not constructor.required <= {param for param, _ in items}:
            return None  # a required argument that does not travel: cannot rebuild
        name, add_import = self.name_in_scope(pair, module, path, self.index.classes[fqn].qualname)
        if name is None:
            return None
        returns = name if _annotates_returns(node) else ""
        spec = MethodSpec(FROM_PP, ("self", "tensors"), "construct", tuple(items), constructor=name, returns=returns)
        description = f"Add `{FROM_PP}` rebuilding `{name}` from {_names(k for k, _ in keys)}"
        if add_import is not None:
            description += f" (imports `{add_import[1]}` from `{add_import[0]}`)"
        return self._base_plan(finding, fqn, node, safe=False, method=spec, add_import=add_import,
                               description=description)

    def _observers_of(self, output: str) -> list[str]:
        return [info.fqn for info in self.infos.values() if info.is_observer and info.pair == output]

    def sent_keys(self, output: str, constructor: _Constructor | None) -> list[tuple[str, str]] | None:
        """(key, attribute) pairs the output sends, or None when they are not statically known."""
        member = self.index.lookup(output, TO_PP)
        if member is None:
            if constructor is None:
                return None
            return [(attr, attr) for attr, _ in constructor.tensors] or None  # what PPA001's fix sends
        if member.method is None or member.owner not in self.index.classes or member.stub_of_protocol:
            return None
        found = self.class_node(member.owner)
        if found is None:
            return None
        function = next((d for d in found[0].body if isinstance(d, ast.FunctionDef) and d.name == TO_PP), None)
        if function is None:
            return None
        shapes = [_returned_mapping(r) for r in _returns(function)]
        if any(shape is None for shape in shapes) or len({frozenset(shape) for shape in shapes}) != 1:
            return None
        return list(shapes[0]) or None

    def constructor(self, fqn: str) -> _Constructor | None:
        """How ``fqn`` is constructed, found the way Python finds ``__init__``: along the MRO."""
        info = self.infos.get(fqn)
        if info is None:
            return None
        protocols = self.index.protocols
        known = {*protocols.output, *protocols.observer, *protocols.pp_output, *protocols.pp_observer}
        for position, cls in enumerate(info.ancestry):
            if cls not in self.index.classes:
                if cls in known or cls.split(".")[0] in ("builtins", "typing", "typing_extensions", "abc"):
                    continue  # Protocols and object contribute no constructor parameters
                return None  # an external base may define __init__: unknown
            found = self.class_node(cls)
            if found is None:
                return None
            node, _, module = found
            scope = self.index.classes[cls].qualname
            init = next((d for d in node.body if isinstance(d, ast.FunctionDef) and d.name == "__init__"), None)
            if init is not None:
                return self._init_constructor(init, module, scope)
            if self._is_dataclass(node, module, scope):
                return self._dataclass_constructor(info.ancestry[position:])
        return None

    def _is_dataclass(self, node: ast.ClassDef, module: str, scope: str) -> bool:
        return any(self.resolves_to(module, scope, d.func if isinstance(d, ast.Call) else d, _DATACLASS)
                   for d in node.decorator_list)

    def _is_tensor(self, annotation: ast.expr | None, module: str, scope: str) -> bool:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return False
        return self.resolves_to(module, scope, annotation, {TENSOR})

    def _init_constructor(self, init: ast.FunctionDef, module: str, scope: str) -> _Constructor | None:
        args = init.args
        positional = [*args.posonlyargs, *args.args][1:]  # drop self
        defaults_from = len(positional) - len(args.defaults)
        required = {a.arg for i, a in enumerate(positional) if i >= 0 and i < defaults_from}
        required |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None}
        annotations = {a.arg: a.annotation for a in [*positional, *args.kwonlyargs]}
        none_defaults = {a.arg for a, d in zip(positional[defaults_from:], args.defaults) if _is_none(d)}
        none_defaults |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if _is_none(d)}
        attr_to_param: dict[str, str] = {}
        tensors = []
        for statement in init.body:
            target, value = _simple_store(statement)
            if target is None or value not in annotations:
                continue
            attr_to_param.setdefault(target, value)
            if (value not in none_defaults and self._is_tensor(annotations[value], module, scope)
                    and target not in dict(tensors)):
                tensors.append((target, _source(annotations[value])))
        return _Constructor(
            params=tuple(a.arg for a in [*positional, *args.kwonlyargs]),
            required=frozenset(required),
            attr_to_param=attr_to_param,
            tensors=tuple(tensors),
            positional_only=frozenset(a.arg for a in args.posonlyargs[1:] if args.posonlyargs),
        )

    def _dataclass_constructor(self, mro: Sequence[str]) -> _Constructor | None:
        fields: dict[str, tuple[bool, bool, bool, str]] = {}  # name -> (init, has_default, tensor, annotation)
        for cls in reversed(mro):
            if cls not in self.index.classes:
                continue
            found = self.class_node(cls)
            if found is None:
                return None
            node, _, module = found
            scope = self.index.classes[cls].qualname
            if not self._is_dataclass(node, module, scope):
                continue
            for statement in node.body:
                if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
                    continue
                text = _source(statement.annotation)
                if "ClassVar" in text or "InitVar" in text or "KW_ONLY" in text:
                    continue
                init, has_default, none_default = self._field_facts(statement.value, module, scope)
                # a field that may hold None would make the helper raise; one outside __init__ cannot be rebuilt
                tensor = init and not none_default and self._is_tensor(statement.annotation, module, scope)
                fields[statement.target.id] = (init, has_default, tensor, text)
        init_fields = [name for name, (init, _, _, _) in fields.items() if init]
        return _Constructor(
            params=tuple(init_fields),
            required=frozenset(n for n in init_fields if not fields[n][1]),
            attr_to_param={n: n for n in init_fields},
            tensors=tuple((n, facts[3]) for n, facts in fields.items() if facts[2]),
        )

    def _field_facts(self, value: ast.expr | None, module: str, scope: str) -> tuple[bool, bool, bool]:
        """(init, has_default, default_is_none) of a dataclass field's right-hand side."""
        if value is None:
            return True, False, False
        if isinstance(value, ast.Call) and self.resolves_to(module, scope, value.func, _FIELD):
            keywords = {k.arg: k.value for k in value.keywords if k.arg}
            init = not (isinstance(keywords.get("init"), ast.Constant) and keywords["init"].value is False)
            return init, "default" in keywords or "default_factory" in keywords, _is_none(keywords.get("default"))
        return True, True, _is_none(value)

    def name_in_scope(self, target: str, module: str, path: str,
                      scope: str) -> tuple[str | None, tuple[str, str] | None]:
        """A name that denotes ``target`` at run time inside ``module``, or an import that would bind one."""
        summary = self.index.modules.get(module)
        if summary is None:
            return None, None
        typing_only = _typing_only_names(self.tree(path))
        candidates: list[str] = []
        target_module = self.index.class_module.get(target, "")
        target_qualname = self.index.classes[target].qualname if target in self.index.classes else ""
        if target_module == module and "<locals>" not in target_qualname:
            candidates.append(target_qualname)
        for imported in summary.imports:
            if imported.star or imported.nested:
                continue
            if imported.target == target:
                candidates.append(imported.local)
            elif target.startswith(imported.target + "."):
                candidates.append(imported.local + target[len(imported.target):])
        for local, _ in summary.assignments:
            candidates.append(local)
        for candidate in candidates:
            if candidate.split(".")[0] in typing_only:
                continue
            if self.index.resolve(module, candidate, scope) == target:
                return candidate, None
        if not target_module or "." in target_qualname or "<" in target_qualname or target_module == module:
            return None, None
        name = target_qualname
        if name in typing_only and self.index.resolve(module, name, scope) == target:
            return name, (target_module, name)  # imported for type checkers only: import it for real
        bound = {i.local for i in summary.imports} | {c.qualname for c in summary.classes} | set(summary.defs)
        bound |= {local for local, _ in summary.assignments}
        if name in bound or self.index.resolve(module, name, scope) is not None:
            return None, None  # the name means something else here
        return name, (target_module, name)


# -- plan helpers (ast) ------------------------------------------------------------------------------
def _dotted(node: ast.expr | None) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _source(node: ast.expr) -> str:
    return ast.unparse(node)


def _intended_name(name: str) -> str | None:
    from ppaux_lint.names import is_near_miss

    matches = [target for target in (TO_PP, FROM_PP) if is_near_miss(name, target)]
    if len(matches) != 1:
        return None
    return matches[0]


def _binds(node: ast.ClassDef, name: str) -> bool:
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and statement.name == name:
            return True
        targets = (statement.targets if isinstance(statement, ast.Assign)
                   else [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def _other_references(tree: ast.Module, owner: ast.ClassDef, definition: ast.AST, name: str) -> bool:
    """Whether ``name`` is used anywhere but in ``definition`` itself and ``self.name``/``cls.name`` in ``owner``."""
    renamed: set[int] = set()
    for node in _walk_class(owner):
        if (isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")):
            renamed.add(id(node))
    for node in ast.walk(tree):
        if node is definition:
            continue
        if isinstance(node, ast.Attribute) and node.attr == name and id(node) not in renamed:
            return True
        if isinstance(node, ast.Name) and node.id == name:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.alias) and name in (node.name.split(".")[-1], node.asname):
            return True
        if isinstance(node, ast.Constant) and node.value == name:
            return True  # getattr(self, "name") and friends
    return False


def _walk_class(owner: ast.ClassDef) -> Iterable[ast.AST]:
    """The nodes of a class body, not descending into nested classes (whose ``self`` is another object)."""
    stack: list[ast.AST] = list(owner.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.ClassDef):
                stack.append(child)


def _simple_store(statement: ast.stmt) -> tuple[str | None, str | None]:
    """``self.attr = param`` (or annotated) -> (attr, param)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return None, None
    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
            and isinstance(value, ast.Name)):
        return target.attr, value.id
    return None, None


def _returns(function: ast.FunctionDef) -> list[ast.Return]:
    out = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)
    if not out or not isinstance(function.body[-1], ast.Return):
        out.append(ast.Return(value=None))  # may fall off the end
    return out


def _returned_mapping(node: ast.Return) -> tuple[tuple[str, str], ...] | None:
    """``return {"k": self.attr, ...}`` -> (("k", "attr"), ...); anything else -> None."""
    value = node.value
    if not isinstance(value, ast.Dict) or not value.keys:
        return None
    items = []
    for key, item in zip(value.keys, value.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value):
            return None
        if not (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self"):
            return None
        items.append((key.value, item.attr))
    if len({k for k, _ in items}) != len(items):
        return None
    return tuple(items)


def _annotates_returns(node: ast.ClassDef) -> bool:
    return any(isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.returns is not None for d in node.body)


def _typing_only_names(tree: ast.Module) -> set[str]:
    """Names bound only inside ``if TYPE_CHECKING:`` at module level (not there at run time)."""
    typing_only: set[str] = set()
    runtime: set[str] = set()

    def bound(statements: Sequence[ast.stmt], into: set[str]) -> None:
        for statement in statements:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                for alias in statement.names:
                    into.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                into.add(statement.name)
            elif isinstance(statement, ast.Assign):
                into.update(t.id for t in statement.targets if isinstance(t, ast.Name))
            elif isinstance(statement, ast.If):
                if _dotted(statement.test) in _TYPE_CHECKING:
                    bound(statement.body, typing_only)
                    bound(statement.orelse, into)
                else:
                    bound(statement.body, into)
                    bound(statement.orelse, into)
            elif isinstance(statement, ast.Try):
                bound(statement.body, into)
                for handler in statement.handlers:
                    bound(handler.body, into)

    bound(tree.body, runtime)
    return typing_only - runtime


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _body_column(node: ast.ClassDef, text: str) -> int:
    if not node.body:
        return 4
    line = text.splitlines()[node.body[0].lineno - 1] if node.body[0].lineno - 1 < len(text.splitlines()) else ""
    return len(line) - len(line.lstrip())


def _quote_style(text: str) -> str:
    """The quote the file mostly uses for plain (not triple-quoted) strings; double on a tie."""
    single = double = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.STRING:
                continue
            body = token.string.lstrip("rRbBuUfF")
            if body[:3] in ('"""', "'''"):
                continue
            if body.startswith("'") and '"' not in body:
                single += 1
            elif body.startswith('"') and "'" not in body:
                double += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return "'" if single > double else '"'


def _configured_line_length(root: Path) -> int:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DEFAULT_LINE_LENGTH
    tool = data.get("tool", {})
    for key in ("ruff", "black"):
        value = tool.get(key, {}).get("line-length") if isinstance(tool.get(key), dict) else None
        if isinstance(value, int) and value > 0:
            return value
    return DEFAULT_LINE_LENGTH


def read_source(path: str) -> tuple[str, str]:
    """The file's text exactly as stored (newlines untranslated) and its encoding."""
    with open(path, "rb") as handle:
        data = handle.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


# -- materialize (libcst) -----------------------------------------------------------------------------
def render_method(spec: MethodSpec, indent: str, quote: str, newline: str, column: int, line_length: int) -> str:
    """The method's source at indentation zero, its body indented by ``indent``."""
    def literal(key: str) -> str:
        if quote in key or "\\" in key or not key.isprintable():
            return repr(key)
        return f"{quote}{key}{quote}"

    if spec.kind == "dict":
        entries = [f"{literal(key)}: self.{attr}" for key, attr in spec.items]
        opening, closing = "return {", "}"
    else:
        entries = [f"{param}=tensors[{literal(key)}]" for param, key in spec.items]
        opening, closing = f"return {spec.constructor}(", ")"
    one_line = opening + ", ".join(entries) + closing
    if column + len(indent) + len(one_line) <= line_length:
        body = [one_line]
    else:
        body = [opening, *(f"{indent}{entry}," for entry in entries), closing]
    returns = f" -> {spec.returns}" if spec.returns else ""
    lines = [f"def {spec.name}({', '.join(spec.params)}){returns}:", *(indent + line for line in body)]
    return newline.join(lines) + newline


def _codemod(plans: Sequence[Plan], text: str) -> str:
    """Run ``plans`` (all for one file) as one libcst transformer; returns the new text."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    by_class = {(p.class_name, p.class_line): p for p in plans}
    imports = [p.add_import for p in plans if p.add_import is not None]

    class Transformer(cst.CSTTransformer):
        def __init__(self) -> None:
            super().__init__()
            self.stack: list[Plan | None] = []

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.stack.append(by_class.get((node.name.value, positions[node.name].start.line)))

        def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
            plan = self.stack.pop()
            if plan is None or plan.method is None:
                return updated
            if not isinstance(updated.body, cst.IndentedBlock):
                raise _Unfixable("class body is on the class line")
            source = render_method(plan.method, module.default_indent, plan.quote, module.default_newline,
                                   plan.body_column, plan.line_length)
            method = cst.parse_statement(source, config=module.config_for_parsing)
            methods = [s for s in updated.body.body if isinstance(s, cst.FunctionDef)]
            spacing = ([line for line in methods[-1].leading_lines if line.comment is None] if methods
                       else [cst.EmptyLine(indent=False)])
            method = method.with_changes(leading_lines=spacing)
            return updated.with_changes(body=updated.body.with_changes(body=[*updated.body.body, method]))

        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            plan = self.stack[-1] if self.stack else None
            if plan is None or plan.rename is None:
                return updated
            old, new, line, column = plan.rename
            start = positions[original.name].start
            if original.name.value == old and (start.line, start.column + 1) == (line, column):
                return updated.with_changes(name=updated.name.with_changes(value=new))
            return updated

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
            plan = self.stack[-1] if self.stack else None
            if (plan is not None and plan.rename is not None and updated.attr.value == plan.rename[0]
                    and isinstance(updated.value, cst.Name) and updated.value.value in ("self", "cls")):
                return updated.with_changes(attr=updated.attr.with_changes(value=plan.rename[1]))
            return updated

        def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
            if not imports:
                return updated
            statements = [cst.parse_statement(f"from {mod} import {name}{module.default_newline}",
                                              config=module.config_for_parsing) for mod, name in sorted(set(imports))]
            body = list(updated.body)
            at = _import_position(body)
            return updated.with_changes(body=[*body[:at], *statements, *body[at:]])

    result = wrapper.module.visit(Transformer())
    return result.code


def _import_position(body: list) -> int:
    """After the last top-level import; else after the module docstring; else at the top."""
    import libcst as cst

    last = None
    for number, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
            last = number
    if last is not None:
        return last + 1
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) and \
            isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        return 1
    return 0


class _Unfixable(Exception):
    pass


def line_edits(old: str, new: str) -> tuple[Edit, ...]:
    """The smallest line-level edits turning ``old`` into ``new`` (character offsets into ``old``)."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    edits = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append(Edit(starts[i1], starts[i2], "".join(new_lines[j1:j2])))
    return tuple(edits)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    out, cursor = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out.append(text[cursor:edit.start])
        out.append(edit.text)
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end and b.start == b.end:
        return False  # two insertions at one point: both go in, in order
    return a.start < b.end and b.start < a.end or (a.start == a.end and b.start < a.start < b.end) or (
        b.start == b.end and a.start < b.start < a.end)


# -- applying -----------------------------------------------------------------------------------------
@dataclass
class FileResult:
    path: str
    encoding: str
    original: str
    fixed: str
    applied: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.original != self.fixed


@dataclass
class FixRound:
    files: dict[str, FileResult]
    applied: list[Finding]  # findings whose fix went in, with their edits
    deferred: list[Plan]  # overlapped an applied fix: try again next round
    failed: list[tuple[Plan, str]]  # could not be materialized (and why)


def applicable(plans: Iterable[Plan], unsafe: bool) -> list[Plan]:
    return [p for p in plans if p.safe or unsafe]


def fix_round(plans: Sequence[Plan]) -> FixRound:
    """Materialize every plan, apply the non-overlapping ones per file (in memory)."""
    by_path: dict[str, list[Plan]] = {}
    for plan in plans:
        by_path.setdefault(plan.path, []).append(plan)
    files: dict[str, FileResult] = {}
    applied: list[Finding] = []
    deferred: list[Plan] = []
    failed: list[tuple[Plan, str]] = []
    for path, group in by_path.items():
        try:
            text, encoding = read_source(path)
        except (OSError, UnicodeDecodeError, SyntaxError) as exc:
            failed.extend((plan, f"cannot read: {exc}") for plan in group)
            continue
        accepted: list[tuple[Plan, tuple[Edit, ...]]] = []
        taken: list[Edit] = []
        for plan in sorted(group, key=lambda p: p.finding.sort_key):
            try:
                edits = line_edits(text, _codemod([plan], text))
            except _Unfixable as exc:
                failed.append((plan, str(exc)))
                continue
            except Exception as exc:  # noqa: BLE001 - a fix must never take the run down
                failed.append((plan, f"{type(exc).__name__}: {exc}"))
                continue
            if not edits:
                continue
            if any(edits == other for _, other in accepted):
                accepted.append((plan, ()))  # the same change again (one def near-missed by two classes)
                continue
            if any(_overlaps(e, t) for e in edits for t in taken):
                deferred.append(plan)
                continue
            accepted.append((plan, edits))
            taken.extend(edits)
        if not accepted:
            continue
        fixed = apply_edits(text, taken)
        try:
            compile(fixed, path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            failed.extend((plan, f"the fix would not compile: {exc.msg} (line {exc.lineno})")
                          for plan, _ in accepted)
            continue
        result = FileResult(path, encoding, text, fixed)
        for plan, edits in accepted:
            finding = replace(plan.finding, fix=replace(plan.fix, edits=edits))
            result.applied.append(finding)
            applied.append(finding)
        files[path] = result
    return FixRound(files, applied, deferred, failed)


def write(result: FileResult) -> None:
    with open(result.path, "w", encoding=result.encoding, newline="") as handle:
        handle.write(result.fixed)


def unified_diff(results: Iterable[FileResult]) -> str:
    from ppaux_lint.report.paths import display_path

    chunks = []
    for result in sorted(results, key=lambda r: r.path):
        if not result.changed:
            continue
        name = display_path(result.path)
        old = result.original.splitlines(keepends=True)
        new = result.fixed.splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"):
            chunks.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


@dataclass
class FixOutcome:
    fixed: list[Finding]  # every finding whose fix was applied, over all rounds
    analysis: "Analysis"  # the analysis after the last write: what remains
    written: list[str]
    failed: list[tuple[Plan, str]]
    rounds: int


def fix_project(analysis: "Analysis", reanalyze: Callable[[], "Analysis"], unsafe: bool = False,
                max_rounds: int = MAX_ROUNDS) -> FixOutcome:
    """``--fix``: apply, write, re-analyse, until nothing applicable is left (or ``max_rounds``)."""
    fixed: list[Finding] = []
    written: list[str] = []
    failed: list[tuple[Plan, str]] = []
    attempted: set[tuple] = set()
    rounds = 0
    while rounds < max_rounds:
        plans = [p for p in applicable(plan_fixes(analysis), unsafe) if _key(p) not in attempted]
        if not plans:
            break
        rounds += 1
        result = fix_round(plans)
        failed.extend(result.failed)
        attempted.update(_key(p) for p, _ in result.failed)
        if not result.files:
            break
        for file in result.files.values():
            write(file)
            if file.path not in written:
                written.append(file.path)
        fixed.extend(result.applied)
        attempted.update(_key_of(f) for f in result.applied)
        analysis = reanalyze()  # deferred fixes, and fixes that an applied one made possible, come next round
    return FixOutcome(fixed, analysis, written, failed, rounds)


def preview(analysis: "Analysis", unsafe: bool = False) -> FixRound:
    """``--diff``: one round in memory; nothing is written."""
    return fix_round(applicable(plan_fixes(analysis), unsafe))


def _key(plan: Plan) -> tuple:
    return _key_of(plan.finding)


def _key_of(finding: Finding) -> tuple:
    return (finding.code, finding.path, finding.symbol, finding.message)


def hidden_unsafe(findings: Sequence[Finding]) -> int:
    return sum(1 for f in findings if f.fix is not None and not f.fix.safe)


def count_fixable(findings: Sequence[Finding], unsafe: bool) -> int:
    return sum(1 for f in findings if f.fix is not None and (f.fix.safe or unsafe))


def report_failures(failed: Sequence[tuple[Plan, str]], stream=None) -> None:
    stream = stream or sys.stderr
    from ppaux_lint.report.paths import display_path

    for plan, why in failed:
        stream.write(f"ppaux-lint: warning: could not fix {plan.finding.code} in "
                     f"{display_path(plan.path)}:{plan.finding.span.line}: {why}\n")
