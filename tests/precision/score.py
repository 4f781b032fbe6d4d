"""Score the precision corpus: ``python tests/precision/score.py`` prints a Markdown table for SCORES.md.

For each project and each of its invocations: matched, missed and false positives against EXPECTED.toml,
then the missed and false-positive findings by name. Runs the same in-process ``check`` as the test.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_precision import EXPECTATIONS, copy_project, run_check


def main() -> int:
    rows, details = [], []
    patch = pytest.MonkeyPatch()
    try:
        for expectation in EXPECTATIONS:
            for paths in expectation.invocations:
                with tempfile.TemporaryDirectory() as tmp:
                    root = copy_project(expectation, Path(tmp))
                    patch.chdir(root)
                    _, findings, _ = run_check(paths)
                got = {(f["code"], f["symbol"]) for f in findings}
                matched = expectation.findings & got
                missed = sorted(expectation.findings - got)
                extra = sorted(got - expectation.findings)
                rows.append(f"| {expectation.name} | `check {' '.join(paths)}` | {len(expectation.findings)} | "
                            f"{len(expectation.silent)} | {len(matched)} | {len(missed)} | {len(extra)} |")
                for code, symbol in missed:
                    details.append(f"- {expectation.name} `{' '.join(paths)}`: missed {code} `{symbol}`")
                for code, symbol in extra:
                    where = "declared silent" if symbol in expectation.silent else "not listed"
                    details.append(f"- {expectation.name} `{' '.join(paths)}`: false positive {code} `{symbol}` "
                                   f"({where})")
    finally:
        patch.undo()
    print("| project | invocation | planted bugs | silent classes | matched | missed | false positives |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("\n".join(details) if details else "(no differences)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
