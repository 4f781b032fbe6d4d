#!/usr/bin/env python3
"""What driving the observers costs against building examples from annotations (issue 23).

    python benchmarks/bench_drive.py [--classes 4,32] [--runs 3] [--workdir benchmarks/.work/drive]
                                     [--source DIR ...]

Two generated projects per size, alike but for one method: in *driven* each observer has the
``before_grammar`` SGLang calls, so verify drives it (``is_active``, ``before_grammar``, ``after_sample``) at
its default drives (``drive.default_drives``: five since issue 34) and round-trips each output; in
*annotations* the observers lack it, so every drive stops at that hook and verify falls back to one example
built from the output's annotations. Each output is a top-k (k=8) of the logits, two tensors. The projects are
verified with ``--transport local`` in interleaved rounds, as subprocesses, wall clock; the cost per class is
the slope between the smallest and the largest project, which cancels what a run pays once, and *row median*
is the median of the output rows' own times. With ``--source`` (a checkout's root, repeatable; default: this
one) each checkout runs every project in the same interleaved rounds, and gets a table of its own: to compare
before and after a change of the drives, ``--source /path/to/old --source .``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VERIFY = [sys.executable, "-m", "ppaux_lint", "verify", "--device", "cpu", "--output-format", "json", "."]
MODES = ("driven", "annotations")
CLASS = '''
@dataclass
class Output{i}:
    values: torch.Tensor
    indices: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return (copy_tensor(self.values), copy_tensor(self.indices))

    def to_pp_tensors(self):
        return {{"values": self.values, "indices": self.indices}}


class Observer{i}:
    def is_active(self, sampling_info):
        return True
{before}
    def after_sample(self, state, token_ids) -> Output{i}:
        top = state.topk(8, dim=-1)
        return Output{i}(top.values, top.indices)

    def from_pp_tensors(self, tensors) -> Output{i}:
        return Output{i}(tensors["values"], tensors["indices"])
'''
BEFORE = '''
    def before_grammar(self, logits, sampling_info):
        return torch.log_softmax(logits.float(), dim=-1)
'''


def make_project(root: Path, mode: str, classes: int) -> Path:
    project = root / f"{mode}-{classes}"
    package = project / "drivebench"
    package.mkdir(parents=True, exist_ok=True)
    (project / "pyproject.toml").write_text('[project]\nname = "drivebench"\nversion = "0"\n')
    (package / "__init__.py").write_text("")
    before = BEFORE if mode == "driven" else ""
    body = "\n".join(textwrap.dedent(CLASS).format(i=i, before=before) for i in range(classes))
    (package / "outputs.py").write_text(f"from dataclasses import dataclass\n\nimport torch\n{body}")
    return project


def run(project: Path, mode: str, source: Path = REPO) -> tuple[float, list[dict]]:
    """Wall seconds of one verify run by ``source``'s ppaux-lint and its rows; a run that does not pass, or does
    not make its examples the way its mode says, stops the benchmark."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    done = subprocess.run(VERIFY, cwd=project, env=env, capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{project.name} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    rows = json.loads(done.stdout)
    kinds = {row["example"] for row in rows}
    if kinds != {mode}:
        sys.exit(f"{project.name}: examples made as {sorted(kinds)}, not {mode}")
    return seconds, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", default="4,32", help="project sizes, in output classes (default: 4,32)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=REPO / "benchmarks" / ".work" / "drive")
    parser.add_argument("--source", action="append", type=Path, help="a checkout's root (repeatable)")
    args = parser.parse_args()
    sources = [path.resolve() for path in args.source or [REPO]]
    sizes = sorted({int(n) for n in args.classes.split(",")})
    if len(sizes) < 2:
        parser.error("--classes needs two sizes or more, to take the slope between them")
    projects = {(m, n): make_project(args.workdir, m, n) for m in MODES for n in sizes}
    walls: dict[tuple[Path, str, int], list[float]] = {(s, m, n): [] for s in sources for m, n in projects}
    rows: dict[tuple[Path, str], list[float]] = {(s, m): [] for s in sources for m in MODES}
    for _ in range(args.runs):
        for n in sizes:
            for mode in MODES:
                for source in sources:
                    seconds, results = run(projects[mode, n], mode, source)
                    walls[source, mode, n].append(seconds)
                    rows[source, mode] += [r["seconds"] for r in results
                                           if r["symbol"].split(".")[-1].startswith("Output")]
    import torch

    print(f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"torch {torch.__version__}")
    print(f"medians of {args.runs} interleaved runs; each class: an output (top-8 of the logits) and its observer")
    small, large = sizes[0], sizes[-1]
    for source in sources:
        if len(sources) > 1:
            print(f"\n{source}")
        header = f"{'examples':<14}{small:>5} classes s{large:>5} classes s  per class ms  row median ms"
        print(header + "\n" + "-" * len(header))
        slopes = {}
        for mode in MODES:
            low = statistics.median(walls[source, mode, small])
            high = statistics.median(walls[source, mode, large])
            slopes[mode] = (high - low) / (large - small) * 1000
            print(f"{mode:<14}{low:>15.2f}{high:>15.2f}{slopes[mode]:>14.1f}"
                  f"{statistics.median(rows[source, mode]) * 1000:>15.1f}")
        ratio = statistics.median(rows[source, "driven"]) / statistics.median(rows[source, "annotations"])
        print(f"driving costs {slopes['driven'] - slopes['annotations']:+.1f} ms a class over annotation examples; "
              f"row medians {ratio:.2f}x")


if __name__ == "__main__":
    main()
