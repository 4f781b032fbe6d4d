"""A JSON array of findings, one flat object each, for tools to consume."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from ppaux_lint.facts.findings import Finding
from ppaux_lint.report.paths import display_path, strict_json


def finding_record(f: Finding) -> dict:
    return {
        "code": f.code,
        "message": f.message,
        "path": display_path(f.path),
        "line": f.span.line,
        "column": f.span.column,
        "end_line": f.span.end_line,
        "end_column": f.span.end_column,
        "symbol": f.symbol,
        "severity": f.severity,
        "fix": None if f.fix is None else {"description": f.fix.description,
                                           "applicability": "safe" if f.fix.safe else "unsafe"},
    }


def render(findings: Sequence[Finding], out: TextIO) -> None:
    json.dump(strict_json([finding_record(f) for f in findings]), out, indent=2)
    out.write("\n")
