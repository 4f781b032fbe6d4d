"""The summarizer's hand-written walks visit what the plain ones (``ast.iter_child_nodes``) would, in order.

``walk_scope`` and ``children`` (summarize/syntax.py) and the class-body store search (summarize/classes.py) are
written out for speed, so each is held to the plain definition over real code: ppaux-lint's own sources, the
fixtures and the precision projects. The first two leave out expression contexts and operators, which no reading
of a tree visits (it reads ``node.ctx`` and ``node.op`` as attributes): the plain walk without those.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path

from ppaux_lint.facts.summarize.syntax import SCOPES, children, source, walk_scope

ROOT = Path(__file__).resolve().parent.parent
_LEFT_OUT = (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)


def _plain_children(node: ast.AST) -> list[ast.AST]:
    return [child for child in ast.iter_child_nodes(node) if not isinstance(child, _LEFT_OUT)]


def _reference(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, SCOPES):
            stack.extend(reversed(_plain_children(node)))


def _files() -> list[Path]:
    return sorted({*ROOT.joinpath("ppaux_lint").rglob("*.py"), *ROOT.joinpath("fixtures").rglob("*.py"),
                   *ROOT.joinpath("tests", "precision", "projects").rglob("*.py")})


def test_walk_scope_is_the_plain_walk_on_real_code() -> None:
    bodies = 0
    for path in _files():
        tree = ast.parse(path.read_bytes())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, *SCOPES)):
                body = node.body if isinstance(node.body, list) else [node.body]  # a lambda's body is one node
                assert [id(n) for n in walk_scope(body)] == [id(n) for n in _reference(body)], path
                bodies += 1
    assert bodies > 1000


def test_children_are_the_plain_children_without_contexts_or_operators() -> None:
    nodes = left_out = 0
    for path in _files():
        for node in ast.walk(ast.parse(path.read_bytes())):
            assert [id(n) for n in children(node)] == [id(n) for n in _plain_children(node)], (path, ast.dump(node))
            nodes += 1
            left_out += isinstance(node, _LEFT_OUT)
    assert nodes > 100_000 and left_out > 10_000  # the real code has both kinds


def test_source_spells_names_as_unparse_does() -> None:
    """``source`` spells dotted names, subscripts and tuples of them, and plain constants itself, and anything else
    through ``ast.unparse``: the text a rule compares (an annotation, a key) is the same either way."""
    dotted = 0
    for path in _files():
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.Constant)):
                assert source(node) == ast.unparse(node), (path, ast.dump(node))
                dotted += isinstance(node, ast.Attribute)
    assert dotted > 10_000


def test_source_spells_the_edge_shapes_as_unparse_does() -> None:
    """The shapes next to those ``source`` spells itself: a one-item tuple (its comma), a subscript of a call, a
    starred item, strings that hold a quote, a backslash, a line break or non-ASCII text, a ``u`` string, bools,
    big ints, floats, bytes, an ellipsis."""
    written = ['x[a,]', 'x[a, b]', 'x[()]', 'x[a, *b]', 'f()[a]', 'x[1]', 'x["k"]', '(a,)', '(a, b)', '()',
               '(a, 1)', '"it\'s"', "'say \"hi\"'", '"a\\b"', '"a\\nb"', '"é"', 'u"x"', '""', 'True', 'None',
               '10**30', str(10**30), '1.5', 'b"x"', '...', 'a.b[c.d, e]', 'x[a:b]', 'x[a][b]']
    for text in written:
        node = ast.parse(text, mode="eval").body
        assert source(node) == ast.unparse(node), text


def test_children_leave_out_what_lists_hold_besides_nodes() -> None:
    """The only list fields that hold other things than nodes (``global``'s names, ``None`` in a dict display's
    keys and in ``kw_defaults``) give their nodes alone: the other list fields are taken whole."""
    tree = ast.parse("def f(*, a, b=1):\n    global g\n    return {**a, 'k': b}\n")
    for node in ast.walk(tree):
        assert all(isinstance(child, ast.AST) for child in children(node)), ast.dump(node)
    function = tree.body[0]
    assert [type(n) for n in children(function.args)] == [ast.arg, ast.arg, ast.Constant]
    assert children(function.body[0]) == []


def _targets_reference(body: Sequence[ast.stmt], nested: bool) -> Iterator[tuple[ast.stmt, ast.expr]]:
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.Assign, ast.Delete)):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        else:
            targets = []
        while targets:
            target = targets.pop()
            if isinstance(target, (ast.Tuple, ast.List)):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
            else:
                yield stmt, target
        if nested or not isinstance(stmt, SCOPES):
            stack.extend(reversed([child for child in ast.iter_child_nodes(stmt)
                                   if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case))]))


def test_class_targets_are_found_in_the_plain_walks_order() -> None:
    """``classes._targets`` enters only the fields that hold statements; the stores it finds, and their order
    (a later store of an attribute decides its field), are those of entering every child."""
    from ppaux_lint.facts.summarize.classes import _targets

    classes = 0
    for path in _files():
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.ClassDef):
                for nested in (False, True):
                    assert [(id(s), id(t)) for s, t in _targets(node.body, nested)] == \
                        [(id(s), id(t)) for s, t in _targets_reference(node.body, nested)], path
                classes += 1
    assert classes > 300


def test_plain_dotted_is_dotted_without_subscripts() -> None:
    """``plain_dotted`` follows the chain instead of walking the expression for a subscript."""
    from ppaux_lint.facts.summarize.syntax import dotted, plain_dotted

    expressions = 0
    for path in _files():
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.expr):
                plain = "" if any(isinstance(n, ast.Subscript) for n in ast.walk(node)) else dotted(node)
                assert plain_dotted(node) == plain, (path, ast.unparse(node))
                expressions += 1
    assert plain_dotted(None) == "" and expressions > 10_000


def test_the_fix_planner_finds_every_class_statement() -> None:
    """``fixes.sources._class_defs`` reaches statements through their blocks only, and still finds every class,
    at any depth (in functions, branches, handlers, match cases)."""
    from ppaux_lint.fixes.sources import _class_defs

    for path in _files():
        tree = ast.parse(path.read_bytes())
        assert {id(n) for n in _class_defs(tree.body)} == \
            {id(n) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}, path


def test_walk_statements_is_the_statements_of_the_plain_walk() -> None:
    """``walk_statements`` meets the statements, handlers and cases of ``walk_scope``, in its order."""
    from ppaux_lint.facts.summarize.syntax import walk_statements

    kinds = (ast.stmt, ast.excepthandler, ast.match_case)
    for path in _files():
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                assert [id(n) for n in walk_statements(node.body)] == \
                    [id(n) for n in _reference(node.body) if isinstance(n, kinds)], path
