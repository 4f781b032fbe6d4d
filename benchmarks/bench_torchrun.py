#!/usr/bin/env python3
"""What a class costs under torchrun (``--standalone --nproc-per-node 2``, ``--transport dist``) against
``--transport local``, on generated plugin projects.

    python benchmarks/bench_torchrun.py [--classes 4,32] [--runs 3] [--workdir benchmarks/.work/torchrun]

Each project holds N output classes, each with its observer (2 float tensors of 4x256, a synthesised example).
Every round runs verify on each project with each mode, interleaved, so that the machine's drift hits all
alike; the table shows medians. The cost per class is the slope of the wall time between the smallest and the
largest project, which cancels what a run pays once (torchrun's agent, each rank's imports and static pass,
the workers' start); the median row time, as the report gives it, is printed beside it. Needs torch; runs on
CPU with gloo, all on 127.0.0.1.
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
MODES = {
    "local": [sys.executable, "-m", "ppaux_lint", "verify", "--transport", "local"],
    "torchrun 2 ranks": [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                         "-m", "ppaux_lint", "verify", "--transport", "dist"],
}
CLASS = '''
@dataclass
class Output{i}:
    scores: torch.Tensor
    ids: torch.Tensor

    @classmethod
    def ppaux_example(cls, device):
        return cls(torch.rand(4, 256, device=device), torch.rand(4, 256, device=device))

    def copy_to_host(self, copy_tensor):
        return (copy_tensor(self.scores), copy_tensor(self.ids))

    def to_pp_tensors(self):
        return {{"scores": self.scores, "ids": self.ids}}


class Observer{i}:
    def is_active(self, sampling_info):
        return True
{before}
    def after_sample(self, state, token_ids) -> Output{i}:
        return Output{i}(state, token_ids)

    def from_pp_tensors(self, tensors) -> Output{i}:
        return Output{i}(tensors["scores"], tensors["ids"])
'''


BEFORE = '''
    def before_grammar(self, logits, sampling_info):
        return logits.float()[:, :256].contiguous()
'''


def make_project(root: Path, classes: int, driven: bool = False) -> Path:
    """N output/observer pairs; with ``driven`` the observers have ``before_grammar``, so that verify drives
    them (three batches) and sends what they return beside each output's own example."""
    project = root / f"plugin-{classes}{'-driven' if driven else ''}"
    package = project / "benchplug"
    package.mkdir(parents=True, exist_ok=True)
    (project / "pyproject.toml").write_text('[project]\nname = "benchplug"\nversion = "0"\n')
    (package / "__init__.py").write_text("")
    body = "\n".join(textwrap.dedent(CLASS).format(i=i, before=BEFORE if driven else "") for i in range(classes))
    (package / "outputs.py").write_text(f"from dataclasses import dataclass\n\nimport torch\n{body}")
    return project


def run(mode: str, project: Path) -> tuple[float, list[dict]]:
    """Wall seconds of one verify run, and its rows; a run that does not pass is an error."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1"}
    command = [*MODES[mode], "--device", "cpu", "--output-format", "json", "."]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{mode} on {project.name} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return seconds, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", default="4,32", help="project sizes, in output classes (default: 4,32)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=REPO / "benchmarks" / ".work" / "torchrun")
    args = parser.parse_args()
    sizes = sorted({int(n) for n in args.classes.split(",")})
    if len(sizes) < 2:
        parser.error("--classes needs two sizes or more, to take the slope between them")
    projects = {n: make_project(args.workdir, n) for n in sizes}
    walls: dict[tuple[str, int], list[float]] = {(m, n): [] for m in MODES for n in sizes}
    rows: dict[str, list[float]] = {m: [] for m in MODES}
    for round_ in range(1, args.runs + 1):
        for n in sizes:
            for mode in MODES:
                seconds, results = run(mode, projects[n])
                walls[mode, n].append(seconds)
                rows[mode] += [r["seconds"] for r in results if r["symbol"].rpartition(".")[2].startswith("Output")]
                print(f"round {round_}: {mode:<17} {n:>3} classes {seconds:7.2f} s", file=sys.stderr, flush=True)
    import torch

    print(f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"torch {torch.__version__}")
    print(f"medians of {args.runs} interleaved runs; each class: an output and its observer, "
          "2 tensors of 4x256 float32")
    low, high = sizes[0], sizes[-1]
    header = (f"{'mode':<17}" + "".join(f"{f'{n} classes s':>14}" for n in sizes)
              + f"{'per class ms':>14}{'fixed s':>9}{'row median ms':>15}")
    print(header)
    print("-" * len(header))
    slopes = {}
    for mode in MODES:
        medians = {n: statistics.median(walls[mode, n]) for n in sizes}
        slopes[mode] = (medians[high] - medians[low]) / (high - low)
        fixed = medians[low] - slopes[mode] * low
        print(f"{mode:<17}" + "".join(f"{medians[n]:14.2f}" for n in sizes)
              + f"{slopes[mode] * 1e3:14.1f}{fixed:9.2f}{statistics.median(rows[mode]) * 1e3:15.1f}")
    local, launched = slopes["local"], slopes["torchrun 2 ranks"]
    if local > 0:
        print(f"torchrun costs {launched / local:.1f}x local per class, {(launched - local) * 1e3:+.0f} ms a class")


if __name__ == "__main__":
    main()
