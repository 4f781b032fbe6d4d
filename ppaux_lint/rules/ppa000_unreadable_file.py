"""PPA000: a file that could not be read is itself a finding, so it never silently escapes the check."""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.facts.findings import Finding
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    for summary in context.summaries:
        if summary.error is not None:
            yield RULE.finding(
                f"cannot check this file: {summary.error.reason}; its classes are neither checked nor used to "
                f"resolve other files",
                summary.path, summary.error.span, summary.module)


RULE = Rule("PPA000", "unreadable-file", "A file cannot be decoded or parsed, so it was not checked", check)
