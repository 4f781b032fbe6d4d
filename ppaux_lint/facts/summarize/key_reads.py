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
        raising: list[tuple[int, int]] = []  # (node id, index in ``keys``) of each read that raises when missing
        tested = False
        for node in walk_scope(body):
            if isinstance(node, SCOPES):
                self.exact = False  # a closure may read the mapping in ways we do not follow
            elif isinstance(node, ast.Subscript) and self._is_param(node.value) and not isinstance(node.slice,
                                                                                                   ast.Slice):
                consumed.add(id(node.value))
                raising.append((id(node), len(self.keys)))
                self._record(node.slice, caught.get(id(node), ""))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and self._is_param(node.func.value) and node.func.attr in ("get", "pop", "__getitem__")
                  and node.args):
                consumed.add(id(node.func.value))
                missing = "get" if node.func.attr == "get" or len(node.args) > 1 or node.keywords else ""
                if not missing:
                    raising.append((id(node), len(self.keys)))
                self._record(node.args[0], missing or caught.get(id(node), ""))
            elif isinstance(node, ast.Compare):
                for op, comparator in zip(node.ops, node.comparators, strict=True):
                    if isinstance(op, (ast.In, ast.NotIn)) and self._is_param(comparator):
                        consumed.add(id(comparator))
                        tested = True
                        self._record(node.left, "in")
            elif self._is_param(node) and id(node) not in consumed:
                self.exact = False
        guarded = self._guarded(body) if tested and raising else set()  # a membership test may guard a read
        for node, at in raising:
            if node in guarded and at < len(self.keys):
                self.keys[at] = replace(self.keys[at], read="guarded")


    def _guarded(self, body: Sequence[ast.stmt]) -> set[int]:
        """The reads (by id) of a key under a test that the mapping holds it: the body of ``if "k" in tensors:``
        (or of ``if "k" not in tensors: ... else:``), and the branch of ``t["k"] if "k" in t else d`` it guards. A
        key never sent is never read there: the test is what finds nothing."""
        found: set[int] = set()
        for node in walk_scope(body):
            if isinstance(node, (ast.If, ast.IfExp)):
                tested = self._tested(node.test)
                if tested is None:
                    continue
                key, present = tested
                branch = node.body if present else node.orelse
                for child in (walk_scope(branch) if isinstance(branch, list) else ast.walk(branch)):
                    read = child.slice if isinstance(child, ast.Subscript) and self._is_param(child.value) else \
                        child.args[0] if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                        and self._is_param(child.func.value) and child.args else None
                    if read is not None and ast.dump(read) == key:
                        found.add(id(child))
        return found

    def _tested(self, test: ast.expr) -> tuple[str, bool] | None:
        """``"k" in tensors`` -> (the key as ``ast.dump`` writes it, True); ``not in`` -> False; else None."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and self._is_param(test.comparators[0]) \
                and isinstance(test.ops[0], (ast.In, ast.NotIn)):
            return ast.dump(test.left), isinstance(test.ops[0], ast.In)
        return None


_CATCHING = frozenset({"KeyError", "LookupError", "Exception", "BaseException"})
"""What an ``except`` names that catches the ``KeyError`` of a missing key (a bare ``except:`` does too)."""
_SUPPRESS = frozenset({"suppress", "contextlib.suppress"})


def _caught(body: Sequence[ast.stmt]) -> dict[int, str]:
    """The nodes (by id) inside the body of a ``try`` whose handlers catch a missing key's ``KeyError``, or of a
    ``with contextlib.suppress(KeyError)``: "caught" where a read there raises nothing out of the method,
    "reraised" where the handler raises again (``except KeyError: raise RuntimeError(...)``). Only where the
    method holds such a ``try`` or ``with``."""
    found: dict[int, str] = {}
    for stmt in walk_statements(body):
        if isinstance(stmt, TRY_STATEMENTS):
            handlers = [h for h in stmt.handlers if _catches(h.type)]
            if handlers:
                how = "reraised" if all(h.body and isinstance(h.body[-1], ast.Raise) for h in handlers) else "caught"
                found.update((id(node), how) for node in walk_scope(stmt.body))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call) and dotted(item.context_expr.func) in _SUPPRESS
                and any(_catches(arg) for arg in item.context_expr.args) for item in stmt.items):
            found.update((id(node), "caught") for node in walk_scope(stmt.body))
    return found


def _catches(kind: ast.expr | None) -> bool:
    if kind is None:
        return True
    if isinstance(kind, ast.Tuple):
        return any(_catches(element) for element in kind.elts)
    return dotted(kind).rsplit(".", 1)[-1] in _CATCHING
