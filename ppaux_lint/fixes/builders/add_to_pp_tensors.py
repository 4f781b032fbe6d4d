"""``add-to-pp-tensors``: generate an output's missing ``to_pp_tensors``, which adds behaviour.

An output that is a dataclass, or whose ``__init__`` stores ``torch.Tensor``-annotated parameters as
attributes, gets ``to_pp_tensors`` returning ``{"field": self.field, ...}`` (dataclass fields along the MRO,
as ``dataclasses`` collects them: :mod:`ppaux_lint.fixes.constructors`), when that rebuilds the output
(``Constructor.whole``): every parameter without a default is such a field, and no tensor-annotated one stays
home (one defaulting to ``None`` would make the helper raise when sent, and be lost when not). A non-tensor
parameter with a default stays home and is rebuilt with it, only when it is annotated as a plain scalar and no
construction site the index knows passes it (``Planner.defaults_passed``); an ``InitVar``, or a required
parameter stored transformed (``self.p = p.float()``) or handed to ``super().__init__``, means no fix. Nor does an
output some of whose subclasses (in any file) would inherit the method while built from other parameters. Fields with
``init=False`` stay home, since they cannot be passed back to the constructor; one that may hold a tensor (or an
attribute ``__init__`` or the class body annotates as one without taking it from a parameter) may be set by
whoever made the instance, and means no fix (``constructors``). A
misspelt ``from_pp_tensor`` on an observer (or ``to_pp_tensor`` here), which a rename in the same ``--fix`` may
turn into the real one reading other keys, means no fix either. An output that sets
``to_pp_tensors = None`` on purpose, or deletes it after the class statement (which a method added to the body
would not survive), gets no fix, nor one whose paired observer already reads another set of keys: that would
only trade the finding for a key mismatch. The return annotation, where the class's methods have them, names the
tensor type as the module binds it, quoted where it would not evaluate when the ``def`` runs (the name imported only
for type checkers or below the class, or ``dict``, ``str`` or the name bound first by the class body or a function
around the class).
"""

from __future__ import annotations

from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes.plan import Plan, Planner, names_list
from ppaux_lint.fixes.render import MethodSpec
from ppaux_lint.fixes.syntax import annotates_returns, annotation_evaluates

KIND = "add-to-pp-tensors"


def build(planner: Planner, finding: Finding) -> Plan | None:
    fqn = finding.symbol
    if planner.index.lookup(fqn, TO_PP) is not None or planner.index.set_outside(fqn, TO_PP):
        return None  # bound to None, deleted after the class, or otherwise deliberately: not ours to overrule
    found = planner.sources.class_node(fqn)
    constructor = planner.constructors.of(fqn)
    if found is None or constructor is None or not constructor.whole or found[1] != finding.path:
        return None  # what would not travel would be lost, or make the rebuild fail
    if planner.defaults_passed(fqn, constructor):
        return None  # a value some construction site passes would be rebuilt as the default
    for subclass in planner.index.subclasses(fqn):
        if planner.index.lookup(subclass, TO_PP) is None and planner.constructors.of(subclass) != constructor:
            return None  # it would inherit a method that sends too little for its own instances
    node, _, module = found
    attrs = [attr for attr, _ in constructor.tensors]
    if any(planner.near_miss(observer, FROM_PP) for observer in planner.observers_of(fqn)) \
            or planner.near_miss(fqn, TO_PP):
        return None  # a rename of the misspelt method may come with this fix, and it reads or sends other keys
    for observer in planner.observers_of(fqn):
        member = planner.index.lookup(observer, FROM_PP)
        method = member.method if member is not None else None
        if method is not None and method.keys_read_exact and all(k.kind == "str" for k in method.keys_read) \
                and {k.value for k in method.keys_read} != set(attrs):
            return None  # generating these keys would only trade this finding for a key mismatch
    annotation = ""
    if annotates_returns(node):  # the tensor type as this module names it (a base's file may say ``T.Tensor``)
        tensor = planner.tensor_name(module, planner.index.classes[fqn].qualname)
        annotation = f"dict[str, {tensor}]" if tensor else ""
        if annotation and not annotation_evaluates(planner.sources.tree(found[1]), node, (tensor,), ("dict", "str")):
            annotation = f'"{annotation}"'  # a string is never evaluated: no NameError, no class-scope `dict`
    spec = MethodSpec(TO_PP, ("self",), "dict", tuple((attr, attr) for attr in attrs), returns=annotation)
    return planner.base_plan(finding, fqn, node, method=spec,
                             description=f"Add `{TO_PP}` returning {names_list(attrs)}")
