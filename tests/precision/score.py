"""Score the precision corpus: ``python tests/precision/score.py [PROJECT ...]`` prints Markdown for SCORES.md.

For each project (all, or those named) and each of its invocations: matched, missed and false positives
against EXPECTED.toml (a false positive on a class listed silent is counted apart from one on a class whose
expected finding has another code), and, for projects with ``[[unknown]]`` classes, how many of them
``inventory`` lists as unknown and the count of unknown classes ``check``'s summary line gives ("-": none).
Then the missed and false-positive findings by name. Runs the same in-process ``check`` as the test.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_precision import EXPECTATIONS, copy_project, listed_unknown, run_check, run_inventory, summary_unknown


def main(argv: list[str]) -> int:
    rows, details = [], []
    patch = pytest.MonkeyPatch()
    chosen = [e for e in EXPECTATIONS if not argv or e.name in argv]
    try:
        for expectation in chosen:
            for paths in expectation.invocations:
                with tempfile.TemporaryDirectory() as tmp:
                    root = copy_project(expectation, Path(tmp))
                    patch.chdir(root)
                    _, findings, _ = run_check(paths)
                    unknown = "-"
                    if expectation.unknown:
                        listed = listed_unknown(run_inventory(paths)) & set(expectation.unknown)
                        unknown = f"{len(listed)}/{len(expectation.unknown)} (summary: {summary_unknown(paths) or '-'})"
                got = {(f["code"], f["symbol"]) for f in findings}
                matched = expectation.findings & got
                missed = sorted(expectation.findings - got)
                extra = sorted(got - expectation.findings)
                flagged = {symbol for _, symbol in expectation.findings}
                on_silent = sum(1 for _, symbol in extra if symbol not in flagged)
                rows.append(f"| {expectation.name} | `check {' '.join(paths)}` | {len(expectation.findings)} | "
                            f"{len(expectation.silent)} | {len(matched)} | {len(missed)} | {len(extra)} "
                            f"({on_silent} on silent) | {unknown} |")
                for code, symbol in missed:
                    details.append(f"- {expectation.name} `{' '.join(paths)}`: missed {code} `{symbol}`")
                for code, symbol in extra:
                    where = ("declared silent" if symbol in expectation.silent else "not listed") if \
                        symbol not in flagged else "expected with another code"
                    if symbol in expectation.unknown:
                        where += ", unknown"
                    details.append(f"- {expectation.name} `{' '.join(paths)}`: false positive {code} `{symbol}` "
                                   f"({where})")
    finally:
        patch.undo()
    print("| project | invocation | planted bugs | silent classes | matched | missed | false positives | "
          "unknown listed |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("\n".join(details) if details else "(no differences)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
