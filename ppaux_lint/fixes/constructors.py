"""How an output class is constructed, as far as a generated method may rely on it.

Both generated methods depend on it: ``to_pp_tensors`` sends the attributes that hold tensors, and
``from_pp_tensors`` must rebuild the output from keyword arguments alone. Python finds ``__init__`` along the
MRO, so this does too, and reads dataclass fields as ``dataclasses`` collects them; anything it cannot see
(an external base that may define ``__init__``) means no fix rather than a guess.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ppaux_lint.fixes.syntax import is_none, simple_store
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.fixes.sources import Sources
    from ppaux_lint.index.model import ClassInfo
    from ppaux_lint.index.project_index import ProjectIndex

TENSOR = "torch.Tensor"
_DATACLASS = frozenset({"dataclasses.dataclass"})
_FIELD = frozenset({"dataclasses.field"})


@dataclass(frozen=True)
class Constructor:
    """How an output class is built: keyword parameters and which attributes carry tensors."""

    params: tuple[str, ...]  # keyword-capable parameters, in order
    required: frozenset[str]
    attr_to_param: dict[str, str]  # attribute stored -> parameter that sets it
    tensors: tuple[tuple[str, str], ...]  # (attribute, annotation as written) of tensor-typed attributes
    positional_only: frozenset[str] = frozenset()


class Constructors:
    def __init__(self, index: ProjectIndex, infos: dict[str, ClassInfo], sources: Sources) -> None:
        self.index = index
        self.infos = infos
        self.sources = sources

    def of(self, fqn: str) -> Constructor | None:
        """How ``fqn`` is constructed, found the way Python finds ``__init__``: along the MRO."""
        info = self.infos.get(fqn)
        if info is None:
            return None
        protocols = self.index.protocols
        known = {*protocols.output, *protocols.observer, *protocols.pp_output, *protocols.pp_observer}
        for position, cls in enumerate(info.ancestry):
            if cls not in self.index.classes:
                if cls in known or cls.split(".")[0] in ("builtins", "typing", "typing_extensions", "abc"):
                    continue  # Protocols and object contribute no constructor parameters
                return None  # an external base may define __init__: unknown
            found = self.sources.class_node(cls)
            if found is None:
                return None
            node, _, module = found
            scope = self.index.classes[cls].qualname
            init = next((d for d in node.body if isinstance(d, ast.FunctionDef) and d.name == "__init__"), None)
            if init is not None:
                return self._init_constructor(init, module, scope)
            if self._is_dataclass(node, module, scope):
                return self._dataclass_constructor(info.ancestry[position:])
        return None

    def _is_dataclass(self, node: ast.ClassDef, module: str, scope: str) -> bool:
        return any(self.sources.resolves_to(module, scope, d.func if isinstance(d, ast.Call) else d, _DATACLASS)
                   for d in node.decorator_list)

    def _is_tensor(self, annotation: ast.expr | None, module: str, scope: str) -> bool:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                with warnings.catch_warnings():  # the checked code's SyntaxWarnings are not ours to print
                    warnings.simplefilter("ignore")
                    annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return False
        return self.sources.resolves_to(module, scope, annotation, {TENSOR})

    def _init_constructor(self, init: ast.FunctionDef, module: str, scope: str) -> Constructor | None:
        args = init.args
        positional = [*args.posonlyargs, *args.args][1:]  # drop self
        defaults_from = len(positional) - len(args.defaults)
        required = {a.arg for i, a in enumerate(positional) if i >= 0 and i < defaults_from}
        required |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None}
        annotations = {a.arg: a.annotation for a in [*positional, *args.kwonlyargs]}
        none_defaults = {a.arg for a, d in zip(positional[defaults_from:], args.defaults, strict=True) if is_none(d)}
        none_defaults |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if is_none(d)}
        attr_to_param: dict[str, str] = {}
        tensors = []
        for statement in init.body:
            target, value = simple_store(statement)
            if target is None or value not in annotations:
                continue
            attr_to_param.setdefault(target, value)
            if (value not in none_defaults and self._is_tensor(annotations[value], module, scope)
                    and target not in dict(tensors)):
                tensors.append((target, ast.unparse(annotations[value])))
        return Constructor(
            params=tuple(a.arg for a in [*positional, *args.kwonlyargs]),
            required=frozenset(required),
            attr_to_param=attr_to_param,
            tensors=tuple(tensors),
            positional_only=frozenset(a.arg for a in args.posonlyargs[1:] if args.posonlyargs),
        )

    def _dataclass_constructor(self, mro: Sequence[str]) -> Constructor | None:
        fields: dict[str, tuple[bool, bool, bool, str]] = {}  # name -> (init, has_default, tensor, annotation)
        for cls in reversed(mro):
            if cls not in self.index.classes:
                continue
            found = self.sources.class_node(cls)
            if found is None:
                return None
            node, _, module = found
            scope = self.index.classes[cls].qualname
            if not self._is_dataclass(node, module, scope):
                continue
            for statement in node.body:
                if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
                    continue
                text = ast.unparse(statement.annotation)
                if "ClassVar" in text or "InitVar" in text or "KW_ONLY" in text:
                    continue
                init, has_default, none_default = self._field_facts(statement.value, module, scope)
                # a field that may hold None would make the helper raise; one outside __init__ cannot be rebuilt
                tensor = init and not none_default and self._is_tensor(statement.annotation, module, scope)
                fields[statement.target.id] = (init, has_default, tensor, text)
        init_fields = [name for name, (init, _, _, _) in fields.items() if init]
        return Constructor(
            params=tuple(init_fields),
            required=frozenset(n for n in init_fields if not fields[n][1]),
            attr_to_param={n: n for n in init_fields},
            tensors=tuple((n, facts[3]) for n, facts in fields.items() if facts[2]),
        )

    def _field_facts(self, value: ast.expr | None, module: str, scope: str) -> tuple[bool, bool, bool]:
        """(init, has_default, default_is_none) of a dataclass field's right-hand side."""
        if value is None:
            return True, False, False
        if isinstance(value, ast.Call) and self.sources.resolves_to(module, scope, value.func, _FIELD):
            keywords = {k.arg: k.value for k in value.keywords if k.arg}
            init = not (isinstance(keywords.get("init"), ast.Constant) and keywords["init"].value is False)
            return init, "default" in keywords or "default_factory" in keywords, is_none(keywords.get("default"))
        return True, True, is_none(value)
