#!/usr/bin/env python3
"""What one file of a small project costs with a warm cache, against ``python -c "import click"`` (issue 16).

    python benchmarks/bench_one_file.py [--runs 15] [--workdir benchmarks/.work]

An editor saving a file and a pre-commit hook both start ``ppaux-lint check`` on a file or a few of a
project whose cache is warm, many times a day, so what they wait for is mostly start-up. Issue 16 states
the goal as a ratio to the cheapest process that could parse the same command line: an interpreter that
imports click and does nothing else. Absolute times on a shared 2-core machine drift by a factor of two
within minutes, so every round runs the baseline right before each case, each case's ratio is the median
of those per-pair ratios, and the table also shows the medians of the seconds.

The project is a copy of ``fixtures/sample_plugin`` (26 files: outputs, observers, mixins, re-exports,
and nine findings), made once in ``<workdir>/one_file`` as a git repository of its own (``git init``, as the
projects editors and hooks run in are; without one, the project root climb would reach this repository's
``pyproject.toml`` around the workdir) and checked once untimed to warm its cache. The cases, each with the
default output format, as an editor or a git hook runs them:

- *one clean file*: a file without findings (the common case; the goal row);
- *one file with findings*: a file with three findings, so the code frames are rendered;
- *pre-commit (3 staged files)*: three clean files passed together, as pre-commit passes what is staged.

Every run of a case must print exactly what its first run printed. Progress goes to stderr, the table to
stdout. The timing helpers are ``bench_speed.py``'s.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bench_speed import BenchError, Sample, as_installed, log, measure, run_timed, stop_launcher

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sample_plugin"
PROJECT_VERSION = 2  # bump when the copied project or its layout changes, so an old copy is replaced
CLEAN_FILE = "src/acme_observers/topk/outputs.py"
FINDINGS_FILE = "src/acme_observers/legacy/outputs.py"
STAGED = (CLEAN_FILE, "src/acme_observers/topk/observer.py", "src/acme_observers/entropy/observer.py")
CASES = {
    "one-file": ("ppaux-lint check, one clean file", (CLEAN_FILE,)),
    "findings": ("ppaux-lint check, one file with findings", (FINDINGS_FILE,)),
    "pre-commit": ("ppaux-lint check, 3 staged files", STAGED),
}
BASELINE = [sys.executable, "-c", "import click"]
BASELINE_LABEL = 'python -c "import click"'
RATIO_TARGETS = {"one-file": 2.0}  # issue 16, second row


def ppaux_lint() -> list[str]:
    """The console script that an editor or a hook runs, else ``python -m ppaux_lint``."""
    script = Path(sys.executable).with_name("ppaux-lint")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ppaux_lint"]


def small_project(workdir: Path) -> Path:
    """The sample plugin, copied once (without any cache it carries) and kept for later runs."""
    path = workdir / "one_file" / f"v{PROJECT_VERSION}-sample_plugin"
    if (path / "pyproject.toml").is_file():
        return path
    log(f"copying {FIXTURE.name} to {path}")
    staging = path.with_name(path.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(FIXTURE, staging, ignore=shutil.ignore_patterns(".ppaux_lint_cache", "__pycache__"))
    subprocess.run(["git", "init", "-q", str(staging)], check=True)
    staging.rename(path)
    return path


def bench(project: Path, runs: int) -> dict[str, list[tuple[Sample, Sample]]]:
    """``runs`` rounds; in each, the baseline runs right before every case. Returns (baseline, case) pairs."""
    command = ppaux_lint()
    log("warm-up (untimed): the baseline, and a check of the whole project, which fills the cache")
    run_timed(BASELINE, project)
    run_timed([*command, "check", "-q", "."], project)
    pairs: dict[str, list[tuple[Sample, Sample]]] = {name: [] for name in CASES}
    for number in range(1, runs + 1):
        log(f"round {number}/{runs}")
        for name, (_, files) in CASES.items():
            baseline = run_timed(BASELINE, project)
            pairs[name].append((baseline, run_timed([*command, "check", *files], project)))
    for name, samples in pairs.items():
        first = samples[0][1]
        if any((s.stdout, s.stderr, s.returncode) != (first.stdout, first.stderr, first.returncode)
               for _, s in samples):
            raise BenchError(f"{CASES[name][0]}: the runs did not all print the same")
    return pairs


def print_table(pairs: dict[str, list[tuple[Sample, Sample]]], runs: int) -> list[str]:
    """The table; returns the misses."""
    baseline = [b.seconds for samples in pairs.values() for b, _ in samples]
    print(f"\nmedians of {runs} interleaved runs; each case right after its own `{BASELINE_LABEL}` run")
    header = f"{'case':<42} {'median s':>9} {'min-max s':>11} {'x click':>8}  {'target':<8} result"
    print(header)
    print("-" * len(header))
    print(f"{BASELINE_LABEL:<42} {statistics.median(baseline):>9.3f} "
          f"{min(baseline):>5.2f}-{max(baseline):<5.2f} {1:>7.2f}x")
    misses = []
    for name, samples in pairs.items():
        seconds = [s.seconds for _, s in samples]
        ratio = statistics.median(s.seconds / b.seconds for b, s in samples)
        target = RATIO_TARGETS.get(name)
        result = "" if target is None else ("PASS" if ratio <= target else "MISS")
        if result == "MISS":
            misses.append(f"{CASES[name][0]}: {ratio:.2f}x (target <= {target:.1f}x)")
        print(f"{CASES[name][0]:<42} {statistics.median(seconds):>9.3f} {min(seconds):>5.2f}-{max(seconds):<5.2f} "
              f"{ratio:>7.2f}x  {'' if target is None else f'<= {target:.1f}x':<8} {result}")
    return misses


def describe_machine() -> str:
    from importlib.metadata import version

    from ppaux_lint import __version__

    return (f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"ppaux-lint {__version__}, click {version('click')}")


def _rounds(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a positive number of rounds, not {text!r}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=_rounds, default=15, help="interleaved rounds (default 15)")
    parser.add_argument("--workdir", type=Path, default=Path(__file__).resolve().parent / ".work",
                        help="where the project is copied (default benchmarks/.work)")
    args = parser.parse_args(argv)
    as_installed()  # the untimed warm-up run writes the bytecode
    project_parent = args.workdir.resolve()
    project_parent.mkdir(parents=True, exist_ok=True)
    measure([sys.executable, "-c", "pass"], project_parent)  # start the launcher while this process is small
    try:
        pairs = bench(small_project(project_parent), args.runs)
        print(f"$ python benchmarks/bench_one_file.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
        print(describe_machine())
        misses = print_table(pairs, args.runs)
    except BenchError as exc:
        print(f"bench_one_file: error: {exc}", file=sys.stderr)
        return 2
    finally:
        stop_launcher()
    print("\n" + ("Missed:\n" + "\n".join(f"  - {m}" for m in misses) if misses else "Issue 16's goal met."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
