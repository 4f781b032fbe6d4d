"""PPA018: a class that inherits a PP Protocol explicitly but never overrides its method keeps the stub.

The ``isinstance`` check passes, and the stub's ``...`` body returns None, which the helpers reject.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.index.model import OBSERVER, OUTPUT
from ppaux_lint.rules import presence
from ppaux_lint.rules.base import AT_RUN_TIME, CheckContext, Rule

_SIDES = ((TO_PP, OUTPUT, pp_errors.EMPTY_OUTPUT), (FROM_PP, OBSERVER, pp_errors.NOT_RECONSTRUCTED))


def check(context: CheckContext) -> Iterator[Finding]:
    sending = {info.fqn for info in context.sending()}
    for info in context.concrete():
        for method, role, error in _SIDES:
            if method == TO_PP and info.fqn not in sending:
                continue  # never asked for it: a forward-only output, a part whose container reads its fields
            found = presence.absence(context.index, info, method, role)
            if found is not None and found.kind == presence.STUB:
                yield RULE.finding(
                    f"`{info.fqn}` inherits `{found.owner}` but never overrides `{method}`: the isinstance check "
                    f"passes, the Protocol's stub returns None, and the helper raises {pp_errors.raised(error)}",
                    info.path, info.summary.span, info.fqn)


RULE = Rule("PPA018", "pp-protocol-stub-inherited",
            "A class inherits a PP Protocol explicitly but never overrides its method, keeping the stub that "
            "returns None", check,
            passed_despite=AT_RUN_TIME)
