"""PPA002: a sampling observer without ``from_pp_tensors`` cannot rebuild its output on the first stage.

The fix (unsafe) generates ``from_pp_tensors(self, tensors)`` returning ``Output(field=tensors["field"],
...)`` when the paired output is known, can be rebuilt from keyword arguments, and its sent keys are known
(from its own ``to_pp_tensors`` dict literal of ``self.<attr>`` values, or the tensor fields PPA001's fix
would send); it imports the output when the observer's module does not bind it at run time.

An observer whose ``after_sample`` never returns an output (None on every path, the Protocol's stub, or no
definition: ``ClassInfo.no_output``) is not reported: no output tensors cross, and the helper returns before it
looks at the observer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import FROM_PP, POP_HELPER
from ppaux_lint.facts.findings import Finding
from ppaux_lint.index.model import OBSERVER
from ppaux_lint.rules import presence
from ppaux_lint.rules.base import AT_RUN_TIME, UNSAFE_FIX, CheckContext, Rule

if TYPE_CHECKING:
    from ppaux_lint.fixes.plan import Plan, Planner


def check(context: CheckContext) -> Iterator[Finding]:
    return presence.missing_findings(RULE, context.index, context.concrete(), FROM_PP, OBSERVER,
                                     noun="sampling observer", purpose="rebuilt on the first pipeline stage",
                                     helper=POP_HELPER, error=pp_errors.OBSERVER_NOT_PP)


def plan_fix(planner: Planner, finding: Finding) -> Plan | None:
    from ppaux_lint.fixes.plan import names_list
    from ppaux_lint.fixes.render import MethodSpec
    from ppaux_lint.fixes.syntax import annotates_returns

    fqn = finding.symbol
    info = planner.infos.get(fqn)
    if info is None or info.pair is None or planner.index.lookup(fqn, FROM_PP) is not None:
        return None
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
    if not constructor.required <= {param for param, _ in items}:
        return None  # a required argument that does not travel: cannot rebuild
    name, add_import = planner.name_in_scope(pair, module, path, planner.index.classes[fqn].qualname)
    if name is None:
        return None
    annotation = name if annotates_returns(node) else ""
    spec = MethodSpec(FROM_PP, ("self", "tensors"), "construct", tuple(items), constructor=name,
                      returns=annotation)
    description = f"Add `{FROM_PP}` rebuilding `{name}` from {names_list(k for k, _ in keys)}"
    if add_import is not None:
        description += f" (imports `{add_import[1]}` from `{add_import[0]}`)"
    return planner.base_plan(finding, fqn, node, safe=False, method=spec, add_import=add_import,
                             description=description)


RULE = Rule("PPA002", "observer-missing-from-pp-tensors",
            "A sampling observer has no `from_pp_tensors`, so it cannot rebuild its output on the first PP stage",
            check, UNSAFE_FIX, plan_fix, declares_untransported=True,
            passed_despite=AT_RUN_TIME)
