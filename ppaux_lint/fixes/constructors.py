"""How an output class is constructed, as far as a generated method may rely on it.

Both generated methods depend on it: ``to_pp_tensors`` sends the attributes that hold tensors, and
``from_pp_tensors`` must rebuild the output from keyword arguments alone. Python finds ``__init__`` along the
MRO, so this does too, and reads dataclass fields as ``dataclasses`` collects them; anything it cannot see
(an external base that may define ``__init__``, a class ``type()`` made) means no fix rather than a guess.
What each class statement's body says is in its summary (``ConstructorFacts``, read by
``summarize.constructors``), so no file along the MRO is parsed again here; what its names mean is the index's.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ppaux_lint.facts.summarize.syntax import plain_dotted
from ppaux_lint.facts.summary import ConstructorFacts, FieldFacts, InitFacts
from ppaux_lint.index.known_bases import adds_no_fields
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
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
    hidden: bool = False  # it takes what ``params`` does not list (an ``InitVar``): no keyword rebuild is whole
    tensors_left: bool = False  # a tensor-annotated parameter that cannot travel (``Optional[Tensor] = None``)
    opaque_defaults: bool = False  # a parameter with a default stays home while its value may matter: its annotation
    # is no plain scalar (``top: Optional[TopPart] = None``, a container, none at all), rebuilt as its default

    @property
    def whole(self) -> bool:
        """Whether sending ``tensors`` and passing them back by keyword rebuilds the instance: every parameter
        without a default is stored, as it is, in an attribute that holds a tensor, and no tensor-annotated one
        stays home (one defaulting to ``None`` would make the helper raise when sent, and be lost when not). What
        stays home is a non-tensor parameter with a default annotated as a plain scalar (a scale, a flag), rebuilt with
        that default; where a construction site passes it another value, the planner offers no fix
        (``Planner.defaults_passed``).
        Otherwise a generated pair would drop a tensor, or fail to pass back what a parameter stored transformed
        (``self.p = p.float()``) or handed to ``super().__init__`` carries: no fix rather than one that does. A
        private name (``__ids``) is mangled with the class's name where the code is written, so code generated
        in another class, or a keyword of that name, would miss it."""
        sent = {self.attr_to_param[attr] for attr, _ in self.tensors if attr in self.attr_to_param}
        mangled = any(_mangled(name) for attr, _ in self.tensors for name in (attr, self.attr_to_param.get(attr, "")))
        return (bool(sent) and not self.hidden and not self.tensors_left and not self.opaque_defaults and not mangled
                and self.required <= sent)

    @property
    def stays_home(self) -> tuple[str, ...]:
        """The parameters with a default that no sent tensor carries: a rebuild passes them nothing."""
        sent = {self.attr_to_param[attr] for attr, _ in self.tensors if attr in self.attr_to_param}
        return tuple(p for p in self.params if p not in self.required and p not in sent)


class Constructors:
    def __init__(self, index: ProjectIndex, infos: dict[str, ClassInfo]) -> None:
        self.index = index
        self.infos = infos

    def of(self, fqn: str) -> Constructor | None:
        """How ``fqn`` is constructed, found the way Python finds ``__init__``: along the MRO. A tensor attribute
        that a method stores to (``__post_init__``'s ``self.ids = self.ids.to(torch.int32)``), or that ``__init__``
        stores again from something else than its parameter, or that a method changes otherwise
        (``object.__setattr__(self, "ids", ...)``, ``self.ids.add_(1)``, ``self.ids[0] = 0``, ``out=self.ids``, the
        instance's ``__dict__`` written: ``ConstructorFacts.alters``), would be transformed a second time when the
        rebuilt instance is constructed: such a constructor is never ``whole``."""
        info = self.infos.get(fqn)
        if info is None:
            return None
        found = self._along_mro(info)
        if found is None:
            return None
        stored = {attr for cls in info.ancestry if cls in self.index.classes for attr in self.index.classes[cls].stores}
        stored |= {attr for cls in info.ancestry if cls in self.index.classes
                   and (facts := self.index.classes[cls].constructor) is not None for attr in facts.alters}
        transformed = "*" in stored or any(attr in stored for attr, _ in found.tensors)
        return replace(found, hidden=True) if transformed else found

    def _along_mro(self, info: ClassInfo) -> Constructor | None:
        known = self.index.protocols.transport_roots
        for position, cls in enumerate(info.ancestry):
            if cls not in self.index.classes:
                if adds_no_fields(cls, known):
                    continue  # Protocols and object contribute no constructor parameters
                return None  # an external base may define __init__: unknown
            facts = self.index.classes[cls].constructor
            if facts is None:
                return None
            module, scope = self.index.class_module[cls], self.index.classes[cls].qualname
            if facts.init is not None:
                found = self._init_constructor(facts.init, module, scope)
                sent = {attr for attr, _ in found.tensors}
                declared = [f for c in info.ancestry[position:] if c in self.index.classes
                            for f in self.index.classes[c].fields if "ClassVar" not in f.annotation]
                if any(_may_be_tensor(f.annotation) and f.name not in sent for f in declared):
                    return replace(found, tensors_left=True)  # a tensor the class declares that no parameter sets
                return found
            if self._is_dataclass(facts, module, scope):
                if any(self._resolves_to(module, scope, name, _DATACLASS) for name in facts.no_init):
                    return None  # ``@dataclass(init=False)``: the ``__init__`` is a base's, built from other fields
                return self._dataclass_constructor(info.ancestry[position:])
        return None

    def _resolves_to(self, module: str, scope: str, name: str, targets: Collection[str]) -> bool:
        """Whether the dotted ``name`` names one of ``targets`` in ``scope``; an unresolvable name counts as
        written."""
        if not name:
            return False
        resolved = self.index.resolve(module, name, scope)
        return resolved in targets or (resolved is None and name in targets)

    def _is_dataclass(self, facts: ConstructorFacts, module: str, scope: str) -> bool:
        return any(self._resolves_to(module, scope, name, _DATACLASS) for name in facts.decorators)

    def _init_constructor(self, init: InitFacts, module: str, scope: str) -> Constructor:
        # The defaults belong to the last positional parameters, ``self`` among them when every one has a default
        # (``def __init__(self=None, x=None)``): lined up against all of them, then ``self`` dropped.
        defaults_from = len(init.positional) - len(init.defaults)
        positional = init.positional[1:]
        required = {name for i, name in enumerate(init.positional) if 0 < i < defaults_from}
        required |= {name for name, default in zip(init.kwonly, init.kw_defaults, strict=True) if not default}
        annotations = {name: (written, named) for name, written, named in init.annotations}
        none_defaults = {name for name, none in zip(init.positional[defaults_from:], init.defaults, strict=True)
                         if none and name in positional}
        none_defaults |= {name for name, default in zip(init.kwonly, init.kw_defaults, strict=True)
                          if default == "none"}
        attr_to_param: dict[str, str] = {}
        tensors = []
        for target, value in init.stores:
            if value not in annotations or value in init.altered:
                continue  # a parameter rebound or changed in place (``ids = ids + 1``) is not stored as passed
            attr_to_param.setdefault(target, value)
            written, named = annotations[value]
            if (value not in none_defaults and self._resolves_to(module, scope, named, {TENSOR})
                    and target not in dict(tensors) and attr_to_param[target] == value
                    and value not in {attr_to_param[attr] for attr, _ in tensors}):
                tensors.append((target, written))  # once per parameter: ``self.raw = ids`` beside ``self.ids = ids``
        sent = {attr_to_param[attr] for attr, _ in tensors}
        left = any(_may_be_tensor(written) and name not in sent
                   for name, (written, _) in annotations.items() if name in (*positional, *init.kwonly))
        # ``self.logprobs: Optional[Tensor] = None``: a tensor set later (by the observer's hook), which a rebuild
        # through ``__init__`` would reset
        left = left or any(_may_be_tensor(written) and attr not in dict(tensors) for attr, written in init.declared)
        stays = set(positional) | set(init.kwonly)
        stays -= required | sent
        return Constructor(
            opaque_defaults=any(not _plain(annotations.get(name, ("", ""))[0]) for name in stays),
            params=(*positional, *init.kwonly),
            required=frozenset(required),
            attr_to_param=attr_to_param,
            tensors=tuple(tensors),
            positional_only=frozenset(init.positional[1:init.posonly]),
            hidden=init.variadic,  # what ``*args`` or ``**kwargs`` carry, a keyword rebuild does not pass back
            tensors_left=left,
        )

    def _dataclass_constructor(self, mro: Sequence[str]) -> Constructor | None:
        fields: dict[str, tuple[bool, bool, bool, str]] = {}  # name -> (init, has_default, tensor, annotation)
        hidden = False  # an ``InitVar``: a parameter of ``__init__`` that no field keeps
        tensors_left = False
        for cls in reversed(mro):
            if cls not in self.index.classes:
                continue
            facts = self.index.classes[cls].constructor
            if facts is None:
                return None
            module, scope = self.index.class_module[cls], self.index.classes[cls].qualname
            if not self._is_dataclass(facts, module, scope):
                continue
            for field in facts.fields:
                text = field.annotation
                hidden = hidden or "InitVar" in text
                if "ClassVar" in text or "InitVar" in text or "KW_ONLY" in text:
                    continue
                init, has_default, none_default = self._field_facts(field, module, scope)
                # a field that may hold None would make the helper raise; one outside __init__ cannot be rebuilt
                tensor = init and not none_default and self._resolves_to(module, scope, field.annotation_name,
                                                                          {TENSOR})
                # a tensor field outside ``__init__`` may be set by whoever made the instance (the observer's hook),
                # default or not: a rebuild through ``__init__`` would lose it
                tensors_left = tensors_left or (not tensor and _may_be_tensor(text))
                fields[field.name] = (init, has_default, tensor, text)
        init_fields = [name for name, (init, _, _, _) in fields.items() if init]
        return Constructor(
            opaque_defaults=any(fields[n][1] and not fields[n][2] and not _plain(fields[n][3]) for n in init_fields),
            params=tuple(init_fields),
            required=frozenset(n for n in init_fields if not fields[n][1]),
            attr_to_param={n: n for n in init_fields},
            tensors=tuple((n, facts[3]) for n, facts in fields.items() if facts[2]),
            hidden=hidden,
            tensors_left=tensors_left,
        )

    def _field_facts(self, field: FieldFacts, module: str, scope: str) -> tuple[bool, bool, bool]:
        """(init, has_default, default_is_none) of a dataclass field's right-hand side."""
        if not field.value:
            return True, False, False
        if field.value == "call" and self._resolves_to(module, scope, field.callee, _FIELD):
            return not field.init_false, field.keyword_default, field.keyword_none
        return True, True, field.value == "none"


def _mangled(name: str) -> bool:
    """A private name, which Python mangles with the name of the class whose code spells it (``__ids``)."""
    return name.startswith("__") and not name.endswith("__")


def _may_be_tensor(annotation: str) -> bool:
    """Whether an annotation as written may admit a tensor (``torch.Tensor``, ``Optional[Tensor]``, ``"Tensor"``):
    such a parameter left home would lose one."""
    return "Tensor" in annotation


_PLAIN = frozenset({"int", "float", "bool", "str", "bytes", "complex", "None", "builtins.int", "builtins.float",
                    "builtins.bool", "builtins.str", "builtins.bytes", "builtins.complex"})
_OPTIONAL = frozenset({"Optional", "typing.Optional", "Union", "typing.Union", "t.Optional", "t.Union"})
_LITERAL = frozenset({"Literal", "typing.Literal", "typing_extensions.Literal", "t.Literal"})


def _plain(annotation: str) -> bool:
    """Whether an annotation as written admits only plain scalars (``float``, ``str``, ``bool``, ``None``,
    ``Optional[int]``, ``Literal["a"]``, ``int | None``): a value that such a parameter left home to its default
    loses is at worst a setting, which a construction site passing another value shows (``Planner.defaults_passed``).
    No annotation, a project class, a container or anything else may hold tensors or state: not plain."""
    try:
        node = ast.parse(annotation.strip(), mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _plain(node.value)
    return _plain_node(node)


def _plain_node(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _plain_node(node.left) and _plain_node(node.right)
    if isinstance(node, ast.Subscript):
        head = plain_dotted(node.value)
        if head in _LITERAL:
            return True
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return head in _OPTIONAL and all(_plain_node(e) for e in elements)
    return plain_dotted(node) in _PLAIN
