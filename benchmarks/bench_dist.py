#!/usr/bin/env python3
"""What ``verify --transport dist`` costs against ``--transport local`` on one machine (issue 16's third row),
with and without ``--explore``.

    python benchmarks/bench_dist.py [--pairs 3] [--runs 5] [--explore 50] [--driven] [--workdir DIR]

The project is ``bench_torchrun.py``'s: N outputs, each with its observer (so ``--pairs 3`` is 6 classes),
two float tensors of 4x256 each. Each round runs the four commands in turn (local, dist, then both with
``--explore``), so that the machine's drift hits all alike; the table shows the median wall time of each
and the median of the per-round ratios dist/local. The cost of an explored example is what exploring added
to a run, over the examples explored (two edge batches and N drawn, per round trip). CPU and gloo only.
With ``--driven`` the observers have ``before_grammar``, so each class sends three driven examples beside
its own, and ``--explore`` draws drives of the observer instead of variants of the output.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_torchrun import make_project

REPO = Path(__file__).resolve().parents[1]
VERIFY = [sys.executable, "-m", "ppaux_lint", "verify", "--device", "cpu", "--output-format", "json", "."]


def run(project: Path, transport: str, explore: int) -> float:
    """Wall seconds of one verify run; a run that does not pass stops the benchmark."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    command = [*VERIFY, "--transport", transport, *(["--explore", str(explore), "--seed", "7"] if explore else [])]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[3:])} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3, help="output/observer pairs (default: 3, 6 classes)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--explore", type=int, default=50, help="examples per class in the explored rows")
    parser.add_argument("--workdir", type=Path, default=REPO / "benchmarks" / ".work" / "dist")
    parser.add_argument("--driven", action="store_true",
                        help="observers verify can drive: three driven examples a class beside its own")
    args = parser.parse_args()
    project = make_project(args.workdir, args.pairs, args.driven)
    cases = [(t, n) for n in (0, args.explore) for t in ("local", "dist")]
    walls: dict[tuple[str, int], list[float]] = {case: [] for case in cases}
    for round_ in range(1, args.runs + 1):
        for transport, explore in cases:
            walls[transport, explore].append(run(project, transport, explore))
            print(f"round {round_}: {transport:<5} explore {explore:>3} {walls[transport, explore][-1]:6.2f} s",
                  file=sys.stderr, flush=True)
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"{2 * args.pairs} classes ({args.pairs} round trips), medians of {args.runs} interleaved runs")
    header = f"{'case':<24}{'local s':>9}{'dist s':>9}{'dist/local':>12}"
    print(header)
    print("-" * len(header))
    for explore in (0, args.explore):
        local, dist = walls["local", explore], walls["dist", explore]
        ratio = statistics.median(d / loc for d, loc in zip(dist, local, strict=True))
        name = f"--explore {explore}" if explore else ("driven + own a class" if args.driven else
                                                       "one example a class")
        print(f"{name:<24}{statistics.median(local):9.2f}{statistics.median(dist):9.2f}{ratio:11.2f}x")
    if args.explore:
        examples = args.pairs * (args.explore + 2)
        for transport in ("local", "dist"):
            added = statistics.median(walls[transport, args.explore]) - statistics.median(walls[transport, 0])
            print(f"per explored example, {transport}: {added / examples * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
