"""PPA000: a file that could not be read is itself a finding, so it never silently escapes the check."""

from __future__ import annotations

from typing import Iterator

from ppaux_lint.checks.context import CheckContext
from ppaux_lint.findings import Finding


def unreadable_files(context: CheckContext) -> Iterator[Finding]:
    for summary in context.summaries:
        if summary.error is not None:
            yield Finding(
                code="PPA000",
                message=f"cannot check this file: {summary.error.reason}; its classes are neither "
                        f"checked nor used to resolve other files",
                path=summary.path,
                span=summary.error.span,
                symbol=summary.module,
            )
