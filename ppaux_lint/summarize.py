"""One parse of one file, producing its FileSummary.

This is the only module that sees syntax trees. It records facts, not
verdicts: which names a class lists as bases, what its methods return, which
keys they read. Whether any of that is a problem needs the whole project, and
is decided by the index and the rules.

It parses with the standard library's ``ast``, not libcst: analysis needs no
concrete syntax, and CPython's C parser is 10-50x faster than building a
libcst tree with position metadata (see the README's design notes). libcst is
kept for what it is best at, rewriting code losslessly in ``--fix``.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from typing import Iterator, Sequence

from ppaux_lint.names import TRANSPORT_METHODS, is_near_miss
from ppaux_lint.pp_errors import PP_KEY_PREFIX
from ppaux_lint.summary import (
    CallSite,
    ClassSummary,
    Field,
    FileSummary,
    Import,
    KeyFact,
    MemberAssign,
    MethodSummary,
    Param,
    ParseError,
    PrefixUse,
    ReturnFact,
    Span,
    ValueFact,
)

HELPER_NAMES = frozenset({"add_auxiliary_output_to_pp_tensors", "pop_auxiliary_output_from_pp_tensors"})

# Calls whose result is certainly not a tensor, whatever their argument.
_NON_TENSOR_CALLS = {
    "len": "an int (len())", "str": "a str", "repr": "a str", "int": "an int", "float": "a float",
    "bool": "a bool", "complex": "a complex", "list": "a list", "tuple": "a tuple", "dict": "a dict",
    "set": "a set", "frozenset": "a frozenset", "range": "a range", "bytes": "bytes",
}
# Methods whose result is certainly not a tensor, whatever their receiver.
_NON_TENSOR_METHODS = {
    "tolist": "a Python list (.tolist())", "item": "a Python number (.item())",
    "numpy": "a NumPy array (.numpy())", "size": "a torch.Size or int (.size())", "dim": "an int (.dim())",
    "numel": "an int (.numel())", "data_ptr": "an int (.data_ptr())", "keys": "a dict view (.keys())",
    "values": "a dict view (.values())", "items": "a dict view (.items())",
}
_NON_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim"})
_DISPLAYS = {ast.List: "a list", ast.Tuple: "a tuple", ast.Set: "a set", ast.Dict: "a dict",
             ast.ListComp: "a list", ast.SetComp: "a set", ast.DictComp: "a dict",
             ast.GeneratorExp: "a generator", ast.Lambda: "a function"}
_EXITS = frozenset({"sys.exit", "exit", "os._exit", "typing.assert_never", "assert_never"})
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Methods whose returns and key reads the rules use; other methods get only their signature, since
# walking every method body of every class in a big module is most of the time spent here.
_DETAILED = frozenset({*TRANSPORT_METHODS, "after_sample"})


def summarize_source(source: bytes, path: str, module: str, is_package: bool) -> FileSummary:
    """Summarize one file's bytes; undecodable or unparsable input becomes a summary carrying the error."""
    try:
        with warnings.catch_warnings():  # the checked code's SyntaxWarnings (and its codecs' warnings) are
            warnings.simplefilter("ignore")  # not ours to print; under PYTHONWARNINGS=error they would fail it
            text = _decode(source)
            tree = ast.parse(source, filename=path, type_comments=False)
    except _Unreadable as exc:
        return _with_error(path, module, is_package, exc.error)
    except SyntaxError as exc:
        line = exc.lineno or 1
        column = max(1, exc.offset or 1)
        return _with_error(path, module, is_package,
                           ParseError(f"syntax error: {exc.msg}", Span(line, column, line, column)))
    except (RecursionError, MemoryError):
        return _with_error(path, module, is_package,
                           ParseError("too deeply nested for the Python parser", Span(1, 1, 1, 1)))
    except ValueError as exc:  # what some Python versions raise instead of SyntaxError
        return _with_error(path, module, is_package, ParseError(f"cannot parse: {exc}", Span(1, 1, 1, 1)))
    collector = _Collector(module, is_package, _Positions(text))
    try:
        with warnings.catch_warnings():  # string annotations are parsed too
            warnings.simplefilter("ignore")
            collector.walk(tree, deep=PP_KEY_PREFIX in text or any(name in text for name in HELPER_NAMES))
    except RecursionError:
        return _with_error(path, module, is_package,
                           ParseError("too deeply nested to analyse", Span(1, 1, 1, 1)))
    return FileSummary(
        path=path,
        module=module,
        is_package=is_package,
        classes=tuple(collector.classes),
        imports=tuple(sorted(collector.imports, key=lambda i: i.nested)),
        all_names=collector.all_names,
        assignments=tuple(collector.assignments),
        calls=tuple(collector.helper_calls()),
        prefix_uses=tuple(collector.prefix_uses),
        noqa=_noqa_lines(text) if "noqa" in text.lower() else (),
        defs=tuple(collector.defs),
        defines_helpers=HELPER_NAMES <= set(collector.defs),
    )


class _Unreadable(Exception):
    def __init__(self, error: ParseError) -> None:
        super().__init__(error.reason)
        self.error = error


def _with_error(path: str, module: str, is_package: bool, error: ParseError) -> FileSummary:
    return FileSummary(path=path, module=module, is_package=is_package, error=error)


def _decode(source: bytes) -> str:
    """The file's text, honouring a coding cookie and a BOM as the interpreter does."""
    nul = source.find(b"\x00")
    if nul >= 0:
        line = source.count(b"\n", 0, nul) + 1
        raise _Unreadable(ParseError("file contains a NUL byte", Span(line, 1, line, 1)))
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, LookupError) as exc:
        raise _Unreadable(ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1))) from None
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        raise _Unreadable(ParseError(f"cannot decode as {exc.encoding}: {exc.reason} at byte {exc.start}",
                                     Span(line, 1, line, 1))) from None
    except UnicodeError as exc:  # codecs such as punycode or "undefined" raise the base class
        raise _Unreadable(ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1))) from None


def _noqa_lines(text: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    found = []
    for number, line in enumerate(_NEWLINE.split(text), start=1):
        match = _NOQA.search(line)
        if match:
            codes = match.group("codes")
            found.append((number, tuple(c.strip().upper() for c in codes.split(",")) if codes else ()))
    return tuple(found)


class _Positions:
    """ast counts columns in UTF-8 bytes; reports count characters. Converts, for the few nodes we keep."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None

    def _column(self, line: int, byte_offset: int) -> int:
        if self._lines is None:
            self._lines = _NEWLINE.split(self.text)
        if not 0 < line <= len(self._lines):
            return byte_offset + 1
        content = self._lines[line - 1]
        if content.isascii():
            return byte_offset + 1
        return len(content.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace")) + 1

    def span(self, node: ast.AST) -> Span:
        line, end_line = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        return Span(line, self._column(line, node.col_offset),  # type: ignore[attr-defined]
                    end_line, self._column(end_line, node.end_col_offset or 0))  # type: ignore[attr-defined]

    def name_span(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> Span:
        """The span of a definition's name, which ast does not record: found after the keyword."""
        if self._lines is None:
            self._lines = _NEWLINE.split(self.text)
        line = node.lineno
        content = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        start = self._column(line, node.col_offset) - 1
        match = re.compile(r"(?:async\s+)?(?:def|class)\s+").match(content, start)
        column = (match.end() if match else start) + 1
        return Span(line, column, line, column + len(node.name))


def dotted(node: ast.AST | None) -> str:
    """``a.b.C`` for a Name/Attribute chain, the callee for ``Generic[T]``, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    if isinstance(node, ast.Subscript):
        return dotted(node.value)
    return ""


def _decorator_name(node: ast.expr) -> str:
    return dotted(node.func if isinstance(node, ast.Call) else node)


def _string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _is_none(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _source(text: str, node: ast.AST) -> str:
    """Normalised source of a small node (an annotation, a key). ``ast.get_source_segment`` would
    re-split the whole file on every call."""
    return ast.unparse(node)


def _walk_scope(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Every node under ``nodes`` in source order, not entering nested functions, classes or lambdas."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


class _Collector:
    """Walks one module in source order, keeping the enclosing classes and functions for qualified names."""

    def __init__(self, module: str, is_package: bool, positions: _Positions) -> None:
        self.module = module
        self.is_package = is_package
        self.positions = positions
        self.classes: list[ClassSummary] = []
        self.imports: list[Import] = []
        self.all_names: tuple[str, ...] | None = None
        self.assignments: list[tuple[str, str]] = []
        self.calls: list[CallSite] = []
        self.prefix_uses: list[PrefixUse] = []
        self.defs: list[str] = []
        self.deep = False

    def walk(self, tree: ast.Module, deep: bool) -> None:
        """``deep`` also visits every expression, for helper calls and prefix uses; files that spell
        neither a helper's name nor the prefix skip that, which is most of the cost of a big module."""
        self.deep = deep
        self._walk(tree.body, scope=(), frame={})

    def _walk(self, body: Sequence[ast.stmt], scope: tuple[tuple[str, str], ...], frame: dict) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                self.classes.append(self._summarize_class(stmt, scope))
                self._expressions(stmt.decorator_list + stmt.bases + [k.value for k in stmt.keywords], scope, frame)
                self._walk(stmt.body, scope + (("class", stmt.name),), frame)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not scope:
                    self.defs.append(stmt.name)
                defaults = [d for d in stmt.args.defaults + stmt.args.kw_defaults if d is not None]
                self._expressions(stmt.decorator_list + defaults, scope, frame)
                self._walk(stmt.body, scope + (("def", stmt.name),), {})
            else:
                self._statement(stmt, scope, frame)
                children, bodies = _split_statement(stmt)
                self._expressions(children, scope, frame)
                for nested in bodies:
                    self._walk(nested, scope, frame)

    def _expressions(self, nodes: Sequence[ast.AST], scope: tuple, frame: dict) -> None:
        if not self.deep:
            return
        stack = list(reversed(nodes))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Call):
                self._call(node, scope, frame)
            elif isinstance(node, ast.Subscript) and _starts_with_prefix(node.slice):
                self.prefix_uses.append(PrefixUse(self.positions.span(node.slice), "subscript"))
            elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                if _starts_with_prefix(node.left):
                    self.prefix_uses.append(PrefixUse(self.positions.span(node.left), "'in' test"))
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    def _statement(self, node: ast.stmt, scope: tuple[tuple[str, str], ...], frame: dict) -> None:
        nested = bool(scope)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.imports.append(Import(alias.asname, alias.name, nested=nested))
                else:
                    head = alias.name.split(".")[0]
                    self.imports.append(Import(head, head, nested=nested))
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node, nested)
        elif isinstance(node, ast.Assign):
            self._assign(node, scope, frame)
        elif isinstance(node, ast.AugAssign) and not scope:
            if isinstance(node.target, ast.Name) and node.target.id == "__all__":
                extra = _string_sequence(node.value)
                self.all_names = (self.all_names + extra) if (self.all_names is not None and extra is not None) \
                    else None

    # -- imports and bindings ---------------------------------------------------------
    def _import_from(self, node: ast.ImportFrom, nested: bool) -> None:
        base = self._absolute(node.level, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.imports.append(Import("*", base, star=True, nested=nested))
            else:
                target = f"{base}.{alias.name}" if base else alias.name
                self.imports.append(Import(alias.asname or alias.name, target, nested=nested))

    def _absolute(self, level: int, module: str) -> str:
        if not level:
            return module
        package = self.module.split(".") if self.module else []
        if not self.is_package:
            package = package[:-1]
        package = package[: len(package) - (level - 1)] if level - 1 <= len(package) else []
        return ".".join(p for p in [*package, module] if p)

    def _assign(self, node: ast.Assign, scope: tuple, frame: dict) -> None:
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if scope and scope[-1][0] == "def":
            # Remember ``obs = Obs()`` so a later ``pop(d, obs)`` knows what it passes; rebinding forgets it.
            callee = dotted(node.value.func) if isinstance(node.value, ast.Call) else ""
            for name in names:
                frame[name] = callee if (name not in frame and callee) else None
            return
        if scope:
            return  # class bodies are summarized with their class
        for name in names:
            if name == "__all__":
                self.all_names = _string_sequence(node.value)
            elif isinstance(node.value, (ast.Name, ast.Attribute)) and dotted(node.value):
                self.assignments.append((name, dotted(node.value)))

    # -- calls ---------------------------------------------------------------------------
    def _call(self, node: ast.Call, scope: tuple, frame: dict) -> None:
        callee = dotted(node.func)
        if callee and (callee.rsplit(".", 1)[-1] in HELPER_NAMES or self._imported(callee)):
            self.calls.append(CallSite(
                callee=callee,
                span=self.positions.span(node),
                arg_kinds=tuple(_arg_kind(arg, frame) for arg in node.args if not isinstance(arg, ast.Starred)),
                scope=_qualname(scope),
            ))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop", "setdefault") and node.args:
            if _starts_with_prefix(node.args[0]):
                self.prefix_uses.append(PrefixUse(self.positions.span(node.args[0]), f".{node.func.attr}()"))

    def _imported(self, callee: str) -> bool:
        """A bare imported name may be an alias of a helper; kept until all imports are known."""
        return "." not in callee and any(i.local == callee for i in self.imports)

    def helper_calls(self) -> list[CallSite]:
        targets = {i.local: i.target for i in self.imports}
        return [c for c in self.calls
                if c.callee.rsplit(".", 1)[-1] in HELPER_NAMES
                or targets.get(c.callee.split(".")[0], "").rsplit(".", 1)[-1] in HELPER_NAMES]

    # -- classes -------------------------------------------------------------------------
    def _summarize_class(self, node: ast.ClassDef, scope: tuple) -> ClassSummary:
        methods: list[MethodSummary] = []
        assigns: list[MemberAssign] = []
        fields: list[Field] = []
        for stmt in _class_level_statements(node.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append(self._summarize_method(stmt))
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        assigns.append(self._member(target, stmt.value))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                fields.append(Field(stmt.target.id, _source(self.positions.text, stmt.annotation),
                                    stmt.value is not None))
                if stmt.value is not None:
                    assigns.append(self._member(stmt.target, stmt.value))
        return ClassSummary(
            name=node.name,
            qualname=_qualname(scope, node.name),
            span=self.positions.name_span(node),
            class_line=node.lineno,
            bases=tuple(b for b in (dotted(base) for base in node.bases) if b),
            decorators=tuple(_decorator_name(d) for d in node.decorator_list),
            methods=tuple(methods),
            assigns=tuple(assigns),
            fields=tuple(fields),
        )

    def _member(self, target: ast.Name, value: ast.expr) -> MemberAssign:
        text = "none" if _is_none(value) else dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
        return MemberAssign(target.id, text, self.positions.span(target))

    def _summarize_method(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> MethodSummary:
        decorators = tuple(_decorator_name(d) for d in node.decorator_list)
        params = _params(node.args, self.positions.text)
        detailed = node.name in _DETAILED or any(is_near_miss(node.name, m) for m in TRANSPORT_METHODS)
        returns, is_generator = self._returns(node) if detailed else ((), False)
        reads = _KeyReads(_first_data_param(params, decorators) if detailed else "", self.positions)
        reads.scan(node.body)
        return_type, optional = _annotation_target(node.returns)
        return MethodSummary(
            name=node.name,
            span=self.positions.name_span(node),
            is_async=isinstance(node, ast.AsyncFunctionDef),
            is_generator=is_generator,
            decorators=decorators,
            params=params,
            return_annotation=_source(self.positions.text, node.returns) if node.returns else "",
            returns=returns,
            keys_read=tuple(reads.keys),
            keys_read_exact=reads.exact,
            body_is_stub=_is_stub(node.body),
            return_type=return_type,
            return_optional=optional,
            return_annotation_span=self.positions.span(node.returns) if node.returns else None,
        )

    def _returns(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[ReturnFact, ...], bool]:
        facts: list[ReturnFact] = []
        is_generator = False
        for child in _walk_scope(node.body):
            if isinstance(child, (ast.Yield, ast.YieldFrom)):
                is_generator = True
            elif isinstance(child, ast.Return):
                facts.append(self._return_fact(child))
        if _can_fall_through(node.body):
            facts.append(ReturnFact("none", self.positions.name_span(node), implicit=True))
        return tuple(facts), is_generator

    def _return_fact(self, node: ast.Return) -> ReturnFact:
        span = self.positions.span(node)
        value = node.value
        if value is None or _is_none(value):
            return ReturnFact("none", span)
        if isinstance(value, ast.Dict):
            items = [ValueFact(self._key(k), _not_tensor(v), self.positions.span(v))
                     for k, v in zip(value.keys, value.values) if k is not None]
            return ReturnFact("dict", span, tuple(items), exact=None not in value.keys)
        if isinstance(value, ast.Call) and dotted(value.func) == "dict":
            items = [ValueFact(KeyFact("str", kw.arg, self._keyword_span(kw)), _not_tensor(kw.value),
                               self.positions.span(kw.value)) for kw in value.keywords if kw.arg is not None]
            exact = not value.args and all(kw.arg is not None for kw in value.keywords)
            return ReturnFact("dict", span, tuple(items), exact)
        if isinstance(value, ast.Call) and dotted(value.func):
            return ReturnFact("construct", span, constructs=dotted(value.func))
        return ReturnFact("other", span)

    def _keyword_span(self, keyword: ast.keyword) -> Span:
        span = self.positions.span(keyword)
        return Span(span.line, span.column, span.line, span.column + len(keyword.arg or ""))

    def _key(self, key: ast.expr) -> KeyFact:
        span = self.positions.span(key)
        text = _string(key)
        if text is not None:
            return KeyFact("str" if text else "empty", text, span)
        if isinstance(key, (ast.Constant, ast.Tuple)):
            return KeyFact("nonstr", _source(self.positions.text, key), span)
        return KeyFact("dynamic", _source(self.positions.text, key), span)


_BODY_FIELDS = ("body", "orelse", "finalbody")


def _split_statement(stmt: ast.stmt) -> tuple[list[ast.AST], list[list[ast.stmt]]]:
    """A compound statement's own expressions, and the statement lists nested in it."""
    expressions: list[ast.AST] = []
    bodies: list[list[ast.stmt]] = []
    for name, value in ast.iter_fields(stmt):
        if name in _BODY_FIELDS and isinstance(value, list):
            bodies.append(value)
        elif name == "handlers":
            for handler in value:
                expressions.extend([handler.type] if handler.type is not None else [])
                bodies.append(handler.body)
        elif name == "cases":
            for case in value:
                expressions.extend([case.guard] if case.guard is not None else [])
                bodies.append(case.body)
        elif isinstance(value, ast.AST):
            expressions.append(value)
        elif isinstance(value, list):
            expressions.extend(v for v in value if isinstance(v, ast.AST))
    return expressions, bodies


def _qualname(scope: Sequence[tuple[str, str]], name: str = "") -> str:
    parts: list[str] = []
    for kind, scope_name in scope:
        parts.append(scope_name)
        if kind == "def":
            parts.append("<locals>")
    if name:
        parts.append(name)
    return ".".join(parts)


def _arg_kind(value: ast.expr, frame: dict) -> str:
    if _is_none(value):
        return "none"
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        return f"construct:{callee}" if callee else ""
    if isinstance(value, ast.Name) and frame.get(value.id):
        return f"construct:{frame[value.id]}"
    name = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
    return f"name:{name}" if name else ""


def _starts_with_prefix(node: ast.AST) -> bool:
    text = _string(node)
    if text is None and isinstance(node, ast.JoinedStr) and node.values:
        text = _string(node.values[0])
    return text is not None and text.startswith(PP_KEY_PREFIX)


def _string_sequence(node: ast.expr) -> tuple[str, ...] | None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    values = [_string(element) for element in node.elts]
    return None if any(v is None for v in values) else tuple(values)  # type: ignore[arg-type]


def _class_level_statements(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    """Statements that run in the class namespace, including those under if/try/with at class level."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out.extend(_class_level_statements(stmt.body + stmt.orelse))
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            handlers = [s for h in stmt.handlers for s in h.body]
            out.extend(_class_level_statements(stmt.body + handlers + stmt.orelse + stmt.finalbody))
        elif isinstance(stmt, ast.With):
            out.extend(_class_level_statements(stmt.body))
        else:
            out.append(stmt)
    return out


def _params(args: ast.arguments, text: str) -> tuple[Param, ...]:
    def one(arg: ast.arg, kind: str, has_default: bool) -> Param:
        return Param(arg.arg, kind, has_default, _source(text, arg.annotation) if arg.annotation else "")

    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    out = [one(a, "posonly" if i < len(args.posonlyargs) else "pos", i >= first_default)
           for i, a in enumerate(positional)]
    if args.vararg is not None:
        out.append(one(args.vararg, "vararg", False))
    out += [one(a, "kwonly", d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg is not None:
        out.append(one(args.kwarg, "varkw", False))
    return tuple(out)


def _first_data_param(params: Sequence[Param], decorators: Sequence[str]) -> str:
    """The parameter that receives the tensors mapping: the first after self/cls, or the first of a staticmethod."""
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    skip = 0 if "staticmethod" in decorators else 1
    return positional[skip].name if len(positional) > skip else ""


def _annotation_target(node: ast.expr | None) -> tuple[str, bool]:
    """The class an annotation names and whether it admits None: ``Optional[X]`` -> ("X", True)."""
    if node is None:
        return "", False
    text = _string(node)
    if text is not None:
        try:
            node = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError):  # ValueError: a NUL in the string, on Python 3.10
            return "", False
    if _is_none(node):
        return "", True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_annotation_target(node.left), _annotation_target(node.right)])
    if isinstance(node, ast.Subscript):
        head = dotted(node.value).rsplit(".", 1)[-1]
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional" and len(args) == 1:
            return _annotation_target(args[0])[0], True
        if head == "Union":
            return _union([_annotation_target(a) for a in args])
        return "", False
    return dotted(node), False


def _union(members: list[tuple[str, bool]]) -> tuple[str, bool]:
    names = [name for name, _ in members if name]
    return (names[0] if len(names) == 1 else ""), any(optional for _, optional in members)


def _is_stub(body: Sequence[ast.stmt]) -> bool:
    """Only ``...``, ``pass``, a docstring or ``raise NotImplementedError``: a declaration, not an implementation."""
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and (
            stmt.value.value is Ellipsis or isinstance(stmt.value.value, str)
        ):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and \
                _decorator_name(stmt.exc).endswith("NotImplementedError"):
            continue
        return False
    return True


def _not_tensor(value: ast.expr) -> str:
    """Why a value is certainly not a tensor, or "" when it might be one."""
    if isinstance(value, ast.Constant):
        if value.value is None or isinstance(value.value, bool):
            return f"the constant {value.value}"
        if isinstance(value.value, (str, bytes)):
            return "a string literal"
        return "a number literal" if isinstance(value.value, (int, float, complex)) else "a constant"
    if isinstance(value, ast.JoinedStr):
        return "a string literal"
    for kind, reason in _DISPLAYS.items():
        if isinstance(value, kind):
            return reason
    if isinstance(value, ast.Call):
        callee = dotted(value.func)
        if callee in _NON_TENSOR_CALLS:
            return _NON_TENSOR_CALLS[callee]
        if isinstance(value.func, ast.Attribute) and value.func.attr in _NON_TENSOR_METHODS:
            return _NON_TENSOR_METHODS[value.func.attr]
    if isinstance(value, ast.Attribute) and value.attr in _NON_TENSOR_ATTRIBUTES:
        return f"a tensor's .{value.attr}, not a tensor"
    return ""


def _can_fall_through(body: Sequence[ast.stmt]) -> bool:
    """Whether control can reach the end of ``body``.

    Only the shapes that certainly end a body count as ending it (return,
    raise, exhaustive if/else, try, ``while True`` without break, exhaustive
    match); a call to a helper that always raises is not followed.
    """
    return not body or not _terminates(body[-1])


def _terminates(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.Assert):
        return isinstance(stmt.test, ast.Constant) and not stmt.test.value
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) in _EXITS
    if isinstance(stmt, ast.If):
        return bool(stmt.orelse) and not _can_fall_through(stmt.body) and not _can_fall_through(stmt.orelse)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return not _can_fall_through(stmt.body)
    if isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        if stmt.finalbody and not _can_fall_through(stmt.finalbody):
            return True
        main_ends = not _can_fall_through(stmt.body) or bool(stmt.orelse and not _can_fall_through(stmt.orelse))
        return main_ends and all(not _can_fall_through(h.body) for h in stmt.handlers)
    if isinstance(stmt, ast.While):
        infinite = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
        return infinite and not _breaks_out(stmt.body)
    if isinstance(stmt, ast.Match):
        irrefutable = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None
                          for c in stmt.cases)
        return irrefutable and all(not _can_fall_through(c.body) for c in stmt.cases)
    return False


def _breaks_out(body: Sequence[ast.stmt]) -> bool:
    """A ``break`` that leaves this loop (not one of an inner loop)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return True
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.While, *_SCOPES)):
            stack.extend(ast.iter_child_nodes(node))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)  # a break in a loop's else clause leaves the outer loop
    return False


class _KeyReads:
    """Keys read from the received mapping, and whether those reads are all the mapping is used for."""

    def __init__(self, param: str, positions: _Positions) -> None:
        self.param = param
        self.positions = positions
        self.keys: list[KeyFact] = []
        self.exact = bool(param)

    def _is_param(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == self.param

    def _record(self, key: ast.expr) -> None:
        text = _string(key)
        span = self.positions.span(key)
        fact = KeyFact("str" if text else "empty", text, span) if text is not None else KeyFact("dynamic", "", span)
        self.keys.append(fact)
        if fact.kind == "dynamic":
            self.exact = False

    def scan(self, body: Sequence[ast.stmt]) -> None:
        if not self.param:
            return
        consumed: set[int] = set()
        for node in _walk_scope(body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                self.exact = False  # a closure may read the mapping in ways we do not follow
            elif isinstance(node, ast.Subscript) and self._is_param(node.value) and not isinstance(node.slice,
                                                                                                   ast.Slice):
                consumed.add(id(node.value))
                self._record(node.slice)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and self._is_param(node.func.value) and node.func.attr in ("get", "pop", "__getitem__")
                  and node.args):
                consumed.add(id(node.func.value))
                self._record(node.args[0])
            elif isinstance(node, ast.Compare):
                for op, comparator in zip(node.ops, node.comparators):
                    if isinstance(op, (ast.In, ast.NotIn)) and self._is_param(comparator):
                        consumed.add(id(comparator))
                        self._record(node.left)
            elif self._is_param(node) and id(node) not in consumed:
                self.exact = False
