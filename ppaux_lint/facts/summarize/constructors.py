"""How a class statement's instances are built, as written: its decorators, its own ``__init__`` and its annotated
names (``ConstructorFacts``).

Only the fixes read these (``fixes/constructors.py``: the keyword arguments ``from_pp_tensors`` can rebuild an
output with, and the attributes ``to_pp_tensors`` sends). They are read here, while the summarizer holds the
tree, because planning a fix for a class reads them for every class along its MRO: from the trees, that parsed
each of those files again (621 files of the 10,000-file monorepo's cold check, 63 ms of its serial tail).
Names are kept as written (dotted, unresolved), since what they name is the index's to decide.
"""

from __future__ import annotations

import ast
import collections
import functools
import re

from ppaux_lint.contract.names import is_class_like
from ppaux_lint.facts.summarize.syntax import annotation_expression, children, is_none, plain_dotted, source, string
from ppaux_lint.facts.summary import ConstructorFacts, FieldFacts, InitFacts


def constructor_facts(node: ast.ClassDef, text: str) -> ConstructorFacts:
    """The facts of ``node``'s own body: its last plain ``def __init__`` at the top of the body (the one Python
    keeps) and every annotated name, in order. ``text`` is the file's: ``alters`` is looked for only where it
    holds one of the forms (a walk of every class's every node cost a third of the summarizer's time)."""
    init = next((d for d in reversed(node.body) if isinstance(d, ast.FunctionDef) and d.name == "__init__"), None)
    fields = tuple(_field(statement) for statement in node.body
                   if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name))
    no_init = tuple(plain_dotted(d.func) for d in node.decorator_list if isinstance(d, ast.Call) and any(
        k.arg == "init" and not (isinstance(k.value, ast.Constant) and k.value.value is True) for k in d.keywords))
    return ConstructorFacts(decorators=tuple(plain_dotted(d.func if isinstance(d, ast.Call) else d)
                                             for d in node.decorator_list),
                            init=_init(init) if init is not None else None, fields=fields, no_init=no_init,
                            alters=_alters(node) if _may_alter(text) else ())


def _init(init: ast.FunctionDef) -> InitFacts:
    args = init.args
    positional = [*args.posonlyargs, *args.args]
    altered, declared = _body_facts(init, {a.arg for a in [*positional[1:], *args.kwonlyargs]},
                                    positional[0].arg if positional else None)
    return InitFacts(
        positional=tuple(a.arg for a in positional),
        posonly=len(args.posonlyargs),
        defaults=tuple(is_none(d) for d in args.defaults),
        kwonly=tuple(a.arg for a in args.kwonlyargs),
        kw_defaults=tuple("" if d is None else "none" if is_none(d) else "other" for d in args.kw_defaults),
        annotations=tuple((a.arg, source(a.annotation) if a.annotation is not None else "",
                           annotation_name(a.annotation)) for a in [*positional[1:], *args.kwonlyargs]),
        stores=tuple(store for statement in init.body if (store := _simple_store(statement)) is not None),
        variadic=args.vararg is not None or args.kwarg is not None,
        altered=altered,
        declared=declared,
    )


# What ``_alters`` looks for, as text: ``setattr``/``delattr``/``__setattr__``, ``del`` (``del(self.ids[0])`` too),
# an in-place method call (a name ending in one ``_``: ``add_(``), ``out=``, ``__dict__``, ``vars(``, a store into a
# subscript (``] =``, ``] +=``, ``] //=``). Every form starts with a literal, its word boundary looked behind after
# it: the search then tries only where one of those first characters stands (``\bdel`` had it try every character,
# a twentieth of the summarizer's time).
_ALTERING = re.compile(r"setattr|delattr|del(?<!\wdel)\b|_(?<=[A-Za-z0-9]_)\s*\(|out(?<!\wout)\s*=|__dict__"
                       r"|vars\s*\(|\]\s*(?://|\*\*|>>|<<|[-+*/@%&|^])?=(?!=)")


@functools.lru_cache(maxsize=4)
def _may_alter(text: str) -> bool:
    """Whether ``text`` holds any form ``_alters`` looks for (asked once per file, whatever its classes)."""
    return _ALTERING.search(text) is not None


_DICT_READS = frozenset({"items", "keys", "values", "get", "copy", "__contains__", "__getitem__"})
_READERS = frozenset({"dict", "list", "len", "repr", "str", "sorted", "iter", "tuple", "set", "print", "id"})


def _alters(node: ast.ClassDef) -> tuple[str, ...]:
    """The attributes the class's methods (any of them, at any depth: rebuilt, an instance runs them again) may
    change without a plain ``self.<attr> = ...``, which ``ClassSummary.stores`` already holds: a ``__setattr__`` or
    ``setattr`` call, an in-place method (``self.ids.add_(1)``: a name ending in ``_``), a store into it
    (``self.ids[0] = 0``), ``out=self.ids``; "*" for what may change any (the instance's ``__dict__`` or
    ``vars(self)`` written or handed on, ``setattr`` of a name not written out)."""
    receivers = {"self"}
    met: list[tuple[ast.AST, ast.AST | None]] = []  # the nodes that may alter, each with its parent
    stack: list[tuple[ast.AST, ast.AST | None]] = [(node, None)]
    pop, push = stack.pop, stack.append
    while stack:  # one walk: four, and a map of every node's parent, were 7% of the summarizer's time
        current, parent = pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = current.args
            receivers.update(a[0].arg for a in (arguments.args, arguments.posonlyargs) if a)
        elif isinstance(current, ast.Call) or (isinstance(current, ast.Subscript) and type(current.ctx) is not ast.Load
                                               ) or (isinstance(current, ast.Attribute) and current.attr == "__dict__"):
            met.append((current, parent))
        for child in children(current):
            push((child, current))
    found: set[str] = set()
    for current, parent in met:
        if isinstance(current, ast.Call):
            callee = plain_dotted(current.func)
            if callee in ("setattr", "delattr") or (isinstance(current.func, ast.Attribute)
                                                    and current.func.attr in ("__setattr__", "__delattr__")):
                names = [name for a in current.args[:2] if (name := string(a)) is not None]
                mine = any(isinstance(a, ast.Name) and a.id in receivers for a in current.args[:2]) or (
                    isinstance(current.func, ast.Attribute) and not isinstance(current.func.value, ast.Name))
                found.update(names or (["*"] if mine else []))
            elif isinstance(current.func, ast.Attribute) and _in_place(current.func.attr):
                found.update(_attribute_of(current.func.value, receivers))
            found.update(attr for k in current.keywords if k.arg == "out"
                         for attr in _attribute_of(k.value, receivers))
        elif isinstance(current, ast.Subscript):
            found.update(_attribute_of(current.value, receivers))
        if _instance_dict(current, receivers) and not _only_read(current, parent):
            found.add("*")
    found.discard("")
    return tuple(sorted(found))


def _body_facts(init: ast.FunctionDef, params: set[str],
                receiver: str | None) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``altered``: the parameters ``__init__`` rebinds or changes in place, anywhere in its body (see ``_alters``),
    also through a local that may alias one (``_through_aliases``); ``declared``: the attributes of ``receiver`` it
    annotates (``self.ids: Tensor = ...``), with their annotations, in the order ``ast.walk`` meets them. One walk
    of the body finds both."""
    found: set[str] = set()
    in_place: set[str] = set()  # names whose object may be changed in place, not only rebound
    bound: list[tuple[str, ast.expr]] = []  # (local, the value it is bound to)
    declared: list[tuple[str, str]] = []
    queue = collections.deque(children(init))
    while queue:
        current = queue.popleft()
        queue.extend(children(current))
        if isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
            found.add(current.id)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            found.add(current.name)
        elif isinstance(current, (ast.Global, ast.Nonlocal)):
            found.update(current.names)
        elif isinstance(current, ast.Call):
            in_place.update(_changed_by_call(current))
        elif isinstance(current, ast.Subscript) and isinstance(current.ctx, (ast.Store, ast.Del)):
            in_place.add(_name_of(current.value))
        elif isinstance(current, ast.AugAssign):
            in_place.add(_name_of(current.target))  # ``t += 1`` changes a tensor ``t`` in place
        elif isinstance(current, ast.Assign):
            bound.extend((target.id, current.value) for target in current.targets if isinstance(target, ast.Name))
        elif (isinstance(current, ast.AnnAssign) and isinstance(current.target, ast.Attribute)
              and isinstance(current.target.value, ast.Name) and current.target.value.id == receiver):
            declared.append((current.target.attr, source(current.annotation)))
    stored = dict(store for statement in init.body if (store := _simple_store(statement)) is not None)
    altered = found | _through_aliases(in_place, bound, stored, receiver)
    return tuple(sorted(altered & params)), tuple(declared)


def _changed_by_call(call: ast.Call) -> list[str]:
    """The names a call may change in place: the receiver of an in-place method (``ids.add_(1)``,
    ``ids.__iadd__(1)``), the first argument of one called on a class (``torch.Tensor.add_(ids, 1)``), ``out=``."""
    changed = [_name_of(k.value) for k in call.keywords if k.arg == "out"]
    if isinstance(call.func, ast.Attribute) and _in_place(call.func.attr):
        changed.append(_name_of(call.func.value))
        if call.args and is_class_like(plain_dotted(call.func.value).rpartition(".")[2]):
            changed.append(_name_of(call.args[0]))
    return changed


def _through_aliases(changed: set[str], bound: list[tuple[str, ast.expr]], stored: dict[str, str],
                     receiver: str | None) -> set[str]:
    """``changed`` with every name a changed local may alias, transitively: ``t = ids`` (or ``t = ids.view(-1)``,
    or ``t = self.ids`` after ``self.ids = ids``: ``stored`` maps attributes to the parameters stored in them), then
    ``t += 1``. A local bound to anything that reads a name counts: a rebuild must not pass back a tensor that
    ``__init__`` may have changed."""
    aliases: dict[str, set[str]] = {}
    for name, value in bound:
        aliases.setdefault(name, set()).update(_read_names(value, stored, receiver))
    result, todo = set(changed), list(changed)
    while todo:
        for source_name in aliases.get(todo.pop(), ()):
            if source_name not in result:
                result.add(source_name)
                todo.append(source_name)
    return result


def _read_names(value: ast.expr, stored: dict[str, str], receiver: str | None) -> set[str]:
    """The name whose tensor ``value`` may be (or be a view of): ``ids``, ``ids[0]``, ``ids.view(-1)``, ``ids.T``,
    with ``self.<attr>`` read as the parameter ``stored`` in it; none for what is no tensor (``ids.shape[0]``)."""
    node = value
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Attribute) or node.func.attr in _NOT_VIEWS:
                return set()
            node = node.func.value
        elif isinstance(node, ast.Attribute) and node.attr in _NOT_VIEWS:
            return set()
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver:
            return {stored[node.attr]} if node.attr in stored else set()
        else:
            node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


_NOT_VIEWS = frozenset({"shape", "dtype", "device", "ndim", "size", "numel", "dim", "item", "tolist", "clone",
                        "copy", "__len__"})
"""What reads something of a tensor that is not (a view of) the tensor itself."""


_IN_PLACE_DUNDERS = frozenset(f"__i{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod",
                                                         "pow", "lshift", "rshift", "and", "xor", "or"))


def _in_place(method: str) -> bool:
    """Whether a method name is torch's spelling of an in-place operation (``add_``, ``copy_``, ``masked_fill_``),
    or Python's (``__iadd__``)."""
    return (method.endswith("_") and not method.startswith("_")) or method in _IN_PLACE_DUNDERS


def _base(node: ast.expr) -> ast.expr:
    """What an expression reads into: ``self.ids`` of ``self.ids[0]``, ``self.ids.data`` or ``self.ids.T[1:]``."""
    while isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute)
                                              and isinstance(node.value, (ast.Attribute, ast.Subscript))):
        node = node.value
    return node


def _attribute_of(node: ast.expr, receivers: set[str]) -> list[str]:
    node = _base(node)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in receivers:
        return [node.attr]
    return []


def _name_of(node: ast.expr) -> str:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _instance_dict(node: ast.AST, receivers: set[str]) -> bool:
    """``self.__dict__`` or ``vars(self)``."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return isinstance(node.value, ast.Name) and node.value.id in receivers
    return (isinstance(node, ast.Call) and plain_dotted(node.func) == "vars" and len(node.args) == 1
            and isinstance(node.args[0], ast.Name) and node.args[0].id in receivers)


def _only_read(node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether the instance's ``__dict__`` is only read where it appears (under ``parent``): a reading method's
    receiver (``.items()``), a reader's argument (``dict(vars(self))``), subscripted for a load, or iterated."""
    if isinstance(parent, ast.Attribute) and parent.attr in _DICT_READS:
        return True
    if isinstance(parent, ast.Call) and node in parent.args and plain_dotted(parent.func) in _READERS:
        return True
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Compare) and node in parent.comparators:
        return True
    return isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node


def _field(statement: ast.AnnAssign) -> FieldFacts:
    name, annotation, value = statement.target.id, statement.annotation, statement.value  # type: ignore[union-attr]
    written, named = source(annotation), annotation_name(annotation)
    if value is None:
        return FieldFacts(name, written, named, "")
    if isinstance(value, ast.Call):
        keywords = {k.arg: k.value for k in value.keywords if k.arg}
        init = keywords.get("init")
        return FieldFacts(name, written, named, "call", callee=plain_dotted(value.func),
                          init_false=isinstance(init, ast.Constant) and init.value is False,
                          keyword_default="default" in keywords or "default_factory" in keywords,
                          keyword_none=is_none(keywords.get("default")))
    return FieldFacts(name, written, named, "none" if is_none(value) else "other")


def annotation_name(annotation: ast.expr | None) -> str:
    """The dotted name an annotation names, a string annotation's read as the expression it holds; "" when it
    names none (a subscript, an expression, a string that does not parse: it is no tensor, as the planner has
    always judged it)."""
    return plain_dotted(annotation_expression(annotation))


def _simple_store(statement: ast.stmt) -> tuple[str, str] | None:
    """``self.attr = param`` (or annotated) -> (attr, param)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return None
    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
            and isinstance(value, ast.Name)):
        return target.attr, value.id
    return None
