"""``walk_scope`` visits what ``ast.iter_child_nodes`` would, in the same order, without entering scopes.

It is written out by hand for speed (summarize/syntax.py), so it is held to the plain definition over every
function and class body of real code: ppaux-lint's own sources, the fixtures and the precision projects.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path

from ppaux_lint.facts.summarize.syntax import SCOPES, walk_scope

ROOT = Path(__file__).resolve().parent.parent


def _reference(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, SCOPES):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def test_walk_scope_is_the_plain_walk_on_real_code() -> None:
    files = sorted({*ROOT.joinpath("ppaux_lint").rglob("*.py"), *ROOT.joinpath("fixtures").rglob("*.py"),
                    *ROOT.joinpath("tests", "precision", "projects").rglob("*.py")})
    bodies = 0
    for path in files:
        tree = ast.parse(path.read_bytes())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, *SCOPES)):
                body = node.body if isinstance(node.body, list) else [node.body]  # a lambda's body is one node
                assert [id(n) for n in walk_scope(body)] == [id(n) for n in _reference(body)], path
                bodies += 1
    assert bodies > 1000
