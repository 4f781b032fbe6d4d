"""PPA012: a value returned by ``to_pp_tensors`` that is certainly not a tensor.

Most reasons are in the expression itself (a literal, ``.tolist()``, ``len()``: the summary says so). Two take
the project: a call that the index resolves to a NumPy array constructor (``np.zeros(...)`` with ``import numpy
as np``), and ``self.<field>`` where the class, along its MRO, declares the field with an annotation that is
not a tensor (``lengths: list[torch.Tensor]``), at class level or through ``__init__`` storing a parameter so
annotated (``def __init__(self, lengths: list[torch.Tensor])``, ``self.lengths = lengths``), also as a project
class that is certainly no tensor (``detail: GapPart``: a container sending its part whole). A field declared
with a type variable (``value: T`` in ``class Stat(Generic[T])``) is what the class under judgement binds it
to (``class BatchTemperature(Stat[float])``), reported at that class when it inherits ``to_pp_tensors``. An
unresolved name, an ``Optional[...]``, a union, an unbound type variable or an annotation of unknown meaning
is silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import TO_PP
from ppaux_lint.facts.findings import Finding, Related
from ppaux_lint.facts.summary import ClassSummary, ValueFact
from ppaux_lint.index.generics import Written
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, OwnMethod, Rule

_NUMPY_ARRAYS = frozenset(f"numpy.{name}" for name in (
    "array", "asarray", "asanyarray", "ascontiguousarray", "zeros", "ones", "empty", "full", "zeros_like",
    "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "identity", "concatenate",
    "stack", "frombuffer", "fromiter"))
_NOT_TENSOR_TYPES = {
    "builtins.list": "a list", "typing.List": "a list", "builtins.tuple": "a tuple", "typing.Tuple": "a tuple",
    "builtins.dict": "a dict", "typing.Dict": "a dict", "builtins.set": "a set", "typing.Set": "a set",
    "typing.FrozenSet": "a frozenset", "typing.Sequence": "a sequence", "collections.abc.Sequence": "a sequence",
    "builtins.int": "an int", "builtins.float": "a float", "builtins.str": "a str", "builtins.bool": "a bool",
    "numpy.ndarray": "a NumPy array", "numpy.typing.NDArray": "a NumPy array",
}
_TENSOR, _OBJECT = "torch.Tensor", "builtins.object"
# ``Field.annotation`` is ``ast.unparse`` text, so a plain or subscripted name always looks like this; a union
# (``X | None``) or a string annotation does not match.
_ANNOTATION = re.compile(r"([A-Za-z_][\w.]*)(\[.*\])?")


def check(context: CheckContext) -> Iterator[Finding]:
    for own, _, item, key, _ in sent.returned_items(context):
        if key.kind != "str":
            continue
        reason = (item.not_tensor or _numpy_array(context, own, item)
                  or _declared_where_run(context, own, item.attribute))
        if reason:
            error = pp_errors.raised(pp_errors.NOT_A_TENSOR.format(name=key.value))
            yield RULE.finding(f"{own.where} returns {reason} under {key.shown}, not a tensor: {error}",
                               own.path, item.span, own.info.fqn)
    yield from _inherited(context)


def _inherited(context: CheckContext) -> Iterator[Finding]:
    """A class on the PP path (``CheckContext.sending``) that inherits ``to_pp_tensors`` and binds a type
    variable the inherited method's value is declared with to a type that is not a tensor (``class
    BatchTemperature(Stat[float])``): reported at the class, which chose the type, with the value as the other
    end."""
    index = context.index
    for info in context.sending():
        member = index.lookup(info.fqn, TO_PP) if info.is_output else None
        if member is None or member.method is None or member.owner in (info.fqn, None) or member.site is None \
                or member.owner not in index.classes or member.method.is_async or member.method.is_generator:
            continue
        owner = index.info(member.owner)
        where = f"`{info.fqn}` inherits `{owner.fqn}.{TO_PP}`, which"
        module, scope = sent.written_in(index, owner.fqn, member.method, member.site.module, member.site.scope)
        for fact in member.method.returns:
            if fact.kind != "dict" or fact.when == "falsy":
                continue
            for item in fact.items:
                key = sent.key(index, module, scope, item.key, info.fqn)
                if key.kind != "str" or not item.attribute or _declared(context, owner, item.attribute):
                    continue  # what the method's own class says is reported there
                reason = _declared(context, info, item.attribute)
                if reason:
                    error = pp_errors.raised(pp_errors.NOT_A_TENSOR.format(name=key.value))
                    value = Related(member.site.path, item.span, f"`{owner.fqn}.{TO_PP}` returns the value here")
                    yield RULE.finding(f"{where} returns {reason} under {key.shown}, not a tensor: {error}",
                                       info.path, info.summary.span, info.fqn, related=(value,))


def _numpy_array(context: CheckContext, own: OwnMethod, item: ValueFact) -> str:
    if not item.call:
        return ""
    target = context.index.resolve(own.module, item.call, own.scope)
    return f"a NumPy array ({target}())" if target in _NUMPY_ARRAYS else ""


def _declared_where_run(context: CheckContext, own: OwnMethod, attribute: str) -> str:
    """``_declared`` for the class that owns the method, when instances that run it hold what it declares: its
    own, or, when only subclasses have instances (``CheckContext.runners``), one of those that does not store
    something else there (a subclass converting the field in its ``__post_init__`` sends a tensor). What a
    subclass binds a type variable to is ``_inherited``'s, reported at that subclass."""
    reason = _declared(context, own.info, attribute)
    if not reason:
        return ""
    classes = context.runners(own.info, own.name)
    if not classes or own.info.fqn in classes:
        return reason
    index = context.index
    return reason if any(_declared(context, index.info(runner), attribute) for runner in classes) else ""


def _declared(context: CheckContext, info: ClassInfo, attribute: str) -> str:
    """``_declaration``, made once per class and attribute: a class's own ``to_pp_tensors`` asks it of the class
    and of each class that runs it, and each subclass that inherits it of the method's class again (on the
    monorepo benchmark, 5,250 questions of 3,494 kinds)."""
    answers = context.shared(_declared, dict)
    key = (info.fqn, attribute)
    found = answers.get(key)
    if found is None:
        found = answers[key] = _declaration(context, info, attribute)
    return found


def _declaration(context: CheckContext, info: ClassInfo, attribute: str) -> str:
    """What the class declares ``self.<attribute>`` as, when that is certainly not a tensor; the first class
    along the MRO that names the attribute at all (a field, a method or assignment, or a store in its
    ``__init__``) decides, and a base that cannot be seen might. A type variable of that class stands for
    what ``info`` binds it to through its bases' type arguments (``index.generics``). A field that a method of
    that class or of one before it stores to (``__post_init__``'s ``self.ids = torch.as_tensor(self.ids)``, or
    ``__init__`` from anything but a parameter as it is) may hold something else than it is declared as: nothing is
    certain."""
    if not attribute or info.unresolved_bases:
        return ""
    index = context.index
    # The first class that names it, and the first that stores to it, each memoised along the MRO (every class
    # of a chain walked the rest of it); stored before or at the one that names it: nothing is certain.
    owner = index.first_along(info.fqn, (_declared, "names", attribute),
                              lambda c: c if _names(index.classes.get(c), attribute) else None)
    if not isinstance(owner, str):
        return ""
    cls = index.classes[owner]
    declared = next((f for f in cls.fields if f.name == attribute), None)
    if declared is not None:
        storer = index.first_along(info.fqn, (_declared, "stores", attribute),
                                   lambda c: c if c in index.classes and attribute in index.classes[c].stores else None)
        if isinstance(storer, str) and info.ancestry.index(storer) <= info.ancestry.index(owner):
            return ""  # a method, or ``__init__`` from something else than a parameter, stores what it may not be
        return _described(context, info.fqn, owner, declared.annotation, f"field `{attribute}: {{}}`")
    if cls.method(attribute) is not None or cls.assign(attribute) is not None:
        return ""
    initialised = next(f for f in cls.init_fields if f.name == attribute)
    return _described(context, info.fqn, owner, initialised.annotation,
                      f"`__init__` stores `self.{attribute}` as `{{}}`")


def _names(cls: ClassSummary | None, attribute: str) -> bool:
    """Whether the class statement names ``attribute`` at all: a field, a method or assignment, or a store of
    ``__init__`` (what ``_declared`` stops at)."""
    return cls is not None and (any(f.name == attribute for f in cls.fields) or cls.method(attribute) is not None
                                or cls.assign(attribute) is not None
                                or any(f.name == attribute for f in cls.init_fields))


def _described(context: CheckContext, cls: str, owner: str, annotation: str, how: str) -> str:
    """"a list (field `lengths: list[int]`)", "a float (field `value: T`, T = float)", or "" when the annotation
    in class ``owner`` does not say that a value of an instance of ``cls`` is certainly not a tensor."""
    found = _not_tensor_type(context, cls, owner, annotation)
    if found is None:
        return ""
    kind, bound = found
    return f"{kind} ({how.format(annotation)}{', ' + bound if bound else ''})"


def _not_tensor_type(context: CheckContext, cls: str, owner: str, annotation: str) -> tuple[str, str] | None:
    """What an annotation in class ``owner`` says a value of an instance of ``cls`` is, when that is certainly
    not a tensor: the kind, and what a type variable of ``owner`` stood for ("" for none)."""
    written = context.index.type_arguments.substitute(cls, owner, annotation)
    if written is None:
        return None
    kinds = context.shared(_not_tensor_type, dict)  # every class of a hierarchy asks of the fields its base declares
    kind = kinds.get(written)
    if kind is None:
        kind = kinds[written] = _kind(context, written)
    if not kind:
        return None
    return kind, (f"{annotation} = {written.text}" if written.text != annotation else "")


def _kind(context: CheckContext, written: Written) -> str:
    """What a value of the type ``written`` certainly is that is not a tensor ("a list"), or ""."""
    match = _ANNOTATION.fullmatch(written.text)
    target = context.index.resolve(written.module, match.group(1), written.scope) if match else None
    return _NOT_TENSOR_TYPES.get(target or "", "") or _project_object(context, target)


def _project_object(context: CheckContext, target: str | None) -> str:
    """A project class whose instances are certainly no tensor: an auxiliary output (a container that sends a
    part whole, ``{"detail": self.detail}``), or a class made of the project's own classes and ``object`` only,
    neither one a ``torch.Tensor`` subclass."""
    index = context.index
    if target is None or target not in index.classes:
        return ""
    mro = index.mro(target)
    if _TENSOR in mro or not (index.is_output_class(target) or all(c in index.classes or c == _OBJECT for c in mro)):
        return ""
    return f"a `{target.rsplit('.', 1)[-1]}` object"


RULE = Rule("PPA012", "non-tensor-pp-value", "A value returned by `to_pp_tensors` is certainly not a tensor", check,
            passed_despite=("its examples did not reach that value, or it held a tensor this time (SGLang checks each"
                            " one)"))
