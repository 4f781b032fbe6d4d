"""Which tests in a function say that a literal key is absent from a mapping it was handed, however they are spelt.

Produces nothing of its own: ``returns`` marks the returns of None that run only when such a key is absent
(``ReturnFact.absent_keys``, ``FunctionFlow.absent``), which SGLang's helper never takes when the output always
sends the key. Every spelling here is read for what it certainly means of the keys, and the helper hands over
tensors only (``torch.is_tensor`` of each value before it is sent), never a None:

- ``"ids" not in tensors`` (also ``tensors.keys()``), ``tensors.get("ids") is None``, a name bound once to
  ``tensors.get("ids")`` (``ids = tensors.get("ids")``, or ``(ids := tensors.get("ids"))`` in the test) then
  tested ``is None``, ``any(k not in tensors for k in ("a", "b"))``, and ``not`` of a test that keys are there;
- their opposites (``"ids" in tensors``, ``... is not None``, ``all(k in tensors for k in (...))``,
  ``{"ids", "scores"} <= tensors.keys()``);
- ``and`` and ``or`` of such tests, where what the whole says follows from its parts: a test that some key is
  absent joined by ``or`` needs each part to be one, by ``and`` one part suffices;
- the handler of ``except KeyError:`` (or ``LookupError``, ``Exception``, a bare ``except``) after a ``try`` whose
  body only reads literal keys (``ids = tensors["ids"]``): it runs only when one of them is absent;
- ``match tensors:`` with a case that matches whenever its literal keys are there (``case {"ids": ids}:``, no
  guard): a later case, or no case at all, is taken only when one of them is absent.

A test that something else holds (``not tensors.get("ids")``: a tensor's truth is its value) says nothing.
"""

from __future__ import annotations

import ast

from ppaux_lint.facts.summarize.syntax import SCOPES, is_none, walk_scope, walk_statements

Keys = tuple[str, ...]
_CATCHING = frozenset({"KeyError", "LookupError", "Exception", "BaseException"})


class KeyTests:
    """The key tests of one function's body about one mapping, ``data``: a parameter it never changes."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef, data: str) -> None:
        self.data = data
        self._got = _got(node, data)  # names bound once, to ``data.get(key)``: key by name

    def absent(self, test: ast.expr) -> Keys:
        """Keys one of which is certainly absent when ``test`` is true; () when the test says no such thing."""
        return self._keys(test, absent=True)

    def present(self, test: ast.expr) -> Keys:
        """Keys that, all there, make ``test`` certainly true; () when no keys do."""
        return self._keys(test, absent=False)

    def _keys(self, test: ast.expr, absent: bool) -> Keys:
        kind = type(test)
        if kind is ast.UnaryOp and isinstance(test.op, ast.Not):
            return self._keys(test.operand, not absent)
        if kind is ast.BoolOp:
            return self._joined(test, every=isinstance(test.op, ast.Or if absent else ast.And), absent=absent)
        if kind is ast.Compare and len(test.ops) == 1:
            return self._compared(test, *((ast.NotIn, ast.Is) if absent else (ast.In, ast.IsNot)))
        if kind is ast.Call:
            return self._each(test, *(("any", ast.NotIn) if absent else ("all", ast.In)))
        return ()

    def _joined(self, test: ast.BoolOp, every: bool, absent: bool) -> Keys:
        """``and``/``or``: with ``every``, each operand must say it (the whole is true whenever one operand is);
        otherwise one operand saying it is enough."""
        parts = [self._keys(value, absent) for value in test.values]
        if (every and not all(parts)) or not any(parts):
            return ()
        return tuple(dict.fromkeys(key for part in parts for key in part))

    def _compared(self, test: ast.Compare, membership: type[ast.cmpop], identity: type[ast.cmpop]) -> Keys:
        left, operator, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(operator, membership) and self._is_data(right) and _literal(left):
            return (left.value,)  # type: ignore[attr-defined]
        if isinstance(operator, identity) and is_none(right):
            key = self._got_key(left)
            return (key,) if key else ()
        if membership is ast.In:  # ``{"a", "b"} <= tensors.keys()``: true whenever both are there
            if isinstance(operator, ast.LtE) and self._is_keys(right):
                return _literal_set(left)
            if isinstance(operator, ast.GtE) and self._is_keys(left):
                return _literal_set(right)
        return ()

    def _is_keys(self, node: ast.expr) -> bool:
        """``data.keys()``, whose ``<=`` and ``>=`` compare sets of keys (a dict's own compare nothing)."""
        return isinstance(node, ast.Call) and self._is_data(node)

    def _each(self, call: ast.Call, function: str, membership: type[ast.cmpop]) -> Keys:
        """``any(k not in data for k in ("a", "b"))`` (absent) or ``all(k in data for k in ("a", "b"))`` (present)."""
        if not (isinstance(call.func, ast.Name) and call.func.id == function and len(call.args) == 1
                and not call.keywords and isinstance(call.args[0], ast.GeneratorExp)):
            return ()
        generator = call.args[0]
        if len(generator.generators) != 1:
            return ()
        loop = generator.generators[0]
        element = generator.elt
        keys = loop.iter.elts if isinstance(loop.iter, (ast.Tuple, ast.List, ast.Set)) else None
        if (keys is None or loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name)
                or not all(_literal(key) for key in keys) or not isinstance(element, ast.Compare)
                or len(element.ops) != 1 or not isinstance(element.ops[0], membership)
                or not (isinstance(element.left, ast.Name) and element.left.id == loop.target.id)
                or not self._is_data(element.comparators[0])):
            return ()
        return tuple(dict.fromkeys(key.value for key in keys))  # type: ignore[attr-defined]

    def _got_key(self, node: ast.expr) -> str:
        """The key of ``data.get(key)`` (or ``data.get(key, None)``), written there, through a name bound once to
        it, or through ``(name := data.get(key))``; "" for anything else."""
        if isinstance(node, ast.NamedExpr):
            node = node.value
        if isinstance(node, ast.Name):
            return self._got.get(node.id, "")
        return _get_key(node, self.data)

    def _is_data(self, node: ast.expr) -> bool:
        """``data`` itself, or ``data.keys()``."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
                and not node.args and not node.keywords:
            node = node.func.value
        return isinstance(node, ast.Name) and node.id == self.data

    def handled(self, statement: ast.stmt) -> list[tuple[Keys, list[ast.stmt]]]:
        """For a ``try`` whose body only reads literal keys of ``data`` into names, each handler that catches the
        ``KeyError`` of a missing one, with those keys: it runs only when one of them is absent."""
        if not isinstance(statement, ast.Try):  # its ``else`` and ``finally`` change nothing of when a handler runs
            return []
        keys: list[str] = []
        for read in statement.body:
            targets = read.targets if isinstance(read, ast.Assign) else [read.target] \
                if isinstance(read, ast.AnnAssign) and read.value is not None else None
            value = getattr(read, "value", None)
            if not targets or value is None:
                return []
            if isinstance(value, ast.Tuple) and len(targets) == 1 and isinstance(targets[0], ast.Tuple) \
                    and len(targets[0].elts) == len(value.elts):  # ``a, b = tensors["a"], tensors["b"]``
                targets, values = targets[0].elts, value.elts
            else:
                values = [value]
            read_keys = [self._read_key(v) for v in values]
            if not all(isinstance(t, ast.Name) for t in targets) or not all(read_keys):
                return []
            keys.extend(read_keys)
        return [(tuple(dict.fromkeys(keys)), handler.body) for handler in statement.handlers if _catches(handler)]

    def _read_key(self, value: ast.expr) -> str:
        """The key of ``data["key"]``; "" for anything else."""
        if isinstance(value, ast.Subscript) and _literal(value.slice) and isinstance(value.value, ast.Name) \
                and value.value.id == self.data:
            return value.slice.value  # type: ignore[attr-defined]
        return ""

    def cases(self, statement: ast.stmt) -> list[tuple[Keys, list[ast.stmt]]]:
        """For ``match data:``, each case after one that matches whenever its keys are all there (``case {"ids":
        ids}:``, ``_mapped``), with those keys: it runs only when one of them is absent."""
        if not isinstance(statement, ast.Match) or not self._is_data(statement.subject):
            return []
        before = _fewest_before(statement.cases)
        return [(keys, case.body) for keys, case in zip(before[:-1], statement.cases, strict=True) if keys]

    def unmatched(self, statement: ast.stmt) -> Keys:
        """For ``match data:``, keys one of which is absent whenever no case matched: those of a case that matches
        whenever they are all there; () for any other statement."""
        if not isinstance(statement, ast.Match) or not self._is_data(statement.subject):
            return ()
        return _fewest_before(statement.cases)[-1]


def _fewest_before(cases: list[ast.match_case]) -> list[Keys]:
    """For each case and then for the end of the ``match``, the fewest keys of the cases before it that match
    whenever their keys are all there (the first of equals): each such case that did not match lacks one of its
    own, so any of them says it, and fewer keys are likelier all sent."""
    out: list[Keys] = [()]
    for case in cases:
        keys, fewest = _mapped(case), out[-1]
        out.append(keys if keys and (not fewest or len(keys) < len(fewest)) else fewest)
    return out


def _mapped(case: ast.match_case) -> Keys:
    """The literal keys of a case that matches any mapping holding them all: ``case {"ids": ids, "b": _}:`` (each
    value captured or ignored, ``**rest`` or not), no guard. () for any other case."""
    pattern = case.pattern
    if case.guard is not None or not isinstance(pattern, ast.MatchMapping) or not pattern.keys \
            or not all(_literal(key) for key in pattern.keys) \
            or not all(isinstance(p, ast.MatchAs) and p.pattern is None for p in pattern.patterns):
        return ()
    return tuple(dict.fromkeys(key.value for key in pattern.keys))  # type: ignore[attr-defined]


def _catches(handler: ast.ExceptHandler) -> bool:
    """Whether the handler certainly catches a ``KeyError``."""
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(isinstance(name, ast.Name) and name.id in _CATCHING for name in names)


def _literal_set(node: ast.expr) -> Keys:
    """The keys of a set display of literal keys (``{"a", "b"}``); () for anything else."""
    if isinstance(node, ast.Set) and all(_literal(key) for key in node.elts):
        return tuple(dict.fromkeys(key.value for key in node.elts))  # type: ignore[attr-defined]
    return ()


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _get_key(node: ast.expr, data: str) -> str:
    """The key of ``data.get("key")`` or ``data.get("key", None)``; "" for anything else."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == data and not node.keywords
            and 1 <= len(node.args) <= 2 and _literal(node.args[0])
            and (len(node.args) == 1 or is_none(node.args[1]))):
        return ""
    return node.args[0].value  # type: ignore[attr-defined]


def _got(node: ast.FunctionDef | ast.AsyncFunctionDef, data: str) -> dict[str, str]:
    """The names the function binds exactly once, by ``name = data.get(key)``, and to nothing else, anywhere: key by
    name. A parameter, or a name a nested function may rebind (``nonlocal``), is left out."""
    body = node.body
    got: dict[str, str] = {}
    for statement in walk_statements(body):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            key = _get_key(statement.value, data)
            if key:
                got[statement.targets[0].id] = key
    if not got:
        return got
    arguments = node.args
    stores = {a.arg: 2 for a in (*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs,
                                 arguments.kwarg) if a is not None}
    for child in walk_scope(body):
        for name in _binds(child):
            stores[name] = stores.get(name, 0) + 1
        if isinstance(child, SCOPES):  # a nested scope that declares one of them its own may rebind it
            for inner in ast.walk(child):
                if isinstance(inner, (ast.Nonlocal, ast.Global)):
                    for name in inner.names:
                        stores[name] = stores.get(name, 0) + 2
    return {name: key for name, key in got.items() if stores.get(name) == 1}


def _binds(node: ast.AST) -> list[str]:
    """The names a node binds in the scope it is in: a stored or deleted name, a definition, an import, an
    ``except ... as``, a capture of a ``match`` pattern."""
    if isinstance(node, ast.Name):
        return [] if isinstance(node.ctx, ast.Load) else [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    name = getattr(node, "name", None) if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) else \
        getattr(node, "rest", None) if isinstance(node, ast.MatchMapping) else None
    return [name] if name else []
