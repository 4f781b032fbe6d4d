"""``add-from-pp-tensors``: generate a sampling observer's missing ``from_pp_tensors``, which adds behaviour.

An observer whose paired output is known, can be rebuilt from keyword arguments (every required one among the
keys sent, and no tensor left home: ``Constructor.whole``), and whose sent keys are known
(from its own ``to_pp_tensors`` dict literal of ``self.<attr>`` values, or the tensor fields
``add-to-pp-tensors`` would send: :meth:`~ppaux_lint.fixes.plan.Planner.sent_keys`) gets
``from_pp_tensors(self, tensors)`` returning ``Output(field=tensors["field"], ...)``; an import of the output is
added when the observer's module does not bind it at run time, unless the output's module imports this one at
import time (directly or through the project's modules): that import would close a cycle, which the observer
keeps out of import time by importing the output inside a function. Not offered where a subclass observer would
inherit the method while its hooks return another output (it would rebuild the wrong class, and its PPA002 would
vanish), or where either side has a misspelt transport method (a rename in the same ``--fix`` may read or send
other keys). The return annotation, where the class's methods have them, is quoted when the output's name is not
bound yet where the ``def`` runs (defined below, or imported by the fix after the class), or when the class body (or
a function the class is defined in) binds that name first.
"""

from __future__ import annotations

from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes.plan import Plan, Planner, names_list
from ppaux_lint.fixes.render import MethodSpec
from ppaux_lint.fixes.syntax import annotates_returns, annotation_evaluates

KIND = "add-from-pp-tensors"


def build(planner: Planner, finding: Finding) -> Plan | None:
    fqn = finding.symbol
    info = planner.infos.get(fqn)
    if info is None or info.pair is None or planner.index.lookup(fqn, FROM_PP) is not None \
            or planner.index.set_outside(fqn, FROM_PP):
        return None  # what code after the class does to the name would overrule a method added to its body
    for subclass in planner.index.subclasses(fqn):
        inherits = planner.index.lookup(subclass, FROM_PP) is None
        if inherits and (sub := planner.infos.get(subclass)) is not None and sub.is_observer and sub.pair != info.pair:
            return None  # it would inherit a method that rebuilds another class than the one it sends
    if planner.near_miss(fqn, FROM_PP) or planner.near_miss(info.pair, TO_PP):
        return None  # a rename of the misspelt method may come with this fix, and it reads or sends other keys
    found = planner.sources.class_node(fqn)
    if found is None or found[1] != finding.path:
        return None
    node, path, module = found
    pair = info.pair
    constructor = planner.constructors.of(pair)
    keys = planner.sent_keys(pair, constructor)
    if constructor is None or not keys:
        return None
    items = []
    for key, attr in keys:
        param = constructor.attr_to_param.get(attr)
        if param is None or param in constructor.positional_only:
            return None
        items.append((param, key))
    if not constructor.whole or not constructor.required <= {param for param, _ in items}:
        return None  # an argument that does not travel: the rebuild would fail, or lose a tensor
    if planner.defaults_passed(pair, constructor, [param for param, _ in items]):
        return None  # a value some construction site passes would be rebuilt as the default
    name, add_import = planner.name_in_scope(pair, module, path, planner.index.classes[fqn].qualname)
    if name is None:
        return None
    annotation = ""
    if annotates_returns(node):  # quoted where the name is not bound yet when the ``def`` runs (defined below it)
        evaluates = annotation_evaluates(planner.sources.tree(path), node, (name,), imported=add_import is not None)
        annotation = name if evaluates else f'"{name}"'
    spec = MethodSpec(FROM_PP, ("self", "tensors"), "construct", tuple(items), constructor=name,
                      returns=annotation)
    description = f"Add `{FROM_PP}` rebuilding `{name}` from {names_list(k for k, _ in keys)}"
    if add_import is not None:
        description += f" (imports `{add_import[1]}` from `{add_import[0]}`)"
    return planner.base_plan(finding, fqn, node, method=spec, add_import=add_import, description=description)
