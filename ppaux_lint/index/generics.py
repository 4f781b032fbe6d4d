"""What a type variable stands for in a class that specialises a generic base, as PEP 484 defines it.

``class BatchTemperature(Stat[float])``, where ``class Stat(Generic[T])`` declares ``value: T``, holds a float
in ``value``; ``class Logits(Stat[torch.Tensor])`` a tensor. The summaries keep each base's type arguments as
written (``ClassSummary.base_args``); this module walks the bases from a class up, binding each base's type
parameters to the arguments written for it, so that a field annotated with a type variable of any class
along the MRO can be read as what the class under judgement makes of it.

A class's type parameters are, in order: its PEP 695 parameters (``class Stat[T]:``); else the arguments of
its ``Generic[...]`` or ``Protocol[...]`` base; else every type variable its bases' arguments name, in the
order they first appear (``class A(Stat[T])`` is generic in ``T``). A type variable is a name bound once to
``TypeVar(...)`` (``typing`` or ``typing_extensions``), in its module or imported (``index.constants``
finds where). An argument naming a type parameter of the class that writes it passes on what that
parameter stands for (``class A(Stat[T])``, ``class B(A[int])``: ``Stat``'s ``T`` is ``int`` in ``B``).

Where it cannot be sure, a parameter stands for nothing (``None``): left unbound (``class B(A)``), given
the wrong number of arguments, bound differently along two paths to one base, or a base whose parameters
cannot be read.
"""

from __future__ import annotations

import ast
import weakref
from typing import TYPE_CHECKING, NamedTuple

from ppaux_lint.index.constants import Constants, dotted_name, parse

if TYPE_CHECKING:
    from ppaux_lint.index.graph import ProjectGraph

_TYPE_VARIABLES = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})
_DECLARING = frozenset({"typing.Generic", "typing.Protocol", "typing_extensions.Protocol",
                        "typing_extensions.Generic"})


class Written(NamedTuple):
    """A type as some class wrote it: the text, and where its names are read (module, class qualname)."""

    text: str
    module: str
    scope: str


Bindings = dict[str, "Written | None"]  # type variable -> what it stands for


class TypeArguments:
    """Answers about one graph, memoised for its life."""

    def __init__(self, graph: ProjectGraph, constants: Constants) -> None:
        self.graph = weakref.proxy(graph)
        self.constants = constants
        self._parameters: dict[str, tuple[str, ...] | None] = {}
        self._bindings: dict[str, dict[str, Bindings]] = {}
        self._variables: dict[tuple[str, str], str | None] = {}  # asked for every field of every output

    def substitute(self, cls: str, owner: str, annotation: str) -> Written | None:
        """What ``annotation``, written in class ``owner``, is in an instance of ``cls`` (``owner`` along its MRO):
        the annotation itself unless it is one of ``owner``'s type parameters, then what ``cls`` binds it to;
        None when that is not certain."""
        here = Written(annotation, self.graph.class_module[owner], self.graph.classes[owner].qualname)
        variable = self.variable(owner, annotation)
        if variable is None:
            return here
        return self.bindings(cls).get(owner, {}).get(variable)

    def variable(self, cls: str, name: str) -> str | None:
        """The type variable ``name`` denotes in class ``cls``'s statement, as a stable identity, or None."""
        if (cls, name) not in self._variables:
            self._variables[(cls, name)] = self._variable(cls, name)
        return self._variables[(cls, name)]

    def _variable(self, cls: str, name: str) -> str | None:
        summary = self.graph.classes[cls]
        if name in summary.type_params:
            return f"{cls}[{name}]"
        module = self.graph.class_module[cls]
        scope = summary.qualname.rpartition(".")[0]
        where = self.constants.definition(module, name, scope)
        for _ in range(8):  # through aliases (``T2 = T``)
            if where is None:
                return None
            node = parse(self.constants.source(where))
            if isinstance(node, ast.Call):
                callee = dotted_name(node.func)
                declared = self.graph.resolve(where[0], callee, where[1].rpartition(".")[0]) if callee else None
                return f"{where[0]}.{where[1]}" if declared in _TYPE_VARIABLES else None
            if not isinstance(node, (ast.Name, ast.Attribute)):
                return None
            where = self.constants.definition(where[0], dotted_name(node), where[1].rpartition(".")[0])
        return None

    def parameters(self, cls: str) -> tuple[str, ...] | None:
        """The class's type parameters in order, as identities; None when they cannot be read."""
        if cls in self._parameters:
            return self._parameters[cls]
        self._parameters[cls] = None  # a cycle of bases reads as unknown
        summary = self.graph.classes[cls]
        found: tuple[str, ...] | None
        if summary.type_params:
            found = tuple(f"{cls}[{name}]" for name in summary.type_params)
        else:
            found = self._declared(cls)
        self._parameters[cls] = found
        return found

    def _declared(self, cls: str) -> tuple[str, ...] | None:
        summary = self.graph.classes[cls]
        arguments = summary.base_args or ((),) * len(summary.bases)
        order: list[str] = []
        for (_, target), args in zip(self.graph.bases(cls), arguments, strict=False):
            variables = [self.variable(cls, arg) for arg in args]
            if target in _DECLARING and args:
                return None if None in variables else tuple(variables)  # type: ignore[arg-type]
            for arg in args:
                order.extend(v for v in (self.variable(cls, name) for name in _names(arg)) if v and v not in order)
        return tuple(order)

    def bindings(self, cls: str) -> dict[str, Bindings]:
        """For ``cls`` and every project class along its bases: what each of its type parameters stands for in
        an instance of ``cls``."""
        found = self._bindings.get(cls)
        if found is not None:
            return found
        parameters = self.parameters(cls) or ()
        found = {cls: dict.fromkeys(parameters)}
        todo = [cls]
        while todo:
            here = todo.pop()
            for target, bound in self._bases(here, found[here]):
                if target not in found:
                    found[target] = bound
                    todo.append(target)
                elif found[target] != bound:  # bound two ways along two paths: nothing is certain
                    found = {c: dict.fromkeys(b) for c, b in found.items()}
                    todo = []
                    break
        self._bindings[cls] = found
        return found

    def _bases(self, here: str, mine: Bindings) -> list[tuple[str, Bindings]]:
        """Each project base of ``here`` with what its parameters stand for, given ``here``'s own."""
        summary = self.graph.classes[here]
        arguments = summary.base_args or ((),) * len(summary.bases)
        return [(target, self._bind(here, mine, target, args))
                for (_, target), args in zip(self.graph.bases(here), arguments, strict=False)
                if target is not None and target in self.graph.classes and target != here]

    def _bind(self, here: str, mine: Bindings, base: str, args: tuple[str, ...]) -> Bindings:
        """What ``base``'s parameters stand for, given the arguments ``here`` writes for them."""
        parameters = self.parameters(base) or ()
        if len(args) != len(parameters):
            return dict.fromkeys(parameters)
        module = self.graph.class_module[here]
        scope = self.graph.classes[here].qualname
        bound: Bindings = {}
        for parameter, arg in zip(parameters, args, strict=True):
            variable = self.variable(here, arg)
            bound[parameter] = mine.get(variable) if variable is not None else Written(arg, module, scope)
        return bound


def _names(text: str) -> list[str]:
    """The names an annotation's text reads, in the order they are written."""
    node = parse(text)
    found = sorted((child.col_offset, child.id) for child in ast.walk(node) if isinstance(child, ast.Name)) \
        if node is not None else []
    return [name for _, name in found]
