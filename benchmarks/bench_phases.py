"""Where the time of one cold ``check`` goes, phase by phase, for each kind and size of tree (issue 36: "profile
before changing anything, and write down where the time goes").

    python benchmarks/bench_phases.py [--runs 3] [--synthetic 1000,10000] [--skip-sglang] [--skip-monorepo]
                                      [--workdir benchmarks/.work]

Each run is a fresh process (``python -c``) that imports the command line, then checks the tree with the cache
cleaned first, wrapping the engine's stages in timers: start-up (the interpreter and its site hooks, measured
as ``python -c pass``), imports (``ppaux_lint.cli.main`` and what the run imports on its way), discovery, the
prefilter's scans (reading and searching; in workers for large trees), summarizing (parsing in the workers,
which this process waits for, and the cache's entries), the index and the rules, fix planning, and rendering.
Times are wall seconds of the main process, medians over ``--runs``; the workers' own CPU shows as the wait
in the scan and summarize rows. The trees are the ones ``bench_speed.py`` and ``bench_monorepo.py`` generate
(or download) into the same workdir. ruff's time on the same tree is measured in the same round.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_monorepo import monorepo
from bench_speed import as_installed, clean_cache, fetch_distribution, log, ruff_command, synthetic_project, unpack_tree

# The stages the child times: (module, attribute, phase), each attribute a function or a ``Class.method`` that the
# run calls. tests/test_benchmarks.py holds each name to the code, so a renamed stage fails there, not here.
PHASES = [
    ("ppaux_lint.project.loading", "discover_files", "discovery"),
    ("ppaux_lint.cache.store", "SummaryStore.scan", "scan"),
    ("ppaux_lint.cache.store", "SummaryStore.summarize", "summarize"),
    ("ppaux_lint.check.engine", "_index", "index"),
    ("ppaux_lint.index.project_index", "ProjectIndex.infos", "index"),
    ("ppaux_lint.check.engine", "run_checks", "rules"),
    ("ppaux_lint.cli.checking", "load_project", "project"),
    ("ppaux_lint.cache.owner", "ProjectCache.replay", "cache"),
    ("ppaux_lint.cache.owner", "ProjectCache.stat_inputs", "cache"),
    ("ppaux_lint.cache.owner", "ProjectCache.record", "cache"),
    ("ppaux_lint.cache.owner", "ProjectCache.finish", "cache"),
    ("ppaux_lint.cache.store", "SummaryStore.close", "workers' exit"),
    ("ppaux_lint.cli.checking", "with_fixes", "fixes"),
    ("ppaux_lint.cli.check_command", "_report", "report"),
]

# Run in the child: the stages it times, each (module, attribute) wrapped so nested calls are counted once.
_CHILD = r"""
import json, sys, time
began = time.perf_counter()
from ppaux_lint.cli import main as cli_main
imported = time.perf_counter() - began
import importlib
totals = {}
active = set()
def wrap(module_name, attribute, phase):
    module = importlib.import_module(module_name)
    owner, name = module, attribute
    if "." in attribute:
        owner_name, name = attribute.split(".")
        owner = getattr(module, owner_name)
    original = getattr(owner, name)
    def timed(*args, **kwargs):
        if phase in active:
            return original(*args, **kwargs)
        active.add(phase)
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            active.discard(phase)
            totals[phase] = totals.get(phase, 0.0) + time.perf_counter() - start
    setattr(owner, name, timed)
PHASES = json.loads(sys.argv[2])
for module_name, attribute, phase in PHASES:
    wrap(module_name, attribute, phase)
import ppaux_lint.cli.checking as checking
checking.discover_files = sys.modules["ppaux_lint.project.loading"].discover_files
import io, contextlib
out = io.StringIO()
start = time.perf_counter()
with contextlib.redirect_stdout(out):
    try:
        cli_main.main(["check", "-q", sys.argv[1]])
    except SystemExit:
        pass
total = time.perf_counter() - start
print(json.dumps({"imports": imported, "run": total, **totals}), file=sys.stderr)
"""

PHASE_ORDER = ("start-up", "imports", "project", "cache", "discovery", "scan", "summarize", "index", "rules", "fixes",
               "workers' exit", "report", "other")


def startup() -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - began


def phases(tree: Path) -> dict[str, float]:
    clean_cache(tree)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, str(tree), json.dumps(PHASES)], capture_output=True,
                          text=True, check=False)
    wall = time.perf_counter() - began
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    try:
        timed = json.loads(last)
    except ValueError:
        raise SystemExit(f"the timed run failed:\n{done.stderr}") from None
    timed["wall"] = wall
    return timed


def ruff_time(tree: Path) -> float:
    began = time.perf_counter()
    subprocess.run([*ruff_command(), "check", "--no-cache", "--select", "F", str(tree)], capture_output=True,
                   check=False)
    return time.perf_counter() - began


def table(name: str, rounds: list[dict[str, float]], ruff: list[float], start: float) -> str:
    median = {key: statistics.median(r.get(key, 0.0) for r in rounds) for key in {k for r in rounds for k in r}}
    wall = median["wall"]
    parts = {"start-up": start, "imports": median["imports"]}
    for phase in PHASE_ORDER[2:-1]:
        parts[phase] = median.get(phase, 0.0)
    parts["other"] = max(0.0, wall - sum(parts.values()))
    lines = [f"{name}: cold check {wall:.3f} s, ruff {statistics.median(ruff):.3f} s "
             f"({wall / statistics.median(ruff):.2f}x); medians of {len(rounds)} runs",
             f"  {'phase':<14}{'seconds':>9}{'share':>8}"]
    for phase in PHASE_ORDER:
        lines.append(f"  {phase:<14}{parts[phase]:>9.3f}{parts[phase] / wall:>8.0%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--synthetic", default="1000,10000", help="sizes of synthetic projects (comma-separated)")
    parser.add_argument("--skip-sglang", action="store_true")
    parser.add_argument("--skip-monorepo", action="store_true")
    parser.add_argument("--workdir", type=Path, default=Path(__file__).resolve().parent / ".work")
    args = parser.parse_args(argv)
    trees: list[tuple[str, Path]] = []
    for size in filter(None, args.synthetic.split(",")):
        trees.append((f"synthetic {size}", synthetic_project(args.workdir, int(size)).path))
    if not args.skip_monorepo:
        trees.append(("monorepo 10000", monorepo(args.workdir, 10_000)[0]))
    if not args.skip_sglang:
        trees.append(("SGLang 0.5.23", unpack_tree(fetch_distribution(args.workdir), args.workdir)))
    as_installed()
    if trees:
        phases(trees[0][1])  # untimed: writes the bytecode before any run is timed
    for name, tree in trees:
        log(f"{name}: {args.runs} rounds")
        rounds, ruff, starts = [], [], []
        for _ in range(args.runs):
            ruff.append(ruff_time(tree))
            starts.append(startup())
            rounds.append(phases(tree))
        print(table(name, rounds, ruff, statistics.median(starts)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
