"""The rules, one small function per family, all reading the project index and nothing else.

Each check yields findings for any file; the engine keeps those for the files
asked about and applies noqa, select/ignore and per-file-ignores, so no check
needs to know about any of that.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ppaux_lint.checks import calls, contract, pairing, parse, presence
from ppaux_lint.checks.context import CheckContext
from ppaux_lint.findings import Finding

Check = Callable[[CheckContext], Iterable[Finding]]

CHECKS: tuple[Check, ...] = (
    parse.unreadable_files,
    presence.missing_transport_methods,
    contract.to_pp_tensors_contract,
    contract.from_pp_tensors_contract,
    contract.method_shapes,
    pairing.key_mismatches,
    calls.helper_arguments,
    calls.raw_prefix_uses,
)


def run_checks(context: CheckContext) -> list[Finding]:
    findings: list[Finding] = []
    for check in CHECKS:
        findings.extend(check(context))
    return findings
