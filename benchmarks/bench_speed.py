#!/usr/bin/env python3
"""How fast ppaux-lint checks SGLang's own tree, measured against ruff in the same run (issue 5).

    python benchmarks/bench_speed.py [--runs 5] [--synthetic 1000,10000,50000] [--skip-synthetic]
                                     [--synthetic-runs 3] [--synthetic-budget 60] [--workdir benchmarks/.work]

Issue 5 states its targets as ratios to ``ruff check --no-cache --select F`` on the same tree,
because absolute seconds on a shared 2-core machine drift by a factor of two from one minute to
the next. So every number that enters a ratio comes from one interleaved run: each round runs ruff,
then one ppaux-lint scenario, then ruff again, and so on, and the table compares medians. What it
does, in order:

1. Fetches ``sglang==0.5.23`` with ``pip download --no-deps`` into the workdir and unpacks only
   ``sglang/**`` (4,719 .py files, ~68 MB of Python). Both are kept, so later runs skip this.
2. Times, as subprocesses (wall clock, and peak RSS from ``os.wait4`` in a small launcher process,
   see ``Launcher``): ruff; ppaux-lint cold
   (after ``ppaux-lint clean``) and cold with ``--no-cache``; warm (nothing changed); one file
   changed; and the pre-commit case (that file edited again and passed alone). It checks that
   every run reports the same findings.
3. Estimates a naive "parse everything with libcst" run from a fixed sample of ~150 files, and
   measures what isolating the parser in a worker process costs on the files the prefilter keeps.
4. Generates synthetic plugin projects of N files with deep cross-package class hierarchies (kept
   in the workdir) and shows how time and memory grow with N; it knows which findings each project
   must produce. Large projects get fewer rounds (``--synthetic-budget``).

Only the standard library, ppaux_lint and libcst are needed (and ruff, as the baseline).
Progress goes to stderr, the tables to stdout.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

SGLANG = "sglang==0.5.23"
EXPECTED_PY_FILES = 4719
CHANGED_FILE = "sglang/srt/managers/auxiliary_output.py"  # defines the output Protocol: a file that matters
LIBCST_SAMPLE = 150
GENERATOR_VERSION = 2  # bump when the synthetic projects change, so cached ones are regenerated
SYNTHETIC_SEED = 20240605
MODULES_PER_PACKAGE = 50  # an __init__.py and 49 modules

# The marker written into the unpacked tree. Without it, a tree unpacked inside a git checkout
# (the default workdir is benchmarks/.work of this repository) would have its project root found
# above it, and that checkout's .gitignore would hide the whole tree from ppaux-lint. ``[tool.ruff]``
# pins ruff to its defaults as well, whatever configuration lies above the workdir.
TREE_MARKER = """\
# Written by benchmarks/bench_speed.py. It makes this unpacked tree its own project root for
# ppaux-lint (which looks for pyproject.toml or .git) and for ruff (which looks for [tool.ruff]),
# so that nothing above the benchmark's workdir changes what either tool sees. Defaults for both.
[tool.ruff]
"""

# Targets from issue 5: a scenario's median over ruff's median, at most this much.
RATIO_TARGETS = {"cold": 1.0, "no-cache": 1.0, "warm": 0.5, "one-file": 0.5, "pre-commit": 0.5}
COLD_MEMORY_TARGET_MIB = 100.0

_START = time.perf_counter()


class BenchError(Exception):
    """Something the benchmark cannot work around (no network, a tool that errors): a message, exit 2."""


def log(message: str) -> None:
    """Progress on stderr, stamped with the time since start, so a slow step is easy to spot."""
    print(f"[{time.perf_counter() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


# -- running and measuring one command ---------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One timed subprocess: wall seconds, peak RSS, and what it printed."""

    seconds: float
    peak_mib: float
    returncode: int
    stdout: str
    stderr: str


# The launcher runs in its own small process. Linux folds the hiwater RSS of the memory a process
# had before ``exec`` into the ``ru_maxrss`` it reports afterwards, and a child created with fork,
# vfork or posix_spawn had its parent's memory until its exec: measured straight from this script
# (which grows to hundreds of MiB while it generates projects and parses with libcst), every child
# would report at least this script's peak. The launcher stays at the size of a bare interpreter,
# below any Python child's own peak, so the numbers it reports are the children's.
_LAUNCHER = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["stdout"], "wb") as out, open(job["stderr"], "wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(job["argv"], cwd=job["cwd"], stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
    print(json.dumps({"seconds": seconds, "maxrss": usage.ru_maxrss, "returncode": child.returncode}), flush=True)
"""


class Launcher:
    """Runs commands for ``measure``: wall time around spawn and ``os.wait4``, and the child's
    ``ru_maxrss``, which covers the child and every descendant it waited for (ppaux-lint's forked
    workers included). That is the peak of the biggest single process, not the sum of several
    (forked workers share most of their pages). Output goes to files, so a chatty child never blocks."""

    def __init__(self) -> None:
        self.scratch = tempfile.TemporaryDirectory(prefix="bench_speed-")
        self.process = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def run(self, argv: Sequence[str], cwd: Path) -> Sample:
        out, err = Path(self.scratch.name) / "stdout", Path(self.scratch.name) / "stderr"
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"argv": list(argv), "cwd": str(cwd), "stdout": str(out),
                                             "stderr": str(err)}) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            raise BenchError("the launcher process died")
        result = json.loads(reply)
        return Sample(result["seconds"], _maxrss_mib(result["maxrss"]), result["returncode"],
                      out.read_text("utf-8", "replace"), err.read_text("utf-8", "replace"))

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()
        self.scratch.cleanup()


_launcher: Launcher | None = None


def as_installed() -> None:
    """Let the processes this script starts write bytecode, as an installed ppaux-lint has: its ``.pyc`` files and
    the kept code of its dataclasses (``support/records.py``), which the untimed warm-up runs write. With
    ``PYTHONDONTWRITEBYTECODE`` set (this environment sets it), every module edited since bytecode was last
    written would be compiled on every run, and every dataclass too: that measures the edit, not the tool. Call
    it before the first ``measure``, whose launcher the later processes inherit their environment from."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def measure(argv: Sequence[str], cwd: Path) -> Sample:
    """Run ``argv`` in ``cwd`` through the launcher (started on first use) and return what it cost."""
    global _launcher
    if _launcher is None:
        _launcher = Launcher()
    return _launcher.run(argv, cwd)


def stop_launcher() -> None:
    global _launcher
    if _launcher is not None:
        _launcher.close()
        _launcher = None


def _maxrss_mib(maxrss: int) -> float:
    """``ru_maxrss`` is in KiB on Linux and in bytes on macOS."""
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def checked(sample: Sample, argv: Sequence[str]) -> Sample:
    """Both tools exit 1 when they find something; anything else but 0 means the run is worthless."""
    if sample.returncode not in (0, 1):
        tail = "\n".join(sample.stderr.strip().splitlines()[-8:])
        how = (f"was killed by signal {-sample.returncode} (out of memory?)" if sample.returncode < 0
               else f"exited with {sample.returncode}")
        raise BenchError(f"`{' '.join(argv)}` {how} after {sample.seconds:.1f}s" + (f":\n{tail}" if tail else ""))
    return sample


def run_timed(argv: Sequence[str], cwd: Path) -> Sample:
    return checked(measure(argv, cwd), argv)


def ppaux(*args: str) -> list[str]:
    return [sys.executable, "-m", "ppaux_lint", *args]


def ppaux_check(*args: str) -> list[str]:
    """JSON output, so every timed run's findings can be compared with every other's."""
    return ppaux("check", "-q", "--output-format", "json", *args)


def ruff_command() -> list[str]:
    """ruff on PATH, else the one installed for this Python; the baseline is useless without it."""
    found = shutil.which("ruff")
    if found:
        return [found]
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    raise BenchError("ruff is not installed (pip install ruff); it is the baseline every ratio is measured against")


def clean_cache(cwd: Path) -> None:
    """``ppaux-lint clean``: the way a user empties the cache, so "cold" means what it says."""
    checked(measure(ppaux("clean"), cwd), ppaux("clean"))


def findings_of(sample: Sample) -> list[str]:
    """The findings of a JSON run, each as canonical JSON, in the tool's order."""
    try:
        data = json.loads(sample.stdout)
    except ValueError as exc:
        raise BenchError(f"ppaux-lint printed no valid JSON ({exc}): {sample.stdout[:200]!r}") from None
    return [json.dumps(item, sort_keys=True) for item in data]


def cache_megabytes(project: Path) -> float:
    """The cache's size after a cold run; it is read back whole by every warm run."""
    return sum(p.stat().st_size for p in (project / ".ppaux_lint_cache").rglob("*") if p.is_file()) / 1e6


def count_summaries(project: Path) -> int:
    """Summaries in the cache after a cold run: the number of files ppaux-lint had to parse. A cold run keeps 16
    or more as one pack (``cache/packs.py``: its magic line, the index's length in 16 digits, the JSON index)."""
    from ppaux_lint.cache.packs import MAGIC

    cache = project / ".ppaux_lint_cache"
    count = sum(1 for _ in cache.glob("*/summaries/*.json"))
    for pack in cache.glob("*/packs/*.pack"):
        with pack.open("rb") as handle:
            head = handle.read(len(MAGIC) + 17)
            count += len(json.loads(handle.read(int(head[len(MAGIC):-1]))))
    return count


# -- the SGLang tree ------------------------------------------------------------------------------


def fetch_distribution(workdir: Path) -> Path:
    """The downloaded wheel (or sdist), fetched with pip only if it is not in the workdir yet."""
    dist = workdir / "dist"
    found = _downloaded(dist)
    if found is not None:
        log(f"using {found.name} from an earlier run")
        return found
    dist.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
            "-d", str(dist), SGLANG]
    log(f"downloading {SGLANG}: {' '.join(argv[1:])}")
    result = subprocess.run(argv, check=False, capture_output=True, text=True)
    found = _downloaded(dist)
    if result.returncode != 0 or found is None:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-6:])
        raise BenchError(
            f"`pip download --no-deps {SGLANG}` failed (exit {result.returncode}):\n{tail}\n"
            f"Without network, put the wheel (sglang-0.5.23-*.whl) into {dist} yourself and rerun.")
    return found


def _downloaded(dist: Path) -> Path | None:
    candidates = sorted(dist.glob("sglang-0.5.23*.whl")) + sorted(dist.glob("sglang-0.5.23*.tar.gz"))
    return candidates[0] if candidates else None


def unpack_tree(distribution: Path, workdir: Path) -> Path:
    """``sglang/**`` from the distribution, unpacked once; a marker file says the unpacking finished."""
    tree = workdir / "sglang-0.5.23"
    done = tree / ".unpacked"
    if done.is_file():
        return tree
    log(f"unpacking sglang/** from {distribution.name}")
    staging = workdir / f".unpack-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    if distribution.suffix == ".whl":
        with zipfile.ZipFile(distribution) as archive:
            archive.extractall(staging, [n for n in archive.namelist() if n.startswith("sglang/")])
    else:
        _unpack_sdist(distribution, staging)
    (staging / "pyproject.toml").write_text(TREE_MARKER)
    shutil.rmtree(tree, ignore_errors=True)
    staging.rename(tree)
    done.write_text(distribution.name + "\n")
    return tree


def _unpack_sdist(archive_path: Path, staging: Path) -> None:
    """An sdist keeps the package somewhere below its top directory; take the outermost ``sglang/``."""
    import tarfile

    with tarfile.open(archive_path) as archive:
        inits = [m.name for m in archive.getmembers() if m.name.endswith("/sglang/__init__.py")]
        if not inits:
            raise BenchError(f"{archive_path.name} holds no sglang package")
        prefix = min(inits, key=len)[: -len("sglang/__init__.py")]
        members = []
        for member in archive.getmembers():
            if member.name.startswith(prefix + "sglang/") and (member.isfile() or member.isdir()):
                member.name = member.name[len(prefix):]
                members.append(member)
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # no links or paths out of staging
        archive.extractall(staging, members, **safe)


def python_files(tree: Path) -> list[Path]:
    return sorted(p for p in (tree / "sglang").rglob("*.py") if p.is_file())


class EditedFile:
    """The file the one-file scenarios edit: restored on exit, and from a backup if a run was killed.

    Each edit appends a comment line that has never been written before (round, pid, time), so its
    content hash is new and ppaux-lint must really re-read and re-parse it.
    """

    def __init__(self, path: Path, backup: Path) -> None:
        self.path, self.backup = path, backup
        if backup.is_file():  # an earlier run died mid-benchmark: put the original back first
            shutil.copyfile(backup, path)
        self.original = path.read_bytes()

    def __enter__(self) -> Self:
        self.backup.write_bytes(self.original)
        return self

    def edit(self, label: str) -> None:
        marker = f"# bench_speed: {label} pid={os.getpid()} t={time.time_ns()}\n".encode()
        self.path.write_bytes(self.original + (b"" if self.original.endswith(b"\n") else b"\n") + marker)

    def __exit__(self, *exc: object) -> None:
        self.path.write_bytes(self.original)
        self.backup.unlink(missing_ok=True)


# -- the interleaved CLI scenarios on the SGLang tree ------------------------------------------------

SCENARIOS = ("cold", "no-cache", "warm", "one-file", "pre-commit")
LABELS = {
    "ruff": "ruff check --no-cache --select F",
    "cold": "ppaux-lint cold (after clean)",
    "no-cache": "ppaux-lint cold --no-cache",
    "warm": "ppaux-lint warm (nothing changed)",
    "one-file": "ppaux-lint one file changed",
    "pre-commit": "ppaux-lint pre-commit (1 file passed)",
}


@dataclass
class TreeResults:
    samples: dict[str, list[Sample]] = field(default_factory=lambda: {n: [] for n in ("ruff", *SCENARIOS)})
    parsed: int = 0  # files ppaux-lint parsed on a cold run (cache entries)
    findings_problems: list[str] = field(default_factory=list)
    reference: list[str] = field(default_factory=list)


def bench_tree(tree: Path, runs: int, ruff: list[str], backup: Path) -> TreeResults:
    """``runs`` rounds; in each, ruff runs right before every scenario so both see the same noise.

    The order inside a round is what makes each scenario's state true: cold follows a clean,
    warm follows cold and no-cache (which does not touch the cache), one-file edits the file
    first, and pre-commit edits it again and passes only that file, as a git hook does.
    """
    results = TreeResults()
    ruff_argv = [*ruff, "check", "--no-cache", "--select", "F", "-q", "."]
    # (the ppaux-lint run also writes its bytecode, ``as_installed``, before any run is timed, the synthetic
    # projects' included: they run after this tree)
    log("warm-up (untimed): one ruff run and one ppaux-lint --no-cache run, to fill the page cache")
    run_timed(ruff_argv, tree)
    run_timed(ppaux_check("--no-cache", "."), tree)
    with EditedFile(tree / CHANGED_FILE, backup) as edited:
        for round_number in range(1, runs + 1):
            for scenario in SCENARIOS:
                argv = _prepare(scenario, tree, edited, round_number)
                log(f"sglang round {round_number}/{runs}: ruff, then {scenario}")
                results.samples["ruff"].append(run_timed(ruff_argv, tree))
                sample = run_timed(argv, tree)
                results.samples[scenario].append(sample)
                if scenario == "cold" and round_number == 1:
                    results.parsed = count_summaries(tree)
    _compare_findings(results)
    return results


def _prepare(scenario: str, tree: Path, edited: EditedFile, round_number: int) -> list[str]:
    """Put the tree and the cache in the state the scenario is about; return the command to time."""
    if scenario == "cold":
        clean_cache(tree)
    if scenario in ("one-file", "pre-commit"):
        edited.edit(f"{scenario} round {round_number}")
    if scenario == "no-cache":
        return ppaux_check("--no-cache", ".")
    if scenario == "pre-commit":
        return ppaux_check(CHANGED_FILE)
    return ppaux_check(".")


def _compare_findings(results: TreeResults) -> None:
    """Every full-tree run must report exactly what the first cold run reported; the pre-commit run
    exactly the part of it that is about the file it was given (the appended comment moves nothing)."""
    reference = findings_of(results.samples["cold"][0])
    results.reference = reference
    for scenario in ("cold", "no-cache", "warm", "one-file"):
        for number, sample in enumerate(results.samples[scenario], 1):
            if findings_of(sample) != reference:
                results.findings_problems.append(f"{scenario} round {number}: {len(findings_of(sample))} findings "
                                                 f"differ from cold round 1's {len(reference)}")
    own = [f for f in reference if json.loads(f)["path"].replace(os.sep, "/") == CHANGED_FILE]  # not a copy's
    for number, sample in enumerate(results.samples["pre-commit"], 1):
        if findings_of(sample) != own:
            results.findings_problems.append(f"pre-commit round {number}: findings differ from the full run's "
                                             f"{len(own)} for {CHANGED_FILE}")


# -- in-process measurements: naive libcst and the cost of isolating the parser ----------------------


@dataclass
class LibcstEstimate:
    sample_files: int
    sample_bytes: int
    sample_seconds: float
    tree_bytes: int
    failures: int

    @property
    def estimate(self) -> float:
        return self.sample_seconds * self.tree_bytes / self.sample_bytes


def naive_libcst(tree: Path) -> LibcstEstimate:
    """What "just parse everything with libcst" would cost: a seeded sample, extrapolated by bytes.

    Parsing all 68 MB takes over a minute here, too long to repeat; parse time is close to linear
    in size, so a fixed random sample (seed 0) scaled by bytes is a fair and repeatable estimate.
    Files are read before the clock starts; only ``parse_module`` is timed.
    """
    import libcst

    files = python_files(tree)
    tree_bytes = sum(p.stat().st_size for p in files)
    sample = random.Random(0).sample(files, min(LIBCST_SAMPLE, len(files)))
    libcst.parse_module("x = 1\n")  # load the native parser outside the clock
    seconds, size, failures = 0.0, 0, 0
    for path in sample:
        data = path.read_bytes()
        size += len(data)
        start = time.perf_counter()
        try:
            libcst.parse_module(data)
        except Exception:  # noqa: BLE001 - a file libcst cannot parse still cost what it cost
            failures += 1
        seconds += time.perf_counter() - start
    return LibcstEstimate(len(sample), size, seconds, tree_bytes, failures)


@dataclass
class IsolationCost:
    files: int
    bytes: int
    in_process: list[float]
    isolated: list[float]
    same_summaries: bool


def isolation_cost(tree: Path, runs: int) -> IsolationCost:
    """Parse the prefilter's first candidates in-process and in a worker process, alternating.

    ppaux-lint parses in a forked worker so that a parser crash becomes a PPA000 rather than the end
    of the run; this says what that safety costs on the files a real run parses. Both sides have
    ``ppaux_lint.facts.summarize.source`` imported beforehand, so neither pays for the import inside the clock.
    """
    from ppaux_lint.cache.owner import ProjectCache
    from ppaux_lint.facts.summarize import source  # noqa: F401 - imported so that its import is not timed
    from ppaux_lint.project.loading import Options, discover_files, load_project
    from ppaux_lint.scan.prefilter import initial_tokens

    options = Options(no_cache=True)
    project = load_project([tree], options)
    files = discover_files([tree], options, project).files
    candidates = ProjectCache(project, options).summaries(files).scan(files, initial_tokens(project.config.protocols))
    size = sum(os.path.getsize(c.path) for c in candidates)
    timings: dict[bool, list[float]] = {False: [], True: []}
    results: dict[bool, dict] = {}
    for number in range(runs):
        for isolate in ((False, True) if number % 2 == 0 else (True, False)):
            store = ProjectCache(project, options).summaries(files, isolate=isolate)
            start = time.perf_counter()
            results[isolate] = store.summarize(candidates)
            timings[isolate].append(time.perf_counter() - start)
    return IsolationCost(len(candidates), size, timings[False], timings[True], results[False] == results[True])


# -- synthetic plugin projects -----------------------------------------------------------------------

NOUNS = ("cache", "batch", "request", "token", "buffer", "queue", "shard", "span", "metric", "window",
         "prefix", "block", "page", "route", "stream", "worker", "slot", "budget", "policy", "lease",
         "tracker", "ledger", "digest", "bucket", "chunk", "frame", "signal", "record", "profile", "header")
VERBS = ("load", "build", "merge", "flush", "resolve", "split", "score", "update", "collect", "render",
         "prune", "encode", "decode", "schedule", "rebalance", "validate", "compact", "refresh", "admit", "evict")
STDLIB = ("os", "re", "json", "math", "time", "itertools", "functools", "collections", "heapq", "hashlib")


@dataclass
class Module:
    path: str  # relative to the project root
    name: str  # dotted module name
    package: int  # index of its package, -1 for the top package
    is_init: bool


@dataclass
class Chain:
    """One output hierarchy: ``depth`` classes, each subclassing the one before, in different modules.

    In a "broken" chain the first class has no ``to_pp_tensors`` and level ``fixed_at`` adds it, so
    levels ``0 .. fixed_at-1`` are PPA001 findings. ``observer_ok`` false means its observer has no
    ``from_pp_tensors`` (a PPA002).
    """

    index: int
    levels: list[int]  # module index of each level
    styles: list[str]  # how each level names the one before ("root-..." for level 0)
    mixins: list[int | None]  # a plain module whose primary class is a second base, or None
    overrides: list[bool]  # does this level define to_pp_tensors itself
    fixed_at: int
    observer: int
    observer_ok: bool
    leaf_style: str
    users: list[int]

    def class_name(self, level: int) -> str:
        return f"Aux{self.index:04d}L{level:02d}Output"


@dataclass
class Plan:
    """Everything needed to render any file on its own, so rendering can be split across processes."""

    n: int
    seed: int
    modules: list[Module]
    chains: list[Chain]
    role: dict[int, tuple[str, int, int]]  # module -> ("level", chain, level) or ("observer", chain, 0)
    plain: list[int]  # modules with no role: ordinary code
    reexports: dict[int, list[tuple[str, str]]]  # package -> [(submodule, class name)] for its __init__
    users: dict[int, list[tuple[int, int]]]  # plain module -> [(chain, leaf module)] it imports
    decoys: set[int]  # plain modules whose docstring mentions a Protocol by name (a prefilter false positive)

    @property
    def expected_findings(self) -> dict[str, int]:
        return {"PPA001": sum(c.fixed_at for c in self.chains),
                "PPA002": sum(1 for c in self.chains if not c.observer_ok)}


def plan_project(n: int, seed: int) -> Plan:
    """Decide, from the seed alone, which file holds what; rendering then needs no more decisions.

    About 3% of the files are outputs and observers: chains of 8-12 output classes whose levels mostly
    live in different packages (imported through relative imports, ``import a.b as m``, package
    re-exports, ``from pkg import module``, aliases), each with an observer. Every fourth chain is
    broken (PPA001s) and every fifth observer lacks ``from_pp_tensors`` (a PPA002). The rest is
    ordinary code that imports itself, a few modules that register the outputs, and a few decoys.
    """
    if n < 100:
        raise BenchError(f"a synthetic project needs at least 100 files, not {n}")
    rng = random.Random(seed)
    modules = _lay_out(n)
    by_package: dict[int, list[int]] = {}
    for index, module in enumerate(modules):
        if not module.is_init:
            by_package.setdefault(module.package, []).append(index)
    free = {i for ids in by_package.values() for i in ids}
    pool = sorted(free)
    rng.shuffle(pool)

    def take(package: int | None = None) -> int:
        if package is not None:
            local = [i for i in by_package[package] if i in free]
            if local:
                chosen = rng.choice(local)
                free.discard(chosen)
                return chosen
        while True:
            chosen = pool.pop()
            if chosen in free:
                free.discard(chosen)
                return chosen

    chains = []
    role: dict[int, tuple[str, int, int]] = {}
    reexports: dict[int, list[tuple[str, str]]] = {}
    for c in range(max(2, round(n * 0.03 / 11))):
        depth = rng.randint(8, 12)
        levels = [take()]
        for _ in range(depth - 1):
            levels.append(take(modules[levels[-1]].package if rng.random() < 0.25 else None))
        broken = c % 4 == 1
        fixed_at = rng.randint(2, depth - 2) if broken else 0
        overrides = [not broken if level == 0 else (level == fixed_at if broken and level <= fixed_at
                                                    else rng.random() < 0.3) for level in range(depth)]
        styles = [rng.choice(("root-managers", "root-legacy", "root-module-alias"))]
        for level in range(1, depth):
            same = modules[levels[level]].package == modules[levels[level - 1]].package
            styles.append("relative" if same else rng.choice(
                ("absolute", "module-alias", "reexport", "relative-parent", "submodule", "assign-alias")))
        chain = Chain(c, levels, styles, [None] * depth, overrides, fixed_at, take(), c % 5 != 2,
                      rng.choice(("absolute", "module-alias", "reexport")), [])
        for level, module in enumerate(levels):
            role[module] = ("level", c, level)
            needs_reexport = (level + 1 < depth and styles[level + 1] == "reexport") or (
                level == depth - 1 and chain.leaf_style == "reexport")
            if needs_reexport:
                reexports.setdefault(modules[module].package, []).append(
                    (modules[module].name.rsplit(".", 1)[1], chain.class_name(level)))
        role[chain.observer] = ("observer", c, 0)
        chains.append(chain)
    plain = sorted(free)
    users: dict[int, list[tuple[int, int]]] = {}
    for chain in chains:
        chain.mixins = [rng.choice(plain) if level and rng.random() < 0.2 else None
                        for level in range(len(chain.levels))]
        for user in rng.sample(plain, rng.randint(1, 2)):
            chain.users.append(user)
            users.setdefault(user, []).append((chain.index, chain.levels[-1]))
    decoys = {i for i in plain if rng.random() < 0.005}
    return Plan(n, seed, modules, chains, role, plain, reexports, users, decoys)


def _lay_out(n: int) -> list[Module]:
    """``plugin/__init__.py`` and packages ``plugin/pNNNN`` of an ``__init__.py`` and 49 modules, n files in all."""
    modules = [Module("plugin/__init__.py", "plugin", -1, True)]
    package = 0
    while len(modules) < n:
        base = f"plugin/p{package:04d}"
        modules.append(Module(f"{base}/__init__.py", f"plugin.p{package:04d}", package, True))
        for slot in range(MODULES_PER_PACKAGE - 1):
            if len(modules) >= n:
                break
            modules.append(Module(f"{base}/m{slot:02d}.py", f"plugin.p{package:04d}.m{slot:02d}", package, False))
        package += 1
    return modules


def primary_class(index: int) -> str:
    """The class every plain module defines first; other modules import it by this name."""
    return f"{NOUNS[index % len(NOUNS)].title()}{NOUNS[(index // len(NOUNS)) % len(NOUNS)].title()}{index}"


def render(plan: Plan, index: int) -> str:
    module = plan.modules[index]
    if module.is_init:
        return _render_init(plan, module)
    kind, chain, level = plan.role.get(index, ("plain", 0, 0))
    if kind == "level":
        return _render_level(plan, plan.chains[chain], level)
    if kind == "observer":
        return _render_observer(plan, plan.chains[chain])
    return _render_plain(plan, index)


def _render_init(plan: Plan, module: Module) -> str:
    lines = [f'"""The {module.name} package."""', ""]
    for submodule, name in sorted(plan.reexports.get(module.package, [])) if module.package >= 0 else []:
        lines.append(f"from .{submodule} import {name}")
    if module.package < 0:
        lines.append('__version__ = "1.0.0"')
    return "\n".join(lines) + "\n"


def _import_of(plan: Plan, here: Module, there_index: int, name: str, style: str) -> tuple[list[str], str]:
    """The import lines that bring class ``name`` from module ``there_index`` into ``here``, and the
    expression that names it there, in the given style."""
    there = plan.modules[there_index]
    package, short = there.name.rsplit(".", 1)
    if style == "relative":
        return [f"from .{short} import {name}"], name
    if style == "module-alias":
        alias = f"{short}_{there.package}"
        return [f"import {there.name} as {alias}"], f"{alias}.{name}"
    if style == "reexport":
        return [f"from {package} import {name}"], name
    if style == "relative-parent":
        return [f"from ..{package.rsplit('.', 1)[1]}.{short} import {name}"], name
    if style == "submodule":
        return [f"from {package} import {short}"], f"{short}.{name}"
    if style == "assign-alias":
        return [f"from {there.name} import {name}", "", f"_Base = {name}"], "_Base"
    return [f"from {there.name} import {name}"], name


_ROOTS = {
    "root-managers": (["from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput"],
                      "DeviceAuxiliaryOutput"),
    "root-legacy": (["from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput"],
                    "DeviceAuxiliaryOutput"),
    "root-module-alias": (["import sglang.srt.managers.auxiliary_output as aux"], "aux.DeviceAuxiliaryOutput"),
}

_TO_PP = '''
    def to_pp_tensors(self) -> dict[str, torch.Tensor]:
        return {"token_ids": self.token_ids, "scores": self.scores}
'''


def _render_level(plan: Plan, chain: Chain, level: int) -> str:
    """One class of an output chain: level 0 holds the tensors and ``copy_to_host``; each level
    below adds behaviour, sometimes overrides ``to_pp_tensors``, sometimes mixes in a plain class."""
    here = plan.modules[chain.levels[level]]
    name = chain.class_name(level)
    if level == 0:
        imports, base = _ROOTS[chain.styles[0]]
    else:
        imports, base = _import_of(plan, here, chain.levels[level - 1], chain.class_name(level - 1),
                                   chain.styles[level])
    bases = [base]
    mixin = chain.mixins[level]
    if mixin is not None:
        imports = [f"from {plan.modules[mixin].name} import {primary_class(mixin)}", *imports]
        bases.append(primary_class(mixin))
    lines = [f'"""Stage {level} of auxiliary output family {chain.index}."""', "", "from __future__ import annotations",
             "", "from dataclasses import dataclass", "", "import torch", "", *imports, "", ""]
    lines += ["@dataclass", f"class {name}({', '.join(bases)}):",
              f'    """Level {level} of the family: adds '
              f'{NOUNS[(chain.index + level) % len(NOUNS)]} bookkeeping."""', ""]
    if level == 0:
        lines += ["    token_ids: torch.Tensor", "    scores: torch.Tensor", "",
                  "    def copy_to_host(self, copy_tensor):",
                  f"        return Aux{chain.index:04d}Host(copy_tensor(self.token_ids), copy_tensor(self.scores))"]
    else:
        lines += [f'    label = "aux{chain.index:04d}_l{level:02d}"', "",
                  "    def describe(self) -> str:",
                  '        return f"{self.label}: {tuple(self.token_ids.shape)}"']
    text = "\n".join(lines) + "\n" + (_TO_PP if chain.overrides[level] else "")
    # Each level has instances of its own (a factory its tests use), so each is judged itself: a class only
    # ever subclassed would be judged through its subclasses (issue 22), and the planted PPA001s would go.
    text += f"\n\ndef example_{level}() -> {name}:\n    return {name}(torch.zeros(2), torch.zeros(2))\n"
    if level == 0:
        text += f'''

class Aux{chain.index:04d}Host:
    """The host copy: what the scheduler hands back to requests."""

    def __init__(self, token_ids, scores):
        self.token_ids = token_ids
        self.scores = scores

    def consume(self, batch, commits):
        for row, commit in enumerate(commits):
            if commit is not None:
                commit(self.token_ids[row].tolist(), self.scores[row].tolist())
'''
    return text


def _render_observer(plan: Plan, chain: Chain) -> str:
    here = plan.modules[chain.observer]
    leaf = chain.class_name(len(chain.levels) - 1)
    imports, ref = _import_of(plan, here, chain.levels[-1], leaf, chain.leaf_style)
    return observer_source(f"The observer of auxiliary output family {chain.index}.", imports,
                           f"Aux{chain.index:04d}Observer", ref, chain.observer_ok)


def observer_source(docstring: str, imports: Sequence[str], name: str, output: str, complete: bool) -> str:
    """A sampling observer module whose ``after_sample`` builds ``output``; without ``from_pp_tensors``
    unless ``complete`` (a PPA002)."""
    text = f'''"""{docstring}"""

from __future__ import annotations

import torch
from sglang.srt.sampling.sampling_observer import SamplingObserver

{chr(10).join(imports)}


class {name}(SamplingObserver):
    """Captures the top-k scores of every decoding step."""

    def __init__(self, k: int = 4):
        self.k = k

    def is_active(self, sampling_info) -> bool:
        return self.k > 0

    def after_sample(self, state: torch.Tensor, token_ids: torch.Tensor):
        scores, ids = state.topk(self.k, dim=-1)
        return {output}(token_ids=ids, scores=scores)
'''
    if complete:
        text += f'''
    def from_pp_tensors(self, tensors):
        return {output}(token_ids=tensors["token_ids"], scores=tensors["scores"])
'''
    return text


# Ordinary code, in blocks; {a}/{b} are attribute names, {n} a number, {verb}/{noun} words.
_METHODS = (
    '''
    def {verb}_{noun}(self, value: int) -> int:
        if value > self.{a}:
            return value - self.{a}
        total = 0
        for index in range(value):
            total += index * {n}
        return total
''',
    '''
    def {verb}_{noun}s(self, items: Iterable[Any]) -> list[Any]:
        result = []
        for item in items:
            if item is None:
                continue
            result.append(item)
        self._items.extend(result)
        return result
''',
    '''
    @property
    def {noun}_count(self) -> int:
        return len(self._items)
''',
    '''
    def {verb}_{noun}_by_key(self, key: str, default: Optional[str] = None) -> Optional[str]:
        try:
            return self.{b}[key]
        except (KeyError, TypeError):
            logger.debug("missing %s in %s", key, self.{b})
            return default
''',
    '''
    def {verb}_{noun}_snapshot(self) -> dict[str, Any]:
        snapshot = {{"{a}": self.{a}, "{b}": self.{b}, "items": list(self._items)}}
        if self.{a} > {n}:
            snapshot["overflow"] = self.{a} - {n}
        return snapshot
''',
)
_FUNCTIONS = (
    '''

def {verb}_{noun}_counts(path: str, limit: int = {n}) -> dict[str, int]:
    counts: dict[str, int] = {{}}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if number >= limit:
                break
            word = line.strip().split(" ", 1)[0]
            counts[word] = counts.get(word, 0) + 1
    return counts
''',
    '''

def {verb}_{noun}_variance(values: Iterable[float]) -> float:
    values = list(values)
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)
''',
    '''

def {verb}_{noun}_pairs(left: list[int], right: list[int]) -> list[tuple[int, int]]:
    pairs = []
    for a, b in zip(left, right):
        if a == b:
            continue
        pairs.append((min(a, b), max(a, b)))
    pairs.sort()
    return pairs
''',
    '''

@dataclass
class {Noun}{Verb}Options:
    """Options for {verb}ing a {noun}."""

    {a}: int = {n}
    {b}: str = "{noun}"
    tags: list[str] = field(default_factory=list)

    def merged(self, other: "{Noun}{Verb}Options") -> "{Noun}{Verb}Options":
        return {Noun}{Verb}Options(self.{a} + other.{a}, self.{b} or other.{b}, self.tags + other.tags)
''',
)


def module_opening(rng: random.Random, docstring: str, most_stdlib: int) -> list[str]:
    """An ordinary module's first lines: its docstring and imports, up to ``most_stdlib`` of them drawn."""
    return [f'"""{docstring}"""', "", "from __future__ import annotations", "", "import logging",
            *(f"import {m}" for m in sorted(rng.sample(STDLIB, rng.randint(0, most_stdlib)))),
            "from dataclasses import dataclass, field", "from typing import Any, Iterable, Optional", ""]


def class_with_state(rng: random.Random, name: str,
                     docstring: str) -> tuple[list[str], Callable[[], dict[str, object]]]:
    """The opening lines of an ordinary module's primary class (an ``__init__`` keeping two attributes),
    and a source of the words that fill the blocks after it, which use those attributes."""
    a, b = rng.sample(("size", "limit", "offset", "weight", "depth", "rank", "count", "epoch"), 2)
    b = f"{b}_name"
    lines = ["", f"class {name}:", f'    """{docstring}"""',
             "", f"    def __init__(self, {a}: int = {rng.randint(1, 64)}, {b}: Any = None) -> None:",
             f"        self.{a} = {a}", f"        self.{b} = {b} if {b} is not None else {{}}",
             "        self._items: list[Any] = []"]

    def words() -> dict[str, object]:
        verb, word = rng.choice(VERBS), rng.choice(NOUNS)
        return {"verb": verb, "noun": word, "Verb": verb.title(), "Noun": word.title(), "a": a, "b": b,
                "n": rng.randint(2, 512)}

    return lines, words


def _render_plain(plan: Plan, index: int) -> str:
    """An ordinary module of 50-300 lines: imports (some from elsewhere in the project), a primary
    class with methods, functions and option dataclasses. Only the generator's words vary, so it is
    fast, but it has the shape and byte density of real code."""
    rng = random.Random(plan.seed * 1_000_003 + index)
    here = plan.modules[index]
    target = rng.randint(50, 300)
    noun = NOUNS[index % len(NOUNS)]
    mention = " It follows the SamplingObserver hook order." if index in plan.decoys else ""
    lines = module_opening(rng, f"{noun.title()} handling for the {here.name.split('.')[1]} subsystem.{mention}", 3)
    imported = []
    for other in sorted(set(rng.sample(plan.plain, min(len(plan.plain), rng.randint(0, 3)))) - {index}):
        there = plan.modules[other]
        if there.package == here.package:
            lines.append(f"from .{there.name.rsplit('.', 1)[1]} import {primary_class(other)}")
        else:
            lines.append(f"from {there.name} import {primary_class(other)}")
        imported.append(primary_class(other))
    for chain, leaf in plan.users.get(index, []):
        family = plan.chains[chain]
        lines.append(f"from {plan.modules[leaf].name} import {family.class_name(len(family.levels) - 1)}")
    lines += ["", "logger = logging.getLogger(__name__)", "",
              f"DEFAULT_{noun.upper()}_LIMIT = {rng.randint(2, 4096)}", ""]
    if index in plan.users:
        names = [plan.chains[c].class_name(len(plan.chains[c].levels) - 1) for c, _ in plan.users[index]]
        lines += [f"REGISTERED_OUTPUTS = ({', '.join(names)},)", ""]
    opening, words = class_with_state(rng, primary_class(index),
                                      f"Keeps {noun}s in order and answers questions about them.")
    lines += opening
    text = "\n".join(lines) + "\n"
    count = len(lines)
    for _ in range(rng.randint(2, 6)):
        block = rng.choice(_METHODS).format(**words())
        text += block
        count += block.count("\n")
    for name in imported:
        block = (f"\n\ndef make_{name.lower()}() -> {name}:\n    instance = {name}()\n"
                 f"    logger.info(\"built %s\", instance)\n    return instance\n")
        text += block
        count += block.count("\n")
    while count < target:
        block = rng.choice(_FUNCTIONS).format(**words())
        text += block
        count += block.count("\n")
    return text


@dataclass
class Generated:
    path: Path
    n: int
    megabytes: float
    expected: dict[str, int]


def synthetic_project(workdir: Path, n: int) -> Generated:
    """The project for ``n`` files, generated once and kept (keyed by n, seed and generator version)."""
    path = workdir / "synthetic" / f"v{GENERATOR_VERSION}-seed{SYNTHETIC_SEED}-n{n}"

    def build(staging: Path) -> dict[str, object]:
        plan = plan_project(n, SYNTHETIC_SEED)
        total = _write_project(plan, staging)
        return {"n": n, "seed": SYNTHETIC_SEED, "generator": GENERATOR_VERSION, "megabytes": total / 1e6,
                "expected": plan.expected_findings, "chains": len(plan.chains)}

    meta = cached_project(path, f"synthetic {n}", build)
    return Generated(path, n, meta["megabytes"], meta["expected"])


def cached_project(path: Path, label: str, build: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """The metadata of the generated project at ``path``, which ``build`` writes (into a staging directory it
    is given, returning the metadata) only when no earlier run left it; the staging directory is renamed
    at the end, so a killed generation is never mistaken for one."""
    meta_path = path / "bench_meta.json"
    if meta_path.is_file():
        log(f"{label}: reusing {path.name}")
        return json.loads(meta_path.read_text())
    start = time.perf_counter()
    log(f"{label}: generating (kept for later runs)")
    staging = path.with_name(path.name + f".tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    meta = build(staging)
    (staging / "bench_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    shutil.rmtree(path, ignore_errors=True)
    staging.rename(path)
    log(f"{label}: {meta['megabytes']:.0f} MB in {time.perf_counter() - start:.1f}s")
    return meta


def _write_project(plan: Plan, root: Path) -> int:
    """Write every file of the plan under ``root``; returns the bytes written."""
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "synthetic-plugin"\nversion = "1.0.0"\n\n[tool.ruff]\n\n[tool.ppaux-lint]\n')
    return write_files(root, [m.path for m in plan.modules], functools.partial(render, plan))


_RENDER: Callable[[int], str] | None = None  # what renders file i, inherited by forked writer processes


def write_files(root: Path, paths: Sequence[str], render_file: Callable[[int], str]) -> int:
    """Write ``render_file(i)`` to ``root / paths[i]`` for every i (split across processes where fork is
    available, since rendering is most of a large project's generation); returns the bytes written."""
    global _RENDER
    for directory in sorted({os.path.dirname(p) for p in paths}):
        (root / directory).mkdir(parents=True, exist_ok=True)
    jobs = os.cpu_count() or 1
    parts = [(str(root), paths[k::jobs], range(k, len(paths), jobs)) for k in range(jobs)]
    _RENDER = render_file
    try:
        if jobs > 1 and sys.platform == "linux":
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                return sum(pool.starmap(_write_part, parts))
        return sum(_write_part(*part) for part in parts)
    finally:
        _RENDER = None


def _write_part(root: str, paths: Sequence[str], indices: Iterable[int]) -> int:
    render_file = _RENDER
    assert render_file is not None
    total = 0
    for path, index in zip(paths, indices, strict=True):
        data = render_file(index).encode()
        with open(os.path.join(root, path), "wb") as handle:
            handle.write(data)
        total += len(data)
    return total


@dataclass
class SyntheticResult:
    project: Generated
    samples: dict[str, list[Sample]]
    parsed: int
    cache_mb: float
    findings: dict[str, int]
    identical: bool


def bench_synthetic(project: Generated, runs: int, budget: float, ruff: list[str]) -> SyntheticResult:
    """Cold and warm runs on one synthetic project, each next to a ruff run, as on the SGLang tree.

    Up to ``runs`` rounds, but a round is started only if the rounds so far and one more like them
    fit in ``budget`` seconds: the largest projects take minutes a round, and one round of them says
    more about growth than three rounds say about noise.
    """
    samples: dict[str, list[Sample]] = {"ruff": [], "cold": [], "warm": []}
    ruff_argv = [*ruff, "check", "--no-cache", "--select", "F", "-q", "."]
    parsed, cache_mb = 0, 0.0
    run_timed(ruff_argv, project.path)  # warm-up: reads every file into the page cache
    start = time.perf_counter()
    for number in range(1, runs + 1):
        spent = time.perf_counter() - start
        if number > 1 and spent + spent / (number - 1) > budget:
            log(f"synthetic {project.n}: stopping after {number - 1} round(s), {spent:.0f}s of a {budget:.0f}s budget")
            break
        for scenario in ("cold", "warm"):
            if scenario == "cold":
                clean_cache(project.path)
            log(f"synthetic {project.n} round {number}/{runs}: ruff, then {scenario}")
            samples["ruff"].append(run_timed(ruff_argv, project.path))
            samples[scenario].append(run_timed(ppaux_check("."), project.path))
            if scenario == "cold" and number == 1:
                parsed, cache_mb = count_summaries(project.path), cache_megabytes(project.path)
    clean_cache(project.path)  # the largest project's cache is over a gigabyte; the project itself is kept
    reference = findings_of(samples["cold"][0])
    identical = all(findings_of(s) == reference for s in samples["cold"] + samples["warm"])
    counts: dict[str, int] = {}
    for finding in reference:
        code = json.loads(finding)["code"]
        counts[code] = counts.get(code, 0) + 1
    return SyntheticResult(project, samples, parsed, cache_mb, counts, identical)


# -- reporting -----------------------------------------------------------------------------------------


def median_seconds(samples: Sequence[Sample]) -> float:
    return statistics.median(s.seconds for s in samples)


def median_peak(samples: Sequence[Sample]) -> float:
    return statistics.median(s.peak_mib for s in samples)


def _runs(count: int) -> str:
    return f"median{'s' if count > 1 else ''} of {count} interleaved run{'s' if count > 1 else ''}"


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_tree_table(tree: TreeResults, libcst_estimate: LibcstEstimate | None, isolation: IsolationCost | None,
                     runs: int, files: int, megabytes: float) -> list[str]:
    """The main table; returns the misses, for the closing summary."""
    ruff = median_seconds(tree.samples["ruff"])
    misses = []
    print(f"\nSGLang 0.5.23: {files} .py files, {megabytes:.1f} MB; {_runs(runs)} "
          f"(ruff: {len(tree.samples['ruff'])} runs, one before each ppaux-lint run)")
    header = f"{'scenario':<40} {'median s':>9} {'min-max s':>13} {'x ruff':>7} {'peak MiB':>9}  {'target':<11} result"
    print(header)
    print("-" * len(header))
    for name in ("ruff", *SCENARIOS):
        samples = tree.samples[name]
        seconds = median_seconds(samples)
        ratio = seconds / ruff
        spread = f"{min(s.seconds for s in samples):.2f}-{max(s.seconds for s in samples):.2f}"
        target, result = "", ""
        if name in RATIO_TARGETS:
            target = f"<= {RATIO_TARGETS[name]:.1f}x"
            result = _verdict(ratio <= RATIO_TARGETS[name])
            if result == "MISS":
                misses.append(f"{LABELS[name]}: {ratio:.2f}x ruff (target {target})")
        print(f"{LABELS[name]:<40} {seconds:>9.3f} {spread:>13} {ratio:>6.2f}x "
              f"{median_peak(samples):>9.1f}  {target:<11} {result}")
    cold_peak = max(s.peak_mib for s in tree.samples["cold"])
    memory_ok = cold_peak <= COLD_MEMORY_TARGET_MIB
    if not memory_ok:
        misses.append(f"cold peak memory {cold_peak:.1f} MiB (target <= {COLD_MEMORY_TARGET_MIB:.0f} MiB)")
    print(f"{'cold peak memory (max of runs)':<40} {'':>9} {'':>13} {'':>7} {cold_peak:>9.1f}  "
          f"{'<= 100 MiB':<11} {_verdict(memory_ok)}")
    if libcst_estimate is not None:
        e = libcst_estimate
        label = "naive libcst parse (estimated full tree)"
        print(f"{label:<40} {e.estimate:>9.1f} {'':>13} {e.estimate / ruff:>6.0f}x")
        print(f"  from {e.sample_files} files (seed 0, {e.sample_bytes / 1e6:.2f} MB) "
              f"parsed in {e.sample_seconds:.2f}s, "
              f"scaled by bytes to {e.tree_bytes / 1e6:.1f} MB"
              + (f"; {e.failures} of them did not parse" if e.failures else ""))
    if isolation is not None:
        i = isolation
        inside, outside = statistics.median(i.in_process), statistics.median(i.isolated)
        print(f"parser isolation on the {i.files} first-pass candidates ({i.bytes / 1e3:.0f} kB), "
              f"medians of {len(i.in_process)}:")
        print(f"  in-process {inside:.3f}s, isolated in a worker {outside:.3f}s: costs {outside - inside:+.3f}s "
              f"({(outside - inside) / ruff:+.2f}x ruff); same summaries: {'yes' if i.same_summaries else 'NO'}")
    print(f"files parsed by a cold run: {tree.parsed} of {files}")
    if tree.findings_problems:
        misses.append("findings differ between runs")
        print("findings identical across cold / no-cache / warm / one-file / pre-commit: NO")
        for problem in tree.findings_problems:
            print(f"  {problem}")
    else:
        print(f"findings identical across cold / no-cache / warm / one-file / pre-commit: yes "
              f"({len(tree.reference)} finding{'s' if len(tree.reference) != 1 else ''})")
    return misses


def print_synthetic_table(results: Sequence[SyntheticResult]) -> list[str]:
    """One row per size, then how cold and warm time and memory grow from the smallest to the largest."""
    misses = []
    print(f"\nSynthetic plugin projects (generator v{GENERATOR_VERSION}, seed {SYNTHETIC_SEED}); medians of the "
          f"rounds run, each ppaux-lint run next to a ruff run")
    header = (f"{'files':>6} {'MB':>5} {'runs':>4} {'ruff s':>7} {'cold s':>7} {'warm s':>7} {'cold/ruff':>9} "
              f"{'warm/ruff':>9} {'cold s/1k':>9} {'warm s/1k':>9} {'cold MiB':>8} {'warm MiB':>8} {'parsed':>6} "
              f"{'cache MB':>8}  findings (expected)")
    print(header)
    print("-" * len(header))
    for r in results:
        ruff = median_seconds(r.samples["ruff"])
        cold, warm = median_seconds(r.samples["cold"]), median_seconds(r.samples["warm"])
        detail = ", ".join(f"{code} {count}" for code, count in sorted(r.findings.items())) or "none"
        note = "" if r.findings == r.project.expected else "  MISMATCH"
        print(f"{r.project.n:>6} {r.project.megabytes:>5.0f} {len(r.samples['cold']):>4} {ruff:>7.2f} {cold:>7.2f} "
              f"{warm:>7.2f} {cold / ruff:>8.2f}x {warm / ruff:>8.2f}x {cold / r.project.n * 1000:>9.3f} "
              f"{warm / r.project.n * 1000:>9.3f} {median_peak(r.samples['cold']):>8.1f} "
              f"{median_peak(r.samples['warm']):>8.1f} {r.parsed:>6} {r.cache_mb:>8.1f}  "
              f"{sum(r.findings.values())} ({sum(r.project.expected.values())}): {detail}{note}"
              f"{'' if r.identical else '  NOT IDENTICAL cold/warm'}")
        if note:
            misses.append(f"synthetic {r.project.n}: findings {r.findings} != expected {r.project.expected}")
        if not r.identical:
            misses.append(f"synthetic {r.project.n}: findings differ between cold and warm runs")
    if len(results) > 1:
        small, large = min(results, key=lambda r: r.project.n), max(results, key=lambda r: r.project.n)
        print(f"growth from {small.project.n} to {large.project.n} files, as a power of the file count: "
              + ", ".join(f"{label} ~N^{_exponent(small, large, key):.2f}" for label, key in (
                  ("cold time", lambda r: median_seconds(r.samples["cold"])),
                  ("warm time", lambda r: median_seconds(r.samples["warm"])),
                  ("ruff time", lambda r: median_seconds(r.samples["ruff"])),
                  ("cold memory", lambda r: median_peak(r.samples["cold"])),
                  ("cache size", lambda r: r.cache_mb))))
    return misses


def _exponent(small: SyntheticResult, large: SyntheticResult, key) -> float:
    """k in value ~ N^k between two sizes: 1 is linear growth, 2 quadratic."""
    import math

    a, b = key(small), key(large)
    if a <= 0 or b <= 0:
        return float("nan")
    return math.log(b / a) / math.log(large.project.n / small.project.n)


def describe_machine(ruff: list[str]) -> str:
    from ppaux_lint import __version__

    version = subprocess.run([*ruff, "--version"], check=False, capture_output=True, text=True).stdout.strip()
    return (f"{platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"ppaux-lint {__version__}, {version}")


# -- main -----------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds on the SGLang tree (default 5)")
    parser.add_argument("--synthetic", default="1000,10000,50000",
                        help="comma-separated sizes of the synthetic projects (default 1000,10000,50000)")
    parser.add_argument("--synthetic-runs", type=int, default=3,
                        help="at most this many rounds per synthetic project (default 3)")
    parser.add_argument("--synthetic-budget", type=float, default=60.0, metavar="SECONDS",
                        help="start another round on a synthetic project only if it should end within this many "
                             "seconds of the first round's start (default 60; the first round always runs)")
    parser.add_argument("--skip-synthetic", action="store_true", help="only the SGLang tree")
    parser.add_argument("--workdir", type=Path, default=Path(__file__).resolve().parent / ".work",
                        help="downloads, the unpacked tree and generated projects (default benchmarks/.work)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.synthetic_runs < 1:
        parser.error("--runs and --synthetic-runs must be at least 1")
    try:
        args.sizes = [int(x) for x in args.synthetic.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--synthetic takes comma-separated integers, not {args.synthetic!r}")
    return args


def run_synthetic(workdir: Path, args: argparse.Namespace, ruff: list[str]) -> list[str]:
    """Every size in turn. A size whose run fails (a crash, or the kernel killing a run that outgrew
    memory) is reported and skipped, so the sizes that worked still get their table."""
    results, failures = [], []
    for n in args.sizes:
        try:
            project = synthetic_project(workdir, n)
            results.append(bench_synthetic(project, args.synthetic_runs, args.synthetic_budget, ruff))
        except BenchError as exc:
            log(f"synthetic {n}: failed")
            failures.append(f"synthetic {n}: failed: {exc}")
    misses = print_synthetic_table(results) if results else []
    for failure in failures:
        print(failure)
    return misses + failures


def closing_line(misses: Sequence[str], synthetic: bool) -> str:
    if misses:
        return "Missed:\n" + "\n".join(f"  - {m}" for m in misses)
    return ("All of issue 5's targets met on the SGLang tree, findings identical across runs"
            + (" and as the generator expects on the synthetic projects." if synthetic else "."))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    as_installed()
    measure([sys.executable, "-c", "pass"], workdir)  # start the launcher while this process is small
    misses: list[str] = []
    try:
        ruff = ruff_command()
        tree = unpack_tree(fetch_distribution(workdir), workdir)
        files = python_files(tree)
        if len(files) != EXPECTED_PY_FILES:
            log(f"warning: {len(files)} .py files under sglang/, not the {EXPECTED_PY_FILES} issue 5 describes")
        megabytes = sum(p.stat().st_size for p in files) / 1e6
        results = bench_tree(tree, args.runs, ruff, workdir / "auxiliary_output.py.orig")
        log("isolation cost: parsing the first-pass candidates in-process and in a worker")
        isolation = isolation_cost(tree, args.runs)
        log(f"naive libcst: parsing a sample of {LIBCST_SAMPLE} files")
        estimate = naive_libcst(tree)
        # The main table now, so it is on screen while the synthetic projects (minutes) run.
        print(f"$ python benchmarks/bench_speed.py {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
        print(describe_machine(ruff))
        misses += print_tree_table(results, estimate, isolation, args.runs, len(files), megabytes)
        sys.stdout.flush()
        if not args.skip_synthetic:
            misses += run_synthetic(workdir, args, ruff)
    except BenchError as exc:
        print(f"bench_speed: error: {exc}", file=sys.stderr)
        return 2
    finally:
        stop_launcher()
    print("\n" + closing_line(misses, synthetic=not args.skip_synthetic))
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
