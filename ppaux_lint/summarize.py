"""One libcst pass over one file, producing its FileSummary.

This is the only module that sees syntax trees. It records facts, not
verdicts: which names a class lists as bases, what its methods return, which
keys they read. Whether any of that is a problem needs the whole project, and
is decided by the index and the rules.
"""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

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
    "len": "an int (len())",
    "str": "a str",
    "repr": "a str",
    "int": "an int",
    "float": "a float",
    "bool": "a bool",
    "complex": "a complex",
    "list": "a list",
    "tuple": "a tuple",
    "dict": "a dict",
    "set": "a set",
    "frozenset": "a frozenset",
    "range": "a range",
    "bytes": "bytes",
}
# Methods whose result is certainly not a tensor, whatever their receiver.
_NON_TENSOR_METHODS = {
    "tolist": "a Python list (.tolist())",
    "item": "a Python number (.item())",
    "numpy": "a NumPy array (.numpy())",
    "__len__": "an int",
    "size": "a torch.Size or int (.size())",
    "dim": "an int (.dim())",
    "numel": "an int (.numel())",
    "data_ptr": "an int (.data_ptr())",
    "keys": "a dict view (.keys())",
    "values": "a dict view (.values())",
    "items": "a dict view (.items())",
}
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def summarize_source(source: bytes, path: str, module: str, is_package: bool) -> FileSummary:
    """Summarize one file's bytes; undecodable or unparsable input becomes a summary carrying the error."""
    base = FileSummary(path=path, module=module, is_package=is_package)
    error = _precheck(source)
    if error is not None:
        return _with_error(base, error)
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        line, col = exc.raw_line, exc.raw_column + 1
        return _with_error(base, ParseError(f"syntax error: {exc.message}", Span(line, col, line, col)))
    except (UnicodeDecodeError, LookupError, SyntaxError, ValueError) as exc:
        return _with_error(base, ParseError(f"cannot decode: {exc}", Span(1, 1, 1, 1)))
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    collector = _Collector(module, is_package, wrapper.resolve(PositionProvider))
    wrapper.visit(collector)
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
        noqa=_noqa_lines(source),
        defs=tuple(collector.defs),
        defines_helpers=HELPER_NAMES <= set(collector.defs),
    )


def _with_error(base: FileSummary, error: ParseError) -> FileSummary:
    return FileSummary(path=base.path, module=base.module, is_package=base.is_package, error=error)


def _precheck(source: bytes) -> ParseError | None:
    """Catch what libcst would misreport or choke on: NUL bytes and undecodable text."""
    nul = source.find(b"\x00")
    if nul >= 0:
        line = source.count(b"\n", 0, nul) + 1
        return ParseError("file contains a NUL byte", Span(line, 1, line, 1))
    return None


def _noqa_lines(source: bytes) -> tuple[tuple[int, tuple[str, ...]], ...]:
    if b"noqa" not in source and b"NOQA" not in source:
        return ()
    found = []
    text = source.decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        match = _NOQA.search(line)
        if match:
            codes = match.group("codes")
            found.append((number, tuple(c.strip().upper() for c in codes.split(",")) if codes else ()))
    return tuple(found)


def dotted(node: cst.BaseExpression | None) -> str:
    """``a.b.C`` for a Name/Attribute chain, the callee for ``Generic[T]``, else ""."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    if isinstance(node, cst.Subscript):
        return dotted(node.value)
    return ""


def _literal_string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class _Collector(cst.CSTVisitor):
    """Walks one module, keeping a stack of enclosing classes and functions for qualified names."""

    def __init__(self, module: str, is_package: bool, positions) -> None:
        super().__init__()
        self.module = module
        self.is_package = is_package
        self.positions = positions
        self.scopes: list[tuple[str, cst.CSTNode]] = []
        self.classes: list[ClassSummary] = []
        self.imports: list[Import] = []
        self.all_names: tuple[str, ...] | None = None
        self.assignments: list[tuple[str, str]] = []
        self.calls: list[CallSite] = []
        self.prefix_uses: list[PrefixUse] = []
        self.defs: list[str] = []
        self._local_constructs: list[dict[str, str | None]] = [{}]

    # -- positions and names -------------------------------------------------
    def span(self, node: cst.CSTNode) -> Span:
        rng = self.positions[node]
        return Span(rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1)

    def qualname(self, name: str) -> str:
        parts = []
        for kind, node in self.scopes:
            parts.append(node.name.value)
            if kind == "def":
                parts.append("<locals>")
        return ".".join([*parts, name])

    # -- imports ---------------------------------------------------------------
    def _absolute(self, relative: int, module: str) -> str:
        if not relative:
            return module
        package = self.module.split(".") if self.module else []
        if not self.is_package:
            package = package[:-1]
        if relative > 1:
            package = package[: len(package) - (relative - 1)] if relative - 1 <= len(package) else []
        return ".".join(p for p in [*package, module] if p)

    def visit_Import(self, node: cst.Import) -> None:
        nested = bool(self.scopes)
        for alias in node.names:
            target = dotted(alias.name)
            if alias.asname is not None:
                self.imports.append(Import(dotted(alias.asname.name), target, nested=nested))
            else:
                head = target.split(".")[0]
                self.imports.append(Import(head, head, nested=nested))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        nested = bool(self.scopes)
        base = self._absolute(len(node.relative), dotted(node.module) if node.module else "")
        if isinstance(node.names, cst.ImportStar):
            self.imports.append(Import("*", base, star=True, nested=nested))
            return
        for alias in node.names:
            name = dotted(alias.name)
            local = dotted(alias.asname.name) if alias.asname is not None else name
            self.imports.append(Import(local, f"{base}.{name}" if base else name, nested=nested))

    # -- module-level bindings ---------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        if self.scopes and self.scopes[-1][0] == "def":
            self._note_local_constructs(node)
            return
        if self.scopes:
            return  # class bodies are handled by the class walker
        for target in node.targets:
            name = target.target
            if not isinstance(name, cst.Name):
                continue
            if name.value == "__all__":
                self.all_names = _string_sequence(node.value)
            else:
                value = dotted(node.value) if isinstance(node.value, (cst.Name, cst.Attribute)) else ""
                if value:
                    self.assignments.append((name.value, value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self.scopes and isinstance(node.target, cst.Name) and node.target.value == "__all__":
            extra = _string_sequence(node.value)
            if self.all_names is not None and extra is not None:
                self.all_names = self.all_names + extra
            else:
                self.all_names = None

    def _note_local_constructs(self, node: cst.Assign) -> None:
        """Remember ``obs = Obs()`` so that a later ``pop(d, obs)`` knows what it passes."""
        frame = self._local_constructs[-1]
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                callee = dotted(node.value.func) if isinstance(node.value, cst.Call) else ""
                frame[name] = callee if (name not in frame and callee) else None

    # -- classes and functions --------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(self._summarize_class(node))
        self.scopes.append(("class", node))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self.scopes:
            self.defs.append(node.name.value)
        self.scopes.append(("def", node))
        self._local_constructs.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self._local_constructs.pop()

    def _summarize_class(self, node: cst.ClassDef) -> ClassSummary:
        methods: list[MethodSummary] = []
        assigns: list[MemberAssign] = []
        fields: list[Field] = []
        for stmt in _class_level_statements(node.body):
            if isinstance(stmt, cst.FunctionDef):
                methods.append(self._summarize_method(stmt))
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                assigns.append(self._member_assign(target.target, small.value))
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        annotation = _source(small.annotation.annotation)
                        fields.append(Field(small.target.value, annotation, small.value is not None))
                        if small.value is not None:
                            assigns.append(self._member_assign(small.target, small.value))
        return ClassSummary(
            name=node.name.value,
            qualname=self.qualname(node.name.value),
            span=self.span(node.name),
            class_line=self.positions[node.name].start.line,
            bases=tuple(b for b in (dotted(arg.value) for arg in node.bases if arg.keyword is None) if b),
            decorators=tuple(dotted(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func)
                             for d in node.decorators),
            methods=tuple(methods),
            assigns=tuple(assigns),
            fields=tuple(fields),
        )

    def _member_assign(self, target: cst.Name, value: cst.BaseExpression) -> MemberAssign:
        if isinstance(value, cst.Name) and value.value == "None":
            text = "none"
        else:
            text = dotted(value) if isinstance(value, (cst.Name, cst.Attribute)) else ""
        return MemberAssign(target.value, text, self.span(target))

    def _summarize_method(self, node: cst.FunctionDef) -> MethodSummary:
        decorators = tuple(
            dotted(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func)
            for d in node.decorators
        )
        params = _params(node.params)
        body = _FunctionBody(self, node)
        first = _first_data_param(params, decorators)
        reads = _KeyReads(first, self) if first else None
        if reads is not None:
            node.body.visit(reads)
        return_type, optional = _annotation_target(node.returns.annotation if node.returns else None)
        return MethodSummary(
            name=node.name.value,
            span=self.span(node.name),
            is_async=node.asynchronous is not None,
            is_generator=body.is_generator,
            decorators=decorators,
            params=params,
            return_annotation=_source(node.returns.annotation) if node.returns else "",
            returns=tuple(body.returns),
            keys_read=tuple(reads.keys) if reads else (),
            keys_read_exact=reads.exact if reads else False,
            body_is_stub=_is_stub(node.body),
            return_type=return_type,
            return_optional=optional,
        )

    # -- calls and prefix uses -----------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        callee = dotted(node.func)
        if callee and callee.rsplit(".", 1)[-1] in HELPER_NAMES or self._may_alias_helper(callee):
            self.calls.append(
                CallSite(
                    callee=callee,
                    span=self.span(node),
                    arg_kinds=tuple(self._arg_kind(arg.value) for arg in node.args if arg.keyword is None
                                    and not arg.star),
                    scope=self.qualname("").rstrip("."),
                )
            )
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("get", "pop", "setdefault"):
            if node.args and _starts_with_prefix(node.args[0].value):
                self.prefix_uses.append(PrefixUse(self.span(node.args[0].value), f".{node.func.attr.value}()"))

    def _may_alias_helper(self, callee: str) -> bool:
        """Keep calls of imported names, so ``import ... as add`` aliases can be resolved later."""
        return bool(callee) and "." not in callee and any(i.local == callee for i in self.imports)

    def _arg_kind(self, value: cst.BaseExpression) -> str:
        if isinstance(value, cst.Name) and value.value == "None":
            return "none"
        if isinstance(value, cst.Call):
            callee = dotted(value.func)
            return f"construct:{callee}" if callee else ""
        if isinstance(value, cst.Name):
            constructed = self._local_constructs[-1].get(value.value)
            if constructed:
                return f"construct:{constructed}"
        name = dotted(value) if isinstance(value, (cst.Name, cst.Attribute)) else ""
        return f"name:{name}" if name else ""

    def helper_calls(self) -> list[CallSite]:
        """Drop calls kept only in case an import aliased a helper, once imports are all known."""
        targets = {i.local: i.target for i in self.imports}
        kept = []
        for call in self.calls:
            head = call.callee.split(".")[0]
            last = call.callee.rsplit(".", 1)[-1]
            if last in HELPER_NAMES or targets.get(head, "").rsplit(".", 1)[-1] in HELPER_NAMES:
                kept.append(call)
        return kept

    def visit_Subscript(self, node: cst.Subscript) -> None:
        for element in node.slice:
            if isinstance(element.slice, cst.Index) and _starts_with_prefix(element.slice.value):
                self.prefix_uses.append(PrefixUse(self.span(element.slice.value), "subscript"))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if any(isinstance(t.operator, (cst.In, cst.NotIn)) for t in node.comparisons):
            if _starts_with_prefix(node.left):
                self.prefix_uses.append(PrefixUse(self.span(node.left), "'in' test"))


def _starts_with_prefix(node: cst.BaseExpression) -> bool:
    text = _literal_string(node)
    if text is None and isinstance(node, cst.FormattedString) and node.parts:
        first = node.parts[0]
        text = first.value if isinstance(first, cst.FormattedStringText) else None
    return text is not None and text.startswith(PP_KEY_PREFIX)


def _string_sequence(node: cst.BaseExpression) -> tuple[str, ...] | None:
    if not isinstance(node, (cst.List, cst.Tuple)):
        return None
    values = []
    for element in node.elements:
        text = _literal_string(element.value) if isinstance(element, cst.Element) else None
        if text is None:
            return None
        values.append(text)
    return tuple(values)


def _class_level_statements(body: cst.BaseSuite) -> list[cst.CSTNode]:
    """Statements that run in the class namespace, including those under if/try at class level."""
    out: list[cst.CSTNode] = []
    stack = list(body.body) if isinstance(body, cst.IndentedBlock) else [body]
    for stmt in stack:
        if isinstance(stmt, (cst.If, cst.Try, cst.TryStar, cst.With)):
            for suite in _suites(stmt):
                out.extend(_class_level_statements(suite))
        elif isinstance(stmt, cst.SimpleStatementSuite):
            out.append(cst.SimpleStatementLine(body=stmt.body))
        else:
            out.append(stmt)
    return out


def _suites(stmt: cst.CSTNode) -> list[cst.BaseSuite]:
    suites = [stmt.body]
    if isinstance(stmt, cst.If) and stmt.orelse is not None:
        suites.extend(_suites(stmt.orelse) if isinstance(stmt.orelse, cst.If) else [stmt.orelse.body])
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        suites.extend(h.body for h in stmt.handlers)
        if stmt.orelse is not None:
            suites.append(stmt.orelse.body)
        if stmt.finalbody is not None:
            suites.append(stmt.finalbody.body)
    return suites


def _source(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _params(params: cst.Parameters) -> tuple[Param, ...]:
    def one(p: cst.Param, kind: str) -> Param:
        return Param(p.name.value, kind, p.default is not None,
                     _source(p.annotation.annotation) if p.annotation else "")

    out = [one(p, "posonly") for p in params.posonly_params]
    out += [one(p, "pos") for p in params.params]
    if isinstance(params.star_arg, cst.Param):
        out.append(one(params.star_arg, "vararg"))
    out += [one(p, "kwonly") for p in params.kwonly_params]
    if params.star_kwarg is not None:
        out.append(one(params.star_kwarg, "varkw"))
    return tuple(out)


def _first_data_param(params: Sequence[Param], decorators: Sequence[str]) -> str:
    """The parameter that receives the tensors mapping: the first after self/cls, or the first of a staticmethod."""
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    skip = 0 if "staticmethod" in decorators else 1
    return positional[skip].name if len(positional) > skip else ""


def _annotation_target(node: cst.BaseExpression | None) -> tuple[str, bool]:
    """The class an annotation names and whether it admits None: ``Optional[X]`` -> ("X", True)."""
    if node is None:
        return "", False
    text = _literal_string(node)
    if text is not None:
        try:
            node = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return "", False
    if isinstance(node, cst.Name) and node.value == "None":
        return "", True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        left, left_opt = _annotation_target(node.left)
        right, right_opt = _annotation_target(node.right)
        names = [n for n in (left, right) if n]
        return (names[0] if len(names) == 1 else ""), left_opt or right_opt
    if isinstance(node, cst.Subscript):
        head = dotted(node.value).rsplit(".", 1)[-1]
        args = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
        if head == "Optional" and len(args) == 1:
            return _annotation_target(args[0])[0], True
        if head == "Union":
            results = [_annotation_target(a) for a in args]
            names = [n for n, _ in results if n]
            return (names[0] if len(names) == 1 else ""), any(opt for _, opt in results)
        return "", False
    return dotted(node), False


def _is_stub(body: cst.BaseSuite) -> bool:
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for stmt in statements:
        smalls = stmt.body if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
        if smalls is None:
            return False
        for small in smalls:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.Ellipsis, cst.SimpleString,
                                                                         cst.ConcatenatedString)):
                continue
            if isinstance(small, cst.Raise) and "NotImplementedError" in dotted(
                small.exc.func if isinstance(small.exc, cst.Call) else small.exc
            ):
                continue
            return False
    return True


class _FunctionBody(cst.CSTVisitor):
    """Return facts and generator-ness of one function, not looking into nested functions or classes."""

    def __init__(self, outer: _Collector, node: cst.FunctionDef) -> None:
        super().__init__()
        self.outer = outer
        self.returns: list[ReturnFact] = []
        self.is_generator = False
        node.body.visit(self)
        if _can_fall_through(node.body):
            self.returns.append(ReturnFact("none", outer.span(node.name), implicit=True))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Yield(self, node: cst.Yield) -> None:
        self.is_generator = True

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(_return_fact(self.outer, node))


def _return_fact(outer: _Collector, node: cst.Return) -> ReturnFact:
    span = outer.span(node)
    value = node.value
    if value is None or (isinstance(value, cst.Name) and value.value == "None"):
        return ReturnFact("none", span)
    if isinstance(value, cst.Dict):
        items, exact = [], True
        for element in value.elements:
            if isinstance(element, cst.DictElement):
                key = _key_fact(outer, element.key)
                items.append(ValueFact(key, _not_tensor(element.value), outer.span(element.value)))
            else:
                exact = False
        return ReturnFact("dict", span, tuple(items), exact)
    if isinstance(value, cst.Call) and dotted(value.func) == "dict":
        items, exact = [], True
        for arg in value.args:
            if arg.keyword is not None:
                key = KeyFact("str", arg.keyword.value, outer.span(arg.keyword))
                items.append(ValueFact(key, _not_tensor(arg.value), outer.span(arg.value)))
            else:
                exact = False
        return ReturnFact("dict", span, tuple(items), exact)
    if isinstance(value, cst.Call) and dotted(value.func):
        return ReturnFact("construct", span, constructs=dotted(value.func))
    return ReturnFact("other", span)


def _key_fact(outer: _Collector, key: cst.BaseExpression) -> KeyFact:
    span = outer.span(key)
    text = _literal_string(key)
    if text is not None:
        return KeyFact("str" if text else "empty", text, span)
    if isinstance(key, (cst.Integer, cst.Float, cst.Imaginary, cst.Tuple)) or (
        isinstance(key, cst.Name) and key.value in ("None", "True", "False")
    ) or isinstance(key, (cst.SimpleString, cst.ConcatenatedString)):  # bytes literals
        return KeyFact("nonstr", _source(key), span)
    return KeyFact("dynamic", _source(key), span)


def _not_tensor(value: cst.BaseExpression) -> str:
    """Why a value is certainly not a tensor, or "" when it might be one."""
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary)):
        return "a number literal"
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "a string literal"
    if isinstance(value, cst.Name) and value.value in ("None", "True", "False"):
        return f"the constant {value.value}"
    displays = {cst.List: "a list", cst.Tuple: "a tuple", cst.Set: "a set", cst.Dict: "a dict",
                cst.ListComp: "a list", cst.SetComp: "a set", cst.DictComp: "a dict",
                cst.GeneratorExp: "a generator", cst.Lambda: "a function"}
    for kind, reason in displays.items():
        if isinstance(value, kind):
            return reason
    if isinstance(value, cst.Call):
        callee = dotted(value.func)
        if callee in _NON_TENSOR_CALLS:
            return _NON_TENSOR_CALLS[callee]
        if isinstance(value.func, cst.Attribute):
            method = value.func.attr.value
            if method in _NON_TENSOR_METHODS:
                return _NON_TENSOR_METHODS[method]
    if isinstance(value, cst.Attribute) and value.attr.value in ("shape", "dtype", "device", "ndim"):
        return f"a tensor's .{value.attr.value}, not a tensor"
    return ""


def _can_fall_through(body: cst.BaseSuite) -> bool:
    """Whether control can reach the end of ``body``.

    Only the shapes that certainly end a body count as ending it (return,
    raise, exhaustive if/else, try, ``while True`` without break, exhaustive
    match); a call to a helper that always raises is not followed.
    """
    statements = list(body.body) if isinstance(body, cst.IndentedBlock) else [body]
    if not statements:
        return True
    return not _terminates(statements[-1])


def _terminates(stmt: cst.CSTNode) -> bool:
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        for small in stmt.body:
            if isinstance(small, (cst.Return, cst.Raise)):
                return True
            if isinstance(small, cst.Assert) and isinstance(small.test, cst.Name) and small.test.value == "False":
                return True
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and dotted(small.value.func) in (
                "sys.exit", "exit", "os._exit", "typing.assert_never", "assert_never"
            ):
                return True
        return False
    if isinstance(stmt, cst.If):
        if stmt.orelse is None:
            return False
        orelse = stmt.orelse if isinstance(stmt.orelse, cst.If) else None
        else_ok = _terminates(orelse) if orelse is not None else not _can_fall_through(stmt.orelse.body)
        return not _can_fall_through(stmt.body) and else_ok
    if isinstance(stmt, (cst.With,)):
        return not _can_fall_through(stmt.body)
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        if stmt.finalbody is not None and not _can_fall_through(stmt.finalbody.body):
            return True
        main_ends = not _can_fall_through(stmt.body) or (
            stmt.orelse is not None and not _can_fall_through(stmt.orelse.body)
        )
        return main_ends and all(not _can_fall_through(h.body) for h in stmt.handlers)
    if isinstance(stmt, cst.While):
        infinite = isinstance(stmt.test, cst.Name) and stmt.test.value == "True"
        return infinite and not _has_break(stmt.body)
    if isinstance(stmt, cst.Match):
        irrefutable = any(isinstance(c.pattern, cst.MatchAs) and c.pattern.pattern is None for c in stmt.cases)
        return irrefutable and all(not _can_fall_through(c.body) for c in stmt.cases)
    return False


def _has_break(body: cst.BaseSuite) -> bool:
    class _Breaks(cst.CSTVisitor):
        found = False

        def visit_Break(self, node: cst.Break) -> None:
            self.found = True

        def visit_For(self, node: cst.For) -> bool:
            return False

        def visit_While(self, node: cst.While) -> bool:
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

    finder = _Breaks()
    body.visit(finder)
    return finder.found


class _KeyReads(cst.CSTVisitor):
    """Keys read from the received mapping, and whether those reads are all the mapping is used for."""

    def __init__(self, param: str, outer: _Collector) -> None:
        super().__init__()
        self.param = param
        self.outer = outer
        self.keys: list[KeyFact] = []
        self.exact = True
        self._consumed: set[int] = set()

    def _is_param(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value == self.param

    def _record(self, holder: cst.CSTNode, key: cst.BaseExpression) -> None:
        fact = _key_fact(self.outer, key)
        self.keys.append(fact)
        if fact.kind == "dynamic":
            self.exact = False

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._is_param(node.value) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            self._consumed.add(id(node.value))
            self._record(node, node.slice[0].slice.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and self._is_param(func.value)
                and func.attr.value in ("get", "pop", "__getitem__") and node.args):
            self._consumed.add(id(func.value))
            self._record(node, node.args[0].value)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and self._is_param(target.comparator):
                self._consumed.add(id(target.comparator))
                self._record(node, node.left)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.param and id(node) not in self._consumed:
            self.exact = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.exact = False  # a closure may read the mapping in ways we do not follow
        return False
