"""Which class-like names a file uses as values: what could construct a class, pass it on or call its methods.

Produces ``FileSummary.value_names``. The index asks it one question: is an output base ever anything but a
base? A class that the project only subclasses, and never names in an expression that could run it
(``Base(...)``, ``Base.from_rows(...)``, ``registry = [Base]``), has no instance of its own to cross a stage,
so it is judged through its subclasses (``index/instances.py``). Being wrong here would hide a finding, so every use
counts except the ones that certainly construct nothing: a class's base list and keywords (and the bases of
a ``type(name, bases, namespace)`` call), annotations, the class argument of
``isinstance``/``issubclass``/``super``/``cast``, a class whose ``to_pp_tensors`` is looked up on it
(``Base.to_pp_tensors(self)``), and string constants. Only
class-like names (a capital after any underscores) are kept, which keeps summaries small; the index treats
any other class as possibly constructed.

It is one pass over the tree that does not enter those places, with no generator per node: measured on the
10,000-file monorepo benchmark's relevant files, a quarter of the cost of a generic ``ast.walk`` and a count
of the places to discount.
"""

from __future__ import annotations

import ast

from ppaux_lint.contract.names import TO_PP, is_class_like
from ppaux_lint.facts.summarize.syntax import CHILD_FIELDS, child_fields

_CLASS_ARGUMENT = {"isinstance": 1, "issubclass": 1, "super": 0, "cast": 0}  # callee -> index of the class
_Name, _Attribute, _Constant, _Call, _AnnAssign = ast.Name, ast.Attribute, ast.Constant, ast.Call, ast.AnnAssign
_AST = ast.AST
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Nodes that never hold a name: imports bind, they use nothing. The fields that hold none (a context, an
# operator, a comparison's operators) are left out as every walk leaves them (``syntax.children``).
_NAMELESS = frozenset({ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue})


def value_names(tree: ast.Module) -> tuple[str, ...]:
    seen: set[str] = set()
    stack: list[ast.AST] = [tree]
    pop, push, extend = stack.pop, stack.append, stack.extend
    fields_of = CHILD_FIELDS
    while stack:
        node = pop()
        kind = type(node)
        if kind is _Name:
            seen.add(node.id)
        elif kind is _Attribute:
            seen.add(node.attr)
            if node.attr != TO_PP or type(node.value) is not _Name:
                push(node.value)  # ``Base.to_pp_tensors(self)`` runs a base's method on an instance, and builds none
        elif kind is _Constant:
            continue
        elif kind is _Call:
            func = node.func
            push(func)
            callee = func.id if type(func) is _Name else func.attr if type(func) is _Attribute else ""
            at = _CLASS_ARGUMENT.get(callee)
            if callee == "type" and len(node.args) == 3:
                at = 1  # type(name, bases, namespace): the bases, as a class statement's, construct nothing
            extend(node.args if at is None else [a for i, a in enumerate(node.args) if i != at])
            extend([keyword.value for keyword in node.keywords])
        elif kind is ast.ClassDef:  # not its bases or keywords
            extend(node.body)
            extend(node.decorator_list)
        elif kind in _DEFINITIONS:  # not its annotations
            extend(node.body)
            extend(node.decorator_list)
            extend(node.args.defaults)
            extend([d for d in node.args.kw_defaults if d is not None])
        elif kind is _AnnAssign:  # not its annotation
            push(node.target)
            if node.value is not None:
                push(node.value)
        elif kind not in _NAMELESS:  # ``syntax.children``, inlined: no call and no list per node
            for field, mixed in fields_of.get(kind) or child_fields(kind):
                value = getattr(node, field, None)
                if type(value) is list:
                    extend([item for item in value if isinstance(item, _AST)] if mixed else value)
                elif isinstance(value, _AST):
                    push(value)
    return tuple(sorted(name for name in seen if is_class_like(name)))
