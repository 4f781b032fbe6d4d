#!/usr/bin/env python3
"""What a class costs ``verify`` on real plugin projects, for one checkout of ppaux-lint against another.

    python benchmarks/bench_verify_classes.py [--source DIR ...] [--runs 5] [--workdir benchmarks/.work/classes]

Issue 24 has every class judged in a process of its own (a fork of the worker, which has imported torch),
killed with everything it started once its row is out, where before one worker judged class after class.
This measures what that costs. Each project (the bundled ``fixtures/`` and the six of
``tests/runtime/driven_corpus``, copied into the workdir so that no run writes into the repository) is
verified with ``--device cpu --output-format json`` by each ``--source`` (a checkout's root, put first on
``PYTHONPATH``; default: this one), as subprocesses, in interleaved rounds, wall clock. Per project it
prints the rows, the round trips they made, and each source's median wall time; then, for each source
against the first, the least-squares line through the projects' differences: what the source adds once
a run (the worker's start) and per round trip (a class's process, its start and its end). To compare
before and after: ``--source /path/to/old --source .``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECTS = [REPO / "fixtures" / "sample_plugin", REPO / "fixtures" / "clean_plugin",
            *sorted(p for p in (REPO / "tests" / "runtime" / "driven_corpus").iterdir()
                   if p.is_dir() and not p.name.startswith("."))]


def copy_projects(workdir: Path) -> list[Path]:
    """Fresh copies of the projects, so that every source starts from the same files and no cache."""
    copies = []
    for project in PROJECTS:
        target = workdir / project.name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(project, target, ignore=shutil.ignore_patterns(".ppaux_lint_cache", "__pycache__"))
        copies.append(target)
    return copies


def verify(source: Path, project: Path) -> tuple[float, list[dict]]:
    """One run: wall seconds and the rows."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ppaux_lint", "verify", ".", "--device", "cpu", "--output-format",
                           "json"], cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{source}: verify {project.name} exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", type=Path, help="a checkout's root (repeatable)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=REPO / "benchmarks" / ".work" / "classes")
    args = parser.parse_args()
    sources = [s.resolve() for s in args.source or [REPO]]
    projects = copy_projects(args.workdir)
    walls: dict[tuple[Path, Path], list[float]] = {}
    shape: dict[Path, tuple[int, int]] = {}
    for source in sources:  # a warm-up of each, so that no source pays for a cold page cache
        verify(source, projects[0])
    for round_ in range(args.runs):
        print(f"round {round_ + 1} of {args.runs}", file=sys.stderr)
        for project in projects:
            for source in sources:
                wall, rows = verify(source, project)
                walls.setdefault((source, project), []).append(wall)
                # Rows that share a round trip carry its seconds each; a row skipped before any run has none.
                shape[project] = (len(rows), len({r["seconds"] for r in rows if r["seconds"]}))
    median = {key: statistics.median(spent) for key, spent in walls.items()}
    print(f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"median wall seconds of {args.runs} interleaved runs")
    for i, source in enumerate(sources):
        print(f"  source {i + 1}: {source}")
    print(f"{'project':<20} {'rows':>5} {'trips':>5}" + "".join(f" {'source ' + str(i + 1):>9}" for i in
                                                              range(len(sources))))
    for project in projects:
        rows, trips = shape[project]
        print(f"{project.name:<20} {rows:5d} {trips:5d}" + "".join(f" {median[s, project]:9.2f}" for s in sources))
    for i, source in enumerate(sources[1:], start=2):
        extra = [median[source, p] - median[sources[0], p] for p in projects]
        fixed, per_trip = _line([shape[p][1] for p in projects], extra)
        print(f"source {i} against source 1: {fixed:+.2f} s a run {per_trip * 1e3:+.1f} ms a round trip "
              f"(least squares over the {len(projects)} projects)")


def _line(xs: list[int], ys: list[float]) -> tuple[float, float]:
    """Intercept and slope of the least-squares line through the points."""
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum((x - mean_x) ** 2 for x in xs)
    return mean_y - slope * mean_x, slope


if __name__ == "__main__":
    main()
