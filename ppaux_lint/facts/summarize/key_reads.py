"""The keys a method reads from the mapping it receives (``from_pp_tensors(self, tensors)``).

Produces ``MethodSummary.keys_read`` and ``MethodSummary.keys_read_exact``: what
lets a rule compare the keys one side sends with those the other side reads.
``exact`` matters as much as the keys: a rule may only call a sent key unread
when these reads are certainly all the method does with the mapping. A key computed from
constants (``tensors[K_TOP1]``) is such a read; the rules resolve it, and are silent where
the index cannot.
"""

from __future__ import annotations

import ast
from collections.abc import Container, Sequence
from dataclasses import replace

from ppaux_lint.facts.summarize.syntax import SCOPES, TRY_STATEMENTS, dotted, walk_scope, walk_statements
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summarize.values import key_fact
from ppaux_lint.facts.summary import KeyFact


class KeyReads:
    """Keys read from the received mapping, and whether those reads are all the mapping is used for."""

    def __init__(self, param: str, positions: Positions, names: Container[str] = ()) -> None:
        self.param = param
        self.positions = positions
        self.names = names
        self.keys: list[KeyFact] = []
        self.exact = bool(param)

    def _is_param(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == self.param

    def _record(self, key: ast.expr, read: str) -> None:
        fact = key_fact(key, self.positions, self.names)
        if fact.kind == "nonstr" or (fact.kind == "dynamic" and not fact.computed):
            fact = KeyFact("dynamic", "", fact.span)
        self.keys.append(replace(fact, read=read) if read else fact)
        if fact.kind == "dynamic" and not fact.computed:
            self.exact = False

    def scan(self, body: Sequence[ast.stmt]) -> None:
        if not self.param:
            return
        consumed: set[int] = set()
        caught = _caught(body)
        for node in walk_scope(body):
            if isinstance(node, SCOPES):
                self.exact = False  # a closure may read the mapping in ways we do not follow
            elif isinstance(node, ast.Subscript) and self._is_param(node.value) and not isinstance(node.slice,
                                                                                                   ast.Slice):
                consumed.add(id(node.value))
                self._record(node.slice, "caught" if id(node) in caught else "")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and self._is_param(node.func.value) and node.func.attr in ("get", "pop", "__getitem__")
                  and node.args):
                consumed.add(id(node.func.value))
                missing = "get" if node.func.attr == "get" or len(node.args) > 1 or node.keywords else ""
                self._record(node.args[0], missing or ("caught" if id(node) in caught else ""))
            elif isinstance(node, ast.Compare):
                for op, comparator in zip(node.ops, node.comparators, strict=True):
                    if isinstance(op, (ast.In, ast.NotIn)) and self._is_param(comparator):
                        consumed.add(id(comparator))
                        self._record(node.left, "in")
            elif self._is_param(node) and id(node) not in consumed:
                self.exact = False


_CATCHING = frozenset({"KeyError", "LookupError", "Exception", "BaseException"})
"""What an ``except`` names that catches the ``KeyError`` of a missing key (a bare ``except:`` does too)."""


def _caught(body: Sequence[ast.stmt]) -> set[int]:
    """The nodes (by id) inside the body of a ``try`` whose handlers catch a missing key's ``KeyError``: a read
    there raises nothing out of the method. Only where the method holds such a ``try``."""
    found: set[int] = set()
    for stmt in walk_statements(body):
        if isinstance(stmt, TRY_STATEMENTS) and any(_catches(h.type) for h in stmt.handlers):
            found.update(id(node) for node in walk_scope(stmt.body))
    return found


def _catches(kind: ast.expr | None) -> bool:
    if kind is None:
        return True
    if isinstance(kind, ast.Tuple):
        return any(_catches(element) for element in kind.elts)
    return dotted(kind).rsplit(".", 1)[-1] in _CATCHING
