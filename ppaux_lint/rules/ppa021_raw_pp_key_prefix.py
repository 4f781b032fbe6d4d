"""PPA021: code that reads or writes transport keys by their prefix, bypassing the helpers' validation.

The module that defines the helpers themselves is exempt: it is where the prefix belongs.
"""

from __future__ import annotations

from typing import Iterator

from ppaux_lint import pp_errors
from ppaux_lint.findings import Finding
from ppaux_lint.names import ADD_HELPER, POP_HELPER
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    for summary in context.summaries:
        if summary.defines_helpers:
            continue
        for use in summary.prefix_uses:
            yield RULE.finding(
                f"transport key prefix {pp_errors.PP_KEY_PREFIX!r} used directly ({use.how}); this bypasses the "
                f"validation in {ADD_HELPER}/{POP_HELPER}: use the helpers instead",
                summary.path, use.span, summary.module)


RULE = Rule("PPA021", "raw-pp-key-prefix",
            "Code reads or writes transport keys by their prefix, bypassing the helpers", check)
