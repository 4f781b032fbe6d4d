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

from ppaux_lint.facts.summarize.syntax import annotation_expression, is_none, plain_dotted, source
from ppaux_lint.facts.summary import ConstructorFacts, FieldFacts, InitFacts


def constructor_facts(node: ast.ClassDef) -> ConstructorFacts:
    """The facts of ``node``'s own body: its last plain ``def __init__`` at the top of the body (the one Python
    keeps) and every annotated name, in order."""
    init = next((d for d in reversed(node.body) if isinstance(d, ast.FunctionDef) and d.name == "__init__"), None)
    fields = tuple(_field(statement) for statement in node.body
                   if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name))
    no_init = tuple(plain_dotted(d.func) for d in node.decorator_list if isinstance(d, ast.Call) and any(
        k.arg == "init" and not (isinstance(k.value, ast.Constant) and k.value.value is True) for k in d.keywords))
    return ConstructorFacts(decorators=tuple(plain_dotted(d.func if isinstance(d, ast.Call) else d)
                                             for d in node.decorator_list),
                            init=_init(init) if init is not None else None, fields=fields, no_init=no_init)


def _init(init: ast.FunctionDef) -> InitFacts:
    args = init.args
    positional = [*args.posonlyargs, *args.args]
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
    )


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
