#!/usr/bin/env python3
"""How ``ppaux-lint check`` grows with the depth and width of class hierarchies.

    python benchmarks/bench_chains.py [--shapes chain,modules,...] [--sizes 250,500,1000,2000] [--runs 1]
                                      [--budget 60] [--deep 10000] [--save DIR] [--workdir benchmarks/.work]

A hostile (or just large) project with one long single-inheritance chain made ``check`` quadratic in the
chain's length: every class walked its whole MRO for each question (lookup, the path to the protocol root,
the unresolved bases, the ``__init_subclass__`` hooks), so 1,000 classes took 4.6 s and 2,000 took 16 s.
This script generates one tree per shape and size (seeded by nothing: the shapes are regular; kept in
``<workdir>/chains``, regenerated only when the generator version changes), times ``check --no-cache`` on
each, and prints the growth exponent of the time between the smallest and the largest size, and between
the two largest (the start-up cost, the same at every size, flattens the first). A size is run only while
the one before it took less than ``--budget / 4`` seconds, so a quadratic checkout stops early instead of
taking minutes.

The shapes (``n`` classes each; the output base is SGLang's ``DeviceAuxiliaryOutput``, imported by name):

- ``chain``: ``class C{i}(C{i-1})`` in one module, the root subclassing the output base, ``to_pp_tensors``
  defined nowhere (every class a PPA001 candidate);
- ``modules``: the same chain with one class a module, each importing the one above (n modules);
- ``root``: ``modules``, with ``to_pp_tensors`` defined at the root only (every lookup walks to the end);
- ``midway``: ``modules``, with ``to_pp_tensors`` defined at the middle class only;
- ``observers``: a chain of ``SamplingObserver`` subclasses (one a module) lacking ``from_pp_tensors``;
- ``structural``: a chain in one module whose root has no protocol base but defines ``copy_to_host``
  (each class recognised structurally, by a lookup along its MRO);
- ``built``: ``chain`` with ``to_pp_tensors`` at the root, and a function that constructs every class (so every
  class may have instances: each is judged, none is "a base only");
- ``wide``: one output base and n - 1 direct subclasses, 50 a module;
- ``diamond``: n / 3 stacked diamonds in one module (``L{i}(D{i-1})``, ``R{i}(D{i-1})``, ``D{i}(L{i}, R{i})``),
  where C3's merge, not a plain copy of the base's MRO, gives each class's order.

``--deep N`` also checks a ``chain`` of N classes once (10,000 by default), stopped after ``--deep-limit``
seconds (300): deeper than Python's default recursion limit, so any recursive walk of the hierarchy shows up
as a crash or a lost finding.

``--save DIR`` writes each tree's ``check --output-format json`` and ``inventory --output-format json`` to
``DIR/<shape>-n<N>.{check,inventory}.json`` (the inventory untimed), so two checkouts' outputs can be
compared byte for byte (``PYTHONPATH=<checkout>`` picks the checkout).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bench_speed import (
    BenchError,
    as_installed,
    cached_project,
    findings_of,
    log,
    measure,
    ppaux,
    ppaux_check,
    run_timed,
    stop_launcher,
)

GENERATOR_VERSION = 1  # bump when a generated tree changes, so cached ones are regenerated
SHAPES = ("chain", "modules", "root", "midway", "observers", "structural", "built", "wide", "diamond")
PER_MODULE = 50  # classes a module in ``wide``
OUTPUT_IMPORT = "from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n"
OBSERVER_IMPORT = "from sglang.srt.sampling.sampling_observer import SamplingObserver\n"
TO_PP = ("    def to_pp_tensors(self):\n"
         "        return {\"token_ids\": self.token_ids}\n")
COPY_TO_HOST = ("    def copy_to_host(self, copy_tensor):\n"
                "        return self\n")


def _one_module_chain(n: int, root_base: str, root_body: str, opening: str) -> dict[str, str]:
    lines = [opening, "\n"]
    body = root_body or "    pass\n"
    lines.append(f"\nclass C0000({root_base}):\n{body}")
    lines.extend(f"\nclass C{i:04d}(C{i - 1:04d}):\n    pass\n" for i in range(1, n))
    return {"pkg/__init__.py": "", "pkg/chain.py": "".join(lines)}


def _module_chain(n: int, root_base: str, opening: str, body_at: int | None, body: str) -> dict[str, str]:
    files = {"pkg/__init__.py": ""}
    for i in range(n):
        here = body if i == body_at else "    pass\n"
        if i == 0:
            files[f"pkg/m{i:05d}.py"] = f"{opening}\n\nclass C{i:05d}({root_base}):\n{here}"
        else:
            files[f"pkg/m{i:05d}.py"] = (f"from pkg.m{i - 1:05d} import C{i - 1:05d}\n\n\n"
                                         f"class C{i:05d}(C{i - 1:05d}):\n{here}")
    return files


def _built(n: int) -> dict[str, str]:
    files = _one_module_chain(n, "DeviceAuxiliaryOutput", TO_PP, OUTPUT_IMPORT)
    files["pkg/make.py"] = "from pkg.chain import *  # noqa: F403\n\n\ndef make():\n    return [\n" + "".join(
        f"        C{i:04d}(),  # noqa: F405\n" for i in range(n)) + "    ]\n"
    return files


def _wide(n: int) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/base.py": f"{OUTPUT_IMPORT}\n\nclass Base(DeviceAuxiliaryOutput):\n    pass\n"}
    for start in range(1, n, PER_MODULE):
        classes = "".join(f"\n\nclass W{i:05d}(Base):\n    pass\n" for i in range(start, min(n, start + PER_MODULE)))
        files[f"pkg/w{start // PER_MODULE:04d}.py"] = f"from pkg.base import Base\n{classes}"
    return files


def _diamond(n: int) -> dict[str, str]:
    lines = [OUTPUT_IMPORT, "\n\nclass D0000(DeviceAuxiliaryOutput):\n    pass\n"]
    for i in range(1, max(2, n // 3 + 1)):
        lines.append(f"\n\nclass L{i:04d}(D{i - 1:04d}):\n    pass\n"
                     f"\n\nclass R{i:04d}(D{i - 1:04d}):\n    pass\n"
                     f"\n\nclass D{i:04d}(L{i:04d}, R{i:04d}):\n    pass\n")
    return {"pkg/__init__.py": "", "pkg/diamond.py": "".join(lines)}


GENERATORS: dict[str, Callable[[int], dict[str, str]]] = {
    "chain": lambda n: _one_module_chain(n, "DeviceAuxiliaryOutput", "", OUTPUT_IMPORT),
    "modules": lambda n: _module_chain(n, "DeviceAuxiliaryOutput", OUTPUT_IMPORT, None, ""),
    "root": lambda n: _module_chain(n, "DeviceAuxiliaryOutput", OUTPUT_IMPORT, 0, TO_PP),
    "midway": lambda n: _module_chain(n, "DeviceAuxiliaryOutput", OUTPUT_IMPORT, n // 2, TO_PP),
    "observers": lambda n: _module_chain(n, "SamplingObserver", OBSERVER_IMPORT, None, ""),
    "structural": lambda n: _one_module_chain(n, "object", COPY_TO_HOST, '"""Outputs by shape, not by base."""\n'),
    "built": _built,
    "wide": _wide,
    "diamond": _diamond,
}


def tree(workdir: Path, shape: str, n: int) -> Path:
    """The generated tree of ``shape`` with ``n`` classes, written on first use and kept."""
    path = workdir / "chains" / f"v{GENERATOR_VERSION}-{shape}-n{n}"

    def build(staging: Path) -> dict[str, object]:
        files = GENERATORS[shape](n)
        total = 0
        for relative, text in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            total += len(text)
        (staging / "pyproject.toml").write_text('[project]\nname = "chains"\nversion = "1.0.0"\n\n[tool.ppaux-lint]\n')
        return {"shape": shape, "classes": n, "files": len(files), "megabytes": total / 1e6}

    cached_project(path, f"{shape} n={n}", build)
    return path


def exponent(small: tuple[int, float], large: tuple[int, float]) -> float:
    """The power of the size that takes the time from ``small`` to ``large``: 1 is linear, 2 quadratic."""
    return math.log(large[1] / small[1]) / math.log(large[0] / small[0])


def bench_shape(workdir: Path, shape: str, sizes: Sequence[int], runs: int, budget: float,
                save: Path | None) -> list[tuple[int, float, float, int]]:
    """(size, median seconds, peak MiB, findings) for each size run; findings -1 where ``check`` crashed."""
    rows = []
    for n in sizes:
        if rows and rows[-1][1] > budget / 4:
            log(f"{shape}: skipping n={n} and above (n={rows[-1][0]} took {rows[-1][1]:.1f}s)")
            break
        project = tree(workdir, shape, n)
        argv = ppaux_check("--no-cache", ".")
        samples = []
        for number in range(runs):
            log(f"{shape} n={n}: run {number + 1}/{runs}")
            samples.append(measure(argv, project))
            if samples[-1].returncode not in (0, 1):  # a crash (RecursionError): say so, and stop the shape
                tail = (samples[-1].stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
                log(f"{shape} n={n}: exit {samples[-1].returncode}: {tail[:200]}")
                rows.append((n, samples[-1].seconds, samples[-1].peak_mib, -1))
                return rows
        found = [findings_of(s) for s in samples]
        if any(f != found[0] for f in found):
            raise BenchError(f"{shape} n={n}: the runs reported different findings")
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            (save / f"{shape}-n{n}.check.json").write_text(samples[0].stdout)
            inventory = measure(ppaux("inventory", "--output-format", "json", "."), project)
            (save / f"{shape}-n{n}.inventory.json").write_text(f"exit {inventory.returncode}\n{inventory.stdout}")
        rows.append((n, statistics.median(s.seconds for s in samples), max(s.peak_mib for s in samples),
                     len(found[0])))
    return rows


def deep_check(workdir: Path, n: int, limit: float) -> str:
    """One ``check`` of a ``chain`` of ``n`` classes, stopped after ``limit`` seconds: how it ended, in words."""
    project = tree(workdir, "chain", n)
    argv = ["timeout", str(limit), *ppaux_check("--no-cache", ".")]
    sample = measure(argv, project)
    if sample.returncode == 124:
        return f"still running after {limit:.0f}s: stopped"
    if sample.returncode not in (0, 1):
        tail = sample.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return f"exit {sample.returncode} after {sample.seconds:.1f}s: {tail[0][:160]}"
    findings = json.loads(sample.stdout)
    crashed = "RecursionError" in sample.stderr or "Traceback" in sample.stderr
    return (f"exit {sample.returncode} in {sample.seconds:.1f}s, {sample.peak_mib:.0f} MiB, {len(findings)} findings"
            + (" (a traceback on stderr)" if crashed else ""))


def describe_machine() -> str:
    """The machine, and which ppaux-lint the runs import (``PYTHONPATH`` picks a checkout)."""
    where = subprocess.run([sys.executable, "-c", "import ppaux_lint; print(ppaux_lint.__file__)"], check=False,
                           capture_output=True, text=True, cwd="/").stdout.strip()
    return (f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"ppaux-lint from {os.path.dirname(os.path.dirname(where)) or '?'}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--sizes", default="250,500,1000,2000")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--budget", type=float, default=60.0,
                        help="stop a shape once one size took more than a quarter of this many seconds")
    parser.add_argument("--deep", type=int, default=10000, help="one deep chain's length; 0 skips it")
    parser.add_argument("--deep-limit", type=float, default=300.0, help="seconds the deep chain may take")
    parser.add_argument("--save", type=Path, default=None)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).resolve().parent / ".work")
    args = parser.parse_args(argv)
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = [s for s in shapes if s not in GENERATORS]
    if unknown:
        parser.error(f"unknown shapes: {', '.join(unknown)} (known: {', '.join(SHAPES)})")
    sizes = sorted(int(s) for s in args.sizes.split(","))
    as_installed()
    try:
        log("warm-up (untimed): one check of the smallest chain")
        run_timed(ppaux_check("--no-cache", "."), tree(args.workdir, "chain", sizes[0]))
        results = {shape: bench_shape(args.workdir, shape, sizes, args.runs, args.budget, args.save)
                   for shape in shapes}
        deep = deep_check(args.workdir, args.deep, args.deep_limit) if args.deep else ""
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        stop_launcher()
    print(describe_machine())
    print(f"check --no-cache, medians of {args.runs} run(s); exponent: time ~ n^k between the sizes named")
    header = f"{'shape':<11}" + "".join(f"{n:>9}" for n in sizes) + f"{'k first-last':>14}{'k last two':>12}"
    print(header + f"{'peak MiB':>10}{'findings':>10}")
    print("-" * (len(header) + 20))
    for shape, rows in results.items():
        times = {n: (t if found >= 0 else None) for n, t, _, found in rows}
        cells = "".join(f"{'crash':>9}" if n in times and times[n] is None else
                        f"{times[n]:>8.2f}s" if n in times else f"{'-':>9}" for n in sizes)
        rows = [row for row in rows if row[3] >= 0]  # the exponents and last columns: the sizes that ran through
        if not rows:
            print(f"{shape:<11}{cells}")
            continue
        whole = f"{exponent(rows[0][:2], rows[-1][:2]):.2f}" if len(rows) > 1 else "-"
        last = f"{exponent(rows[-2][:2], rows[-1][:2]):.2f}" if len(rows) > 1 else "-"
        print(f"{shape:<11}{cells}{whole:>14}{last:>12}{rows[-1][2]:>10.0f}{rows[-1][3]:>10}")
    if deep:
        print(f"chain of {args.deep}: {deep}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
