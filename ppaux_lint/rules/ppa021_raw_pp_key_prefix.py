"""PPA021: code that reads or writes transport keys by their prefix, bypassing the helpers' validation.

The prefix may be written in the key, or come through a constant: one of this module, bound once to it
(the summary knows), or a helper module's own (``from sglang.srt.sampling.sampling_observer_pp import
_OUTPUT_PREFIX``), which only the index can tell from a name of the same spelling defined elsewhere. The
module that defines the helpers themselves is exempt: it is where the prefix belongs.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import ADD_HELPER, POP_HELPER, PREFIX_CONSTANTS
from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import FileSummary, PrefixUse
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    constants = {f"{module}.{name}" for module in context.index.protocols.helper_modules for name in PREFIX_CONSTANTS}
    for summary in context.summaries:
        if summary.defines_helpers:
            continue
        for use in summary.prefix_uses:
            origin = _origin(context, summary, use, constants)
            if origin is not None:
                yield RULE.finding(
                    f"transport key prefix {pp_errors.PP_KEY_PREFIX!r} used directly{origin} ({use.how}); this "
                    f"bypasses the validation in {ADD_HELPER}/{POP_HELPER}: use the helpers instead",
                    summary.path, use.span, summary.module)


def _origin(context: CheckContext, summary: FileSummary, use: PrefixUse, constants: set[str]) -> str | None:
    """How the prefix reaches the key, as the message says it; None when it is not certainly the prefix."""
    if use.constant:
        target = context.index.resolve(summary.module, use.constant, use.scope) if summary.module else None
        return f" through `{use.constant}` ({target})" if target in constants else None
    return f" through `{use.through}`" if use.through else ""


RULE = Rule("PPA021", "raw-pp-key-prefix",
            "Code reads or writes transport keys by their prefix, bypassing the helpers", check)
