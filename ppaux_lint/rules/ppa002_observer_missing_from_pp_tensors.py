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

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import FROM_PP, POP_HELPER
from ppaux_lint.facts.findings import Finding
from ppaux_lint.index.model import OBSERVER
from ppaux_lint.rules import presence
from ppaux_lint.rules.base import AT_RUN_TIME, UNSAFE_FIX, CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    return presence.missing_findings(RULE, context, context.concrete(), FROM_PP, OBSERVER,
                                     noun="sampling observer", purpose="rebuilt on the first pipeline stage",
                                     helper=POP_HELPER, error=pp_errors.OBSERVER_NOT_PP)


RULE = Rule("PPA002", "observer-missing-from-pp-tensors",
            "A sampling observer has no `from_pp_tensors`, so it cannot rebuild its output on the first PP stage",
            check, UNSAFE_FIX, fix_kind="add-from-pp-tensors", declares_untransported=True,
            passed_despite=AT_RUN_TIME)
