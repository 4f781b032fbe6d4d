"""One method of a class: its signature, its return annotation, and for the methods rules read, its body.

Produces ``MethodSummary`` and its ``Param``: name and span, async-ness,
decorators, parameters, the annotation's text and the class it names
(``return_type``, ``return_optional``: ``Optional[X]``, ``X | None``), and
whether the body is a stub. Only the methods in ``_DETAILED`` and their near
misses get returns (``returns``) and key reads (``key_reads``), and ``to_pp_tensors``
the objects it uses (``parts``), since walking
every method body of every class in a big module is most of the time spent here:
the transport methods, and the observers' hooks whose returns say which output
they produce (``after_sample`` for pairing, ``after_forward`` for forward-only
outputs).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ppaux_lint.contract.names import AFTER_FORWARD, AFTER_SAMPLE, FROM_PP, TO_PP, TRANSPORT_METHODS, is_near_miss
from ppaux_lint.facts.summarize.key_reads import KeyReads
from ppaux_lint.facts.summarize.parts import parts
from ppaux_lint.facts.summarize.returns import returns
from ppaux_lint.facts.summarize.syntax import annotation_expression, called_name, dotted, is_none, source
from ppaux_lint.facts.summarize.text import Positions
from ppaux_lint.facts.summarize.values import LocalNames
from ppaux_lint.facts.summary import MethodSummary, Param

_DETAILED = frozenset({*TRANSPORT_METHODS, AFTER_SAMPLE, AFTER_FORWARD})


def summarize_method(node: ast.FunctionDef | ast.AsyncFunctionDef, positions: Positions,
                     detailed: bool = False) -> MethodSummary:
    """``detailed`` reads the body whatever the name: a function bound into a class under another name
    (``Out.to_pp_tensors = _pack``, ``namespaces``) is judged as the method it becomes."""
    decorators = tuple(called_name(d) for d in node.decorator_list)
    params = _params(node.args)
    detailed = detailed or node.name in _DETAILED or any(is_near_miss(node.name, m) for m in TRANSPORT_METHODS)
    names = LocalNames(node)  # what a key written as a name may not be a constant for
    data = _first_data_param(params, decorators) if detailed else ""
    return_facts, is_generator = returns(node, positions, names, data if node.name == FROM_PP else "") \
        if detailed else ((), False)
    reads = KeyReads(data, positions, names)
    reads.scan(node.body)
    return_type, optional = annotation_target(node.returns)
    held, up = parts(node, _receiver(params, decorators)) if node.name == TO_PP else ((), "")
    return MethodSummary(
        name=node.name,
        span=positions.name_span(node),
        is_async=isinstance(node, ast.AsyncFunctionDef),
        is_generator=is_generator,
        decorators=decorators,
        params=params,
        return_annotation=source(node.returns) if node.returns else "",
        returns=return_facts,
        keys_read=tuple(reads.keys),
        keys_read_exact=reads.exact,
        body_is_stub=_is_stub(node.body),
        return_type=return_type,
        return_optional=optional,
        return_annotation_span=positions.span(node.returns) if node.returns else None,
        parts=held,
        up=up,
    )


def _params(args: ast.arguments) -> tuple[Param, ...]:
    def one(arg: ast.arg, kind: str, has_default: bool) -> Param:
        return Param(arg.arg, kind, has_default, source(arg.annotation) if arg.annotation else "")

    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    out = [one(a, "posonly" if i < len(args.posonlyargs) else "pos", i >= first_default)
           for i, a in enumerate(positional)]
    if args.vararg is not None:
        out.append(one(args.vararg, "vararg", False))
    out += [one(a, "kwonly", d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        out.append(one(args.kwarg, "varkw", False))
    return tuple(out)


def _receiver(params: Sequence[Param], decorators: Sequence[str]) -> str:
    """The parameter the instance is bound to: the first, unless it is a staticmethod or classmethod."""
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    bound = not any(d in ("staticmethod", "classmethod") for d in decorators)
    return positional[0].name if positional and bound else ""


def _first_data_param(params: Sequence[Param], decorators: Sequence[str]) -> str:
    """The parameter that receives the tensors mapping: the first after self/cls, or the first of a staticmethod."""
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    skip = 0 if "staticmethod" in decorators else 1
    return positional[skip].name if len(positional) > skip else ""


def annotation_target(node: ast.expr | None) -> tuple[str, bool]:
    """The class an annotation names and whether it admits None: ``Optional[X]`` -> ("X", True)."""
    node = annotation_expression(node)
    if node is None:
        return "", False
    if is_none(node):
        return "", True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([annotation_target(node.left), annotation_target(node.right)])
    if isinstance(node, ast.Subscript):
        head = dotted(node.value).rsplit(".", 1)[-1]
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional" and len(args) == 1:
            return annotation_target(args[0])[0], True
        if head == "Union":
            return _union([annotation_target(a) for a in args])
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
                called_name(stmt.exc).endswith("NotImplementedError"):
            continue
        return False
    return True
