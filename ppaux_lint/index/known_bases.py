"""Bases from outside the project whose members are known, so that a class built on them can be checked.

When a class inherits something the index cannot see, a missing ``to_pp_tensors`` might come from that base,
so the rules say nothing (``ProjectGraph.unresolved_bases``). For the well-known bases here that caution buys
nothing: what each gives its subclasses is known, and none of it is a transport method or a hook SGLang
calls. A class built on them is checked like any other, and ``ProjectGraph.lookup`` finds their members
where attribute lookup would. Any other outside base stays unknown, and keeps the silence.

The standard library's members are read from the running interpreter (the namespaces along each class's
MRO), the one that parses the checked code. Third-party packages are never imported by ``check``, so their
members are listed below: the public API of each base, the underscore names that are part of that API, and
what ``object`` gives every class. Classes made by decorators (``@dataclass``, ``@attr.s``,
``@attrs.define``, ``@define``, ``@frozen``) have no outside base at all, so they need no entry.
"""

from __future__ import annotations

import abc
import builtins
import collections
import collections.abc
import enum
import numbers
import typing
from collections.abc import Collection
from functools import cache

_TORCH_MODULE = """
    T_destination add_module apply bfloat16 buffers call_super_init children compile cpu cuda double
    dump_patches eval extra_repr float forward get_buffer get_extra_state get_parameter get_submodule half
    ipu load_state_dict modules mtia named_buffers named_children named_modules named_parameters parameters
    register_backward_hook register_buffer register_forward_hook register_forward_pre_hook
    register_full_backward_hook register_full_backward_pre_hook register_load_state_dict_post_hook
    register_load_state_dict_pre_hook register_module register_parameter register_state_dict_post_hook
    register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule share_memory state_dict to
    to_empty train training type xpu zero_grad __call__ __getattr__ __setstate__
"""
_PYDANTIC_V1 = """
    Config construct copy dict from_orm json parse_file parse_obj parse_raw schema schema_json
    update_forward_refs validate __config__ __fields__ __fields_set__
"""
_PYDANTIC_V2 = _PYDANTIC_V1 + """
    model_computed_fields model_config model_construct model_copy model_dump model_dump_json model_extra
    model_fields model_fields_set model_json_schema model_parametrized_name model_post_init model_rebuild
    model_validate model_validate_json model_validate_strings __pydantic_fields__
"""
_MSGSPEC_STRUCT = """
    __copy__ __match_args__ __rich_repr__ __struct_config__ __struct_defaults__ __struct_encode_fields__
    __struct_fields__
"""
_THIRD_PARTY = {
    "torch.nn.Module": _TORCH_MODULE,
    "torch.nn.modules.module.Module": _TORCH_MODULE,
    "pydantic.BaseModel": _PYDANTIC_V2,  # pydantic 1 or 2, whichever is installed
    "pydantic.main.BaseModel": _PYDANTIC_V2,
    "pydantic.v1.BaseModel": _PYDANTIC_V1,
    "pydantic.v1.main.BaseModel": _PYDANTIC_V1,
    "msgspec.Struct": _MSGSPEC_STRUCT,
}
_STDLIB = {module.__name__: module for module in (builtins, abc, collections, collections.abc, enum, numbers)}
# typing's aliases name other classes (``typing.Mapping`` is ``collections.abc.Mapping``, ``typing.List`` is
# ``list``); two of its functions are listed as bases, and make a tuple and a dict.
_TYPING_FUNCTIONS = {"NamedTuple": (tuple, {"_asdict", "_field_defaults", "_fields", "_make", "_replace"}),
                     "TypedDict": (dict, set())}


def adds_no_fields(fqn: str, roots: Collection[str]) -> bool:
    """Whether the outside base ``fqn`` gives its subclasses no ``__init__`` parameters and no dataclass fields:
    ``object``, a ``typing`` or ``abc`` construct, or one of the protocols' roots (``roots``)."""
    return fqn in roots or fqn.split(".")[0] in ("builtins", "typing", "typing_extensions", "abc")


@cache
def members(fqn: str) -> frozenset[str] | None:
    """What the outside class ``fqn`` gives its subclasses, or None when it is not a known base."""
    if fqn in _THIRD_PARTY:
        return _attributes(object) | frozenset(_THIRD_PARTY[fqn].split())
    module, _, name = fqn.rpartition(".")
    if name.startswith("_"):
        return None
    if module in _STDLIB:
        value = getattr(_STDLIB[module], name, None)
        return _attributes(value) if isinstance(value, type) else None
    if module not in ("typing", "typing_extensions") or name not in typing.__all__:
        return None
    if name in _TYPING_FUNCTIONS:
        cls, api = _TYPING_FUNCTIONS[name]
        return _attributes(cls) | api
    value = getattr(typing, name)
    target = value if isinstance(value, type) else typing.get_origin(value)
    return _attributes(target) if isinstance(target, type) else None


def _attributes(cls: type) -> frozenset[str]:
    """Every attribute lookup can find on a subclass of ``cls``: ``dir`` hides some (an Enum's ``name``)."""
    return frozenset().union(*(vars(c) for c in cls.__mro__))
