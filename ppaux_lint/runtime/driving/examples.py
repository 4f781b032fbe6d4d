"""Building an instance of a project class to put through the round trip.

A user's own example always wins, because only the user knows what a
realistic instance looks like: first a ``ppaux_example(cls, device)``
classmethod, then a factory named in the config. Only then is one
synthesised from the constructor's annotations. The two kinds of failure are
told apart on purpose: a user's example that raises is an ``error`` (their
code is broken), while a synthesis that cannot work is a ``skip`` whose reason
says what to add.

A synthesised output whose constructor takes tensors that default to ``None``
(``mask: Optional[torch.Tensor] = None``) gets a second example with them set:
left at ``None`` only, a ``to_pp_tensors`` that forgets them would pass, and
the first stage would then rebuild every batch that has them without them.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import itertools
import sys
import types
import typing
from collections import abc
from collections.abc import Callable, Collection, Iterator
from typing import Any

import torch

from ppaux_lint.runtime.driving.loader import Unimportable, exposed_instance, load_class, load_factory
from ppaux_lint.runtime.sending.consume import Scene
from ppaux_lint.runtime.sending.roundtrip import Outcome, Steps, format_detail
from ppaux_lint.runtime.terms.results import ANNOTATIONS, DRIVEN, ERROR, OWN, SKIP
from ppaux_lint.runtime.terms.targets import ClassRef
from ppaux_lint.support.records import dataclass

HOW_TO_PROVIDE = (
    "add a classmethod ppaux_example(cls, device) to the class, or name a factory in "
    '[tool.ppaux-lint.verify.examples] ("pkg.mod.Class" = "pkg.factories:make")'
)
_MAX_DEPTH = 4


class ExampleUnavailable(Exception):
    """No example could be made; the message says why and what to add."""


class ExampleFailed(Exception):
    """The user's own example code raised or returned nothing."""


@dataclass(frozen=True)
class Example:
    """One instance to put through the round trip; ``variant`` tells it from its siblings ("" if it has none).

    A driven example (``drive.py``) carries the ``scene`` its observer sampled, which the host objects then
    consume; the others get one made up from their shape."""

    value: Any
    synthesised: bool
    variant: str = ""
    scene: Scene | None = None

    @property
    def how(self) -> str:
        """How it was made, as rows report it: ``driven``, ``own`` (the user's) or ``annotations``."""
        return DRIVEN if self.scene is not None else ANNOTATIONS if self.synthesised else OWN


def build_examples(cls: type, device: torch.device, factory: str | None, vary: bool = True) -> list[Example]:
    """The instances of ``cls`` to test: the user's one, else one synthesised and, with ``vary``, a second
    with its optional tensors set (see the module doc)."""
    own = own_example(cls, device, factory)
    if own is not None:
        return [own]
    optional = optional_tensor_parameters(cls) if vary else []
    if not optional:
        return [Example(synthesize(cls, device), True)]
    names = ", ".join(optional)
    return [Example(synthesize(cls, device), True, f"with {names} left None"),
            Example(synthesize(cls, device, optional), True, f"with {names} set")]


def own_example(cls: type, device: torch.device, factory: str | None) -> Example | None:
    """The user's example of ``cls``: its ``ppaux_example`` classmethod, else the configured ``factory``;
    ``None`` without either. Raises ``ExampleFailed`` when the user's code does."""
    if inspect.getattr_static(cls, "ppaux_example", None) is not None:
        return Example(_call_user(f"{cls.__qualname__}.ppaux_example", lambda: cls.ppaux_example(device)), False)
    if not factory:
        return None
    try:
        func = load_factory(factory)
    except Exception as exc:
        raise ExampleFailed(f"example factory {factory!r} cannot be loaded: {_describe(exc)}") from exc
    return Example(_call_user(f"example factory {factory!r}", lambda: _call_with_device(func, device)), False)


def synthesize(cls: type, device: torch.device, fill: Collection[str] = ()) -> Any:
    """Construct ``cls`` from values made up for each required constructor parameter and for those in
    ``fill``, which would otherwise keep their defaults."""
    try:
        args, kwargs = _arguments(cls, device, itertools.count(1), 0, fill)
        return cls(*args, **kwargs)
    except ExampleUnavailable as exc:
        raise ExampleUnavailable(f"cannot synthesise an example: {exc}; {HOW_TO_PROVIDE}") from None
    except Exception as exc:
        filled = f" with {', '.join(fill)} set" if fill else ""
        raise ExampleUnavailable(
            f"a synthesised {cls.__qualname__}(...){filled} raised {_describe(exc)}; {HOW_TO_PROVIDE}"
        ) from exc


def optional_tensor_parameters(cls: type) -> list[str]:
    """The constructor parameters that default to ``None`` and whose annotation admits a tensor."""
    hints = _hints(cls)
    return [param.name for param in _init_parameters(cls)
            if param.default is None and _admits_tensor(hints.get(param.name, param.annotation))]


def small_tensor(name: str, device: torch.device, index: int) -> torch.Tensor:
    """A 2x3 tensor whose values differ from every other synthesised tensor's.

    Distinct values are what let the comparison notice two fields swapped in
    ``from_pp_tensors``. The dtype follows the name, because an observer may
    index with ids or test a mask.
    """
    lowered = name.lower()
    if lowered.endswith("mask") or lowered.startswith(("is_", "has_")):
        return (torch.arange(6, device=device) % 2 == index % 2).reshape(2, 3)
    base = torch.arange(6, device=device).reshape(2, 3) + 6 * index
    if lowered.endswith(("ids", "indices", "index", "positions", "lens", "lengths", "counts")):
        return base.to(torch.int64)
    return base.to(torch.float32) + 0.5


def _call_user(what: str, call: Callable[[], Any]) -> Any:
    try:
        example = call()
    except Exception as exc:
        raise ExampleFailed(f"{what} raised {_describe(exc)}") from exc
    if example is None:
        raise ExampleFailed(f"{what} returned None")
    return example


def _call_with_device(func: Callable[..., Any], device: torch.device) -> Any:
    """Pass the device to factories that take a parameter; call the others bare."""
    try:
        inspect.signature(func).bind(device)
    except TypeError:
        return func()
    except ValueError:  # no signature to read (a builtin): assume it takes the device
        pass
    return func(device)


def _arguments(cls: type, device: torch.device, counter: Iterator[int], depth: int,
               fill: Collection[str] = ()) -> tuple[list, dict]:
    if inspect.isabstract(cls):
        raise ExampleUnavailable(f"{cls.__qualname__} is abstract")
    hints = _hints(cls)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in _init_parameters(cls):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is not param.empty and param.name not in fill:
            continue
        annotation = hints.get(param.name, param.annotation)
        if annotation is param.empty:
            raise ExampleUnavailable(f"{cls.__qualname__} parameter {param.name!r} has no annotation")
        value = _value(annotation, param.name, device, counter, depth)
        if param.kind == param.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[param.name] = value
    return args, kwargs


def _init_parameters(cls: type) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return []  # no readable signature: try it bare


def _hints(cls: type) -> dict[str, Any]:
    """The annotations that may describe ``cls``'s constructor parameters, each resolved where it can be.

    Under ``from __future__ import annotations`` every annotation is a string, and a NamedTuple's are
    ``ForwardRef`` objects on its generated ``__new__``, whose globals are not its module's; so each is
    evaluated in the namespace of the class that wrote it (its module, then its own body), as
    ``typing.get_type_hints`` does for a class. The class's own annotations (fields of a dataclass,
    NamedTuple or attrs class; the attributes of a plain one) come first, and the constructor's override
    them. One at a time, because one name imported only under ``TYPE_CHECKING`` must not cost the others
    their resolution: what does not resolve stays as it was written, for the text spellings to read.
    """
    hints: dict[str, Any] = {}
    for owner in reversed(cls.__mro__):
        hints.update(_resolved(vars(owner).get("__annotations__", {}), owner))
    for method in ("__new__", "__init__"):
        owner = next((base for base in cls.__mro__ if method in vars(base)), object)
        if owner is not object:
            hints.update(_resolved(getattr(getattr(cls, method), "__annotations__", {}), owner))
    hints.pop("return", None)
    return hints


def _resolved(annotations: dict[str, Any], owner: type) -> dict[str, Any]:
    module = sys.modules.get(owner.__module__)
    globalns = dict(vars(module)) if module is not None else {}
    localns = dict(vars(owner))
    resolved = {}
    for name, annotation in annotations.items():
        holder = types.SimpleNamespace(__annotations__={name: annotation})
        try:
            resolved[name] = typing.get_type_hints(holder, globalns, localns, include_extras=True)[name]
        except Exception:  # noqa: BLE001 - any annotation may fail to evaluate; its text is still read
            resolved[name] = annotation
    return resolved


def _value(annotation: Any, name: str, device: torch.device, counter: Iterator[int], depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ExampleUnavailable(f"{name!r} nests too deeply")
    if isinstance(annotation, typing.ForwardRef):  # one that did not resolve (see _hints), read as text
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        return _value_from_text(annotation, name, device, counter, depth)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _value(args[0], name, device, counter, depth)
    if origin in (typing.Union, types.UnionType):
        return _value_of_union(args, name, device, counter, depth)
    if origin is typing.Literal:
        return args[0]
    if origin is not None:
        return _container(origin, args, name, device, counter, depth)
    if annotation is type(None) or annotation is None:
        return None
    if isinstance(annotation, type):
        return _value_of_type(annotation, name, device, counter, depth)
    raise ExampleUnavailable(f"no value for {name!r} of type {annotation!r}")


def _value_of_union(args: tuple, name: str, device: torch.device, counter: Iterator[int], depth: int) -> Any:
    """A value for the first member that can make one; ``None`` only if nothing else can."""
    for member in sorted(args, key=lambda a: a is type(None)):
        try:
            return _value(member, name, device, counter, depth)
        except ExampleUnavailable:
            continue
    raise ExampleUnavailable(f"no value for {name!r} of any type in {args!r}")


_SCALARS: dict[type, Callable[[str, int], Any]] = {
    bool: lambda name, i: True,
    int: lambda name, i: i + 1,
    float: lambda name, i: i + 0.5,
    complex: lambda name, i: complex(i, 1),
    str: lambda name, i: f"{name}-{i}",
    bytes: lambda name, i: f"{name}-{i}".encode(),
}


def _value_of_type(tp: type, name: str, device: torch.device, counter: Iterator[int], depth: int) -> Any:
    if issubclass(tp, torch.Tensor):
        return small_tensor(name, device, next(counter))
    if tp is torch.device:
        return device
    if tp is torch.dtype:
        return torch.float32
    for scalar, make in _SCALARS.items():
        if tp is scalar:
            return make(name, next(counter))
    if issubclass(tp, enum.Enum):
        members = list(tp)
        if members:
            return members[0]
    if tp in (list, tuple, dict, set, frozenset):
        return tp()
    if dataclasses.is_dataclass(tp) or (issubclass(tp, tuple) and hasattr(tp, "_fields")):  # or a NamedTuple
        args, kwargs = _arguments(tp, device, counter, depth + 1)
        return tp(*args, **kwargs)
    raise ExampleUnavailable(f"no value for {name!r} of type {tp.__qualname__}")


def _container(origin: Any, args: tuple, name: str, device: torch.device, counter: Iterator[int], depth: int) -> Any:
    def item(annotation: Any) -> Any:
        return _value(annotation, name, device, counter, depth + 1)

    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return (item(args[0]),)
        if args == ((),):  # Tuple[()] before Python 3.11
            return ()
        return tuple(item(a) for a in args)
    if origin in (dict, abc.Mapping, abc.MutableMapping):
        key, val = args or (str, int)
        return {item(key): item(val)}
    if origin in (set, frozenset, abc.Set, abc.MutableSet):
        items = {item(args[0])} if args else set()
        return frozenset(items) if origin is frozenset else items
    if origin in (list, abc.Sequence, abc.MutableSequence, abc.Iterable, abc.Collection):
        return [item(args[0])] if args else []
    if origin is type and args and isinstance(args[0], type):
        return args[0]
    raise ExampleUnavailable(f"no value for {name!r} of type {origin!r}")


_TEXT_TYPES = {
    "int": int,
    "float": float,
    "bool": bool,
    "str": str,
    "bytes": bytes,
    "None": type(None),
    "torch.device": torch.device,
    "torch.dtype": torch.dtype,
}


def _value_from_text(text: str, name: str, device: torch.device, counter: Iterator[int], depth: int) -> Any:
    """Make sense of an annotation that did not resolve, by its common spellings."""
    for alt in _alternatives(text):
        if _names_tensor(alt):
            return small_tensor(name, device, next(counter))
        if alt in _TEXT_TYPES:
            return _value(_TEXT_TYPES[alt], name, device, counter, depth)
    raise ExampleUnavailable(f"no value for {name!r} annotated {text!r}")


def _alternatives(text: str) -> list[str]:
    """The types an unresolved annotation spells out (``Optional[X]``, ``X | Y``), ``None`` last."""
    text = text.strip().strip("'\"")
    if text.startswith(("Optional[", "typing.Optional[")) and text.endswith("]"):
        text = text[text.index("[") + 1 : -1].strip()
    alternatives = [part.strip().strip("'\"") for part in text.split("|")]  # Optional["torch.Tensor"]
    return [alt for alt in alternatives if alt != "None"] or alternatives


def _names_tensor(text: str) -> bool:
    return text == "Tensor" or text.endswith(".Tensor")


def _admits_tensor(annotation: Any) -> bool:
    """Whether ``annotation`` (resolved or not) lets the value be a tensor, through Optional, unions and
    Annotated; a bare ``torch.Tensor`` with a ``None`` default counts, as sloppy typing often is."""
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        return any(_names_tensor(alt) for alt in _alternatives(annotation))
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _admits_tensor(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return any(_admits_tensor(member) for member in typing.get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, torch.Tensor)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def examples_of(ref: ClassRef, device: torch.device, steps: Steps, vary: bool = True) -> list[Example]:
    """Import ``ref`` and build its examples (see ``build_examples``), mapping each failure to a status.

    An import that raises is an ``error`` (the project's code cannot even be
    loaded); a class that cannot be imported through no fault of its own
    (``Unimportable``), or one with no example and no way to synthesise one,
    is a ``skip``.
    """
    if ref.returned_by:  # nothing to import or synthesise: only the observer's hooks make one
        raise Outcome(SKIP, f"{ref.symbol} is defined in a function and made only by {ref.returned_by}'s hooks"
                      if ref.qualname else "it is judged on what its after_sample returns")
    with steps.step(f"import {ref.symbol}", ERROR):
        try:
            cls = load_class(ref)
        except Unimportable as exc:
            raise Outcome(SKIP, str(exc)) from None
    with steps.step(f"example of {ref.symbol}", ERROR):
        try:
            return build_examples(cls, device, ref.factory, vary)
        except ExampleUnavailable as exc:
            raise Outcome(SKIP, f"no example of {ref.symbol}: {exc}") from None
        except ExampleFailed as exc:
            raise Outcome(ERROR, f"example of {ref.symbol}: {exc}", format_detail(exc.__cause__ or exc)) from None


def instantiate(ref: ClassRef, device: torch.device, steps: Steps) -> Any:
    """One instance of ``ref``, for an observer: the module-level instance it is exposed as, when a function
    defines its class and exposes an instance (what the deployment installs); else one built as an example,
    the tensors it rebuilds from coming from the output, so its own constructor's optional tensors are left
    at their defaults."""
    if ref.exposed:
        with steps.step(f"import {ref.symbol}", ERROR):
            exposed = exposed_instance(ref)
        if exposed is not None:
            return exposed
    return examples_of(ref, device, steps, vary=False)[0].value
