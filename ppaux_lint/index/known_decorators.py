"""Class decorators and metaclasses from outside the project whose effect on a class's namespace is known.

A decorator the analysis cannot read might add ``to_pp_tensors`` or take it away, so a class decorated by one is
unknown (``namespaces.py``) and no rule judges it. For the decorators here that caution buys nothing: each
hands back the class it receives (or one built on it with the same members) and adds only what its library
documents, none of it a transport method or a hook SGLang calls. A class carrying them is judged like any other.
The same holds for the metaclasses listed: they build the class from its statement as ``type`` does.
"""

from __future__ import annotations

HARMLESS_DECORATORS = frozenset({
    # dataclasses and their look-alikes: __init__, __repr__, __eq__, ordering, hashing, slots, fields
    "dataclasses.dataclass", "pydantic.dataclasses.dataclass",
    "attr.s", "attr.attrs", "attr.define", "attr.mutable", "attr.frozen", "attr.dataclass",
    "attrs.define", "attrs.mutable", "attrs.frozen",
    # comparison, typing markers and checks, enum checks, deprecation
    "functools.total_ordering",
    "typing.final", "typing_extensions.final", "typing.runtime_checkable", "typing_extensions.runtime_checkable",
    "typing.type_check_only", "typing.no_type_check", "typing.dataclass_transform",
    "typing_extensions.dataclass_transform",
    "enum.unique", "enum.verify", "enum.global_enum",
    "abc.update_abstractmethods",
    "warnings.deprecated", "typing_extensions.deprecated",
})
"""Decorators, by the fully qualified name they resolve to, that hand back the class with no transport method
added or removed; called (``@dataclass(frozen=True)``) or not."""

FIELD_DECORATORS = frozenset({
    "dataclasses.dataclass", "pydantic.dataclasses.dataclass",
    "attr.s", "attr.attrs", "attr.define", "attr.mutable", "attr.frozen", "attr.dataclass",
    "attrs.define", "attrs.mutable", "attrs.frozen",
})
"""Of those, the ones whose ``__init__`` stores the class's annotated names on each instance: a field named
``to_pp_tensors`` is the instance's own attribute, whatever the class body binds to it."""

HARMLESS_METACLASSES = frozenset({
    "builtins.type", "abc.ABCMeta", "enum.EnumMeta", "enum.EnumType", "typing._ProtocolMeta",
    "typing_extensions._ProtocolMeta",
})
"""Metaclasses that make the class from its statement and add nothing to it that a rule asks about."""

METACLASS_HOOKS = ("__new__", "__init__", "__call__", "__prepare__")
"""What a project metaclass must not define to be as harmless as its bases: the hooks that see or replace the
namespace (``__new__``, ``__init__``, ``__prepare__``) or the instance (``__call__``). Its other methods are
the class's, not the instances', and ``isinstance`` never looks there."""
