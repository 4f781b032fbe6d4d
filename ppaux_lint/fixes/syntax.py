"""Facts read off stdlib ``ast`` trees that the planner needs and the summaries do not keep.

Summaries record what the checks need; deciding that a rewrite is safe needs more of the file (every use of
a name, the exact returned dict, what only type checkers see), so these read the tree itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from ppaux_lint.contract.names import FROM_PP, TO_PP, is_near_miss
from ppaux_lint.facts.summarize.syntax import plain_dotted

_TYPE_CHECKING = frozenset({"TYPE_CHECKING", "typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


def intended_name(name: str) -> str | None:
    """The transport method a near-miss name was meant to be, when exactly one fits."""
    matches = [target for target in (TO_PP, FROM_PP) if is_near_miss(name, target)]
    if len(matches) != 1:
        return None
    return matches[0]


def binds(node: ast.ClassDef, name: str) -> bool:
    """Whether the class body already binds ``name`` (a rename onto it would shadow or be shadowed)."""
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and statement.name == name:
            return True
        targets = (statement.targets if isinstance(statement, ast.Assign)
                   else [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def other_references(tree: ast.Module, owner: ast.ClassDef, definition: ast.AST, name: str) -> bool:
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


def returns(function: ast.FunctionDef) -> list[ast.Return]:
    """Every way out of ``function``, counting falling off the end as ``return None``."""
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


def returned_mapping(node: ast.Return) -> tuple[tuple[str, str], ...] | None:
    """``return {"k": self.attr, ...}`` -> (("k", "attr"), ...); anything else -> None."""
    value = node.value
    if not isinstance(value, ast.Dict) or not value.keys:
        return None
    items = []
    for key, item in zip(value.keys, value.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value):
            return None
        if not (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self"):
            return None
        items.append((key.value, item.attr))
    if len({k for k, _ in items}) != len(items):
        return None
    return tuple(items)


def annotates_returns(node: ast.ClassDef) -> bool:
    """Whether the class's methods annotate returns, so that a generated one should too."""
    return any(isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.returns is not None for d in node.body)


def bound_before(tree: ast.Module, name: str, line: int) -> bool:
    """Whether an annotation that spells ``name`` can be evaluated at ``line``: annotations are not evaluated
    (``from __future__ import annotations``), or a module-level statement that ends before ``line`` binds the name's
    first part (a class, a function, an import, an assignment). Otherwise a ``def`` annotated with it raises
    ``NameError`` when the module is imported, and the annotation must be a string."""
    head = name.split(".")[0]
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__" and any(
                alias.name == "annotations" for alias in statement.names):
            return True
        if (statement.end_lineno or statement.lineno) >= line:
            continue
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            if any((alias.asname or alias.name.split(".")[0]) == head for alias in statement.names):
                return True
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if statement.name == head:
                return True
        elif isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == head
                                                       for t in statement.targets):
            return True
    return False


def annotation_evaluates(tree: ast.Module, node: ast.ClassDef, names: Iterable[str], builtins: Iterable[str] = (),
                         imported: bool = False) -> bool:
    """Whether a return annotation spelling ``names`` (dotted, as ``torch.Tensor``) and the builtins ``builtins``
    (``dict``, ``str``) can be written unquoted on a ``def`` added at the end of class ``node``: annotations are not
    evaluated (``from __future__ import annotations``), or each name is bound at module level before the class
    (``bound_before``) and not only for type checkers, and nothing closer binds any of them first. The ``def``'s
    annotation is evaluated in the class body, where the class's own names (a method called ``dict``) come first,
    then those of any function the class is defined in; a module-level binding of a builtin's name replaces it. Any
    of these means the annotation must be a string, which is never evaluated. ``imported``: the fix adds a top-level
    import of ``names`` (``import_lands_before`` says whether it runs before the class)."""
    if bound_before(tree, "", 0):
        return True
    names = list(names)
    heads = {name.split(".")[0] for name in names}
    builtin_names = set(builtins)
    if _enclosed_in_function(tree, node):
        return False
    if bound_names(node.body) & (heads | builtin_names) or bound_names(tree.body) & builtin_names:
        return False
    if imported:
        return import_lands_before(tree, node.lineno)
    typing_only = typing_only_names(tree)
    return all(name.split(".")[0] not in typing_only and bound_before(tree, name, node.lineno) for name in names)


def bound_names(statements: Sequence[ast.stmt]) -> set[str]:
    """Every name the statements bind in their own scope, however (an assignment, a loop, ``with ... as``, an
    import, a ``def``, a class, a walrus, ``del``), in any branch: nested functions' and classes' bodies are their
    own scopes and are not searched."""
    found: set[str] = set()
    todo: list[ast.AST] = list(statements)
    while todo:
        current = todo.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(current.name)
            todo.extend(current.decorator_list)
            if not isinstance(current, ast.ClassDef):
                todo.extend([*current.args.defaults, *(d for d in current.args.kw_defaults if d is not None)])
            else:
                todo.extend([*current.bases, *(k.value for k in current.keywords)])
            continue
        if isinstance(current, ast.Lambda):
            continue
        if isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
            found.add(current.id)
        elif isinstance(current, ast.alias):
            found.add(current.asname or current.name.split(".")[0])
        elif isinstance(current, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and current.name:
            found.add(current.name)
        elif isinstance(current, ast.MatchMapping) and current.rest:
            found.add(current.rest)
        elif isinstance(current, (ast.Global, ast.Nonlocal)):
            found.update(current.names)
        todo.extend(ast.iter_child_nodes(current))
    return found


def _enclosed_in_function(tree: ast.Module, node: ast.ClassDef) -> bool:
    """Whether the class statement is inside a function (whose names its body would see), at any depth."""
    todo: list[tuple[ast.AST, bool]] = [(tree, False)]
    while todo:
        current, in_function = todo.pop()
        if current is node:
            return in_function
        inside = in_function or isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((child, inside) for child in ast.iter_child_nodes(current))
    return True  # not found: nothing known of where it is


def import_lands_before(tree: ast.Module, line: int) -> bool:
    """Whether an import the fix adds (after the last top-level import, else at the top: ``codemod``) runs before
    ``line``, or annotations are not evaluated."""
    imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    return bound_before(tree, "", 0) or not imports or (imports[-1].end_lineno or imports[-1].lineno) < line


def typing_only_names(tree: ast.Module) -> set[str]:
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
                if plain_dotted(statement.test) in _TYPE_CHECKING:
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
