"""PPA012: a value returned by ``to_pp_tensors`` that is certainly not a tensor.

Most reasons are in the expression itself (a literal, ``.tolist()``, ``len()``: the summary says so). Two take
the project: a call that the index resolves to a NumPy array constructor (``np.zeros(...)`` with ``import numpy
as np``), and ``self.<field>`` where the class, along its MRO, declares the field with an annotation that is
not a tensor (``lengths: list[torch.Tensor]``), at class level or through ``__init__`` storing a parameter so
annotated (``def __init__(self, lengths: list[torch.Tensor])``, ``self.lengths = lengths``), also as a project
class that is certainly no tensor (``detail: GapPart``: a container sending its part whole). An unresolved
name, an ``Optional[...]``, a union or an annotation of unknown meaning is silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import ValueFact
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, Rule

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
    for info, where, _, item in sent.returned_items(context):
        if item.key.kind != "str":
            continue
        reason = item.not_tensor or _numpy_array(context, info, item) or _declared(context, info, item.attribute)
        if reason:
            error = pp_errors.raised(pp_errors.NOT_A_TENSOR.format(name=item.key.value))
            yield RULE.finding(f"{where} returns {reason} under {item.key.value!r}, not a tensor: {error}",
                               info.path, item.span, info.fqn)


def _numpy_array(context: CheckContext, info: ClassInfo, item: ValueFact) -> str:
    if not item.call:
        return ""
    target = context.index.resolve(info.module, item.call, info.summary.qualname.rpartition(".")[0])
    return f"a NumPy array ({target}())" if target in _NUMPY_ARRAYS else ""


def _declared(context: CheckContext, info: ClassInfo, attribute: str) -> str:
    """What the class declares ``self.<attribute>`` as, when that is certainly not a tensor; the first class
    along the MRO that names the attribute at all (a field, a method or assignment, or a store in its
    ``__init__``) decides, and a base that cannot be seen might."""
    if not attribute or info.unresolved_bases:
        return ""
    index = context.index
    for owner in info.ancestry:
        cls = index.classes.get(owner)
        if cls is None:
            continue
        declared = next((f for f in cls.fields if f.name == attribute), None)
        if declared is not None:
            kind = _not_tensor_type(context, owner, declared.annotation)
            return f"{kind} (field `{attribute}: {declared.annotation}`)" if kind else ""
        if cls.method(attribute) is not None or cls.assign(attribute) is not None:
            return ""
        stored = next((f for f in cls.init_fields if f.name == attribute), None)
        if stored is not None:
            kind = _not_tensor_type(context, owner, stored.annotation)
            return f"{kind} (`__init__` stores `self.{attribute}` as `{stored.annotation}`)" if kind else ""
    return ""


def _not_tensor_type(context: CheckContext, owner: str, annotation: str) -> str:
    """What an annotation in class ``owner`` says a value is, when that is certainly not a tensor."""
    index = context.index
    match = _ANNOTATION.fullmatch(annotation)
    target = index.resolve(index.class_module[owner], match.group(1), index.classes[owner].qualname) if match else None
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
