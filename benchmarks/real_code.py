"""Check ppaux-lint against real code and compare each result with what it should be.

Each corpus is prepared if missing (``pip download --no-deps`` and an unzip, kept in the workdir), then
checked with ``ppaux-lint check --no-cache --output-format json`` as a subprocess. Per corpus the script
prints the number of ``.py`` files, the findings by code and symbol, the warnings ppaux-lint wrote on
stderr ("... its classes are not checked" and others), the wall time, and whether the result matches
the corpus's expectation. An untimed ``ppaux-lint inventory --output-format json`` of the same paths says how
many files discovery kept and how many outputs and observers were recognised: a corpus of which ppaux-lint
considered no file does not match, whatever it found. It exits 1 when any corpus that ran does not match,
2 when one could not be prepared.

    python benchmarks/real_code.py [--only NAME ...] [--json] [--workdir benchmarks/.work]
                                   [--upstream DIR] [--bare-dir DIR] [--source DIR] [--list]

Corpora (``--list`` prints them; ``--only`` takes a name or a shell pattern, and may be repeated):

- ``wheel-X`` (X = 0.5.20, 0.5.22, 0.5.23): ``sglang/`` unzipped from the wheel into a directory with no
  ``pyproject.toml`` or ``.git`` above it (``--bare-dir``, by default in the system temp directory: inside
  this repository the repository would become the project root), checked as ``sglang`` from there. This is
  a wheel as a user unpacks it, or as it sits in a site-packages.
- ``wheel-X+pyproject``: the same tree beside a ``pyproject.toml`` holding only a comment (in the workdir);
  a project marker, as ``bench_speed.py`` gives its tree.
- ``repo-X:python/sglang`` and ``repo-X:.``: SGLang's repository layout (a workspace ``pyproject.toml`` at
  the root, ``python/pyproject.toml`` naming the project ``sglang``, ``python/sglang/...``, ``git init`` at
  the root), checked as ``python/sglang`` and as ``.`` from the root.
- ``numba``: the newest numba and numba-cuda wheels (``pip download --no-deps numba numba-cuda``) unpacked
  side by side, beside a marker ``pyproject.toml``, checked as ``.``.
- ``site-packages``: each of this interpreter's ``site.getsitepackages()``, checked as ``.`` from it, in place.
- ``site-packages-copy``: the same files hard-linked into ``--bare-dir/sitepkgs-N``: in place, a site-packages
  is excluded by default (and here also lies in pyenv's git checkout, which ignores ``versions/``).
- ``upstream``: the forward-observer files and tests of upstream SGLang, extracted by hand into ``--upstream
  DIR`` (default ``<workdir>/upstream-sglang``; see benchmarks/README.md, "Real code"): copied into SGLang's
  repository layout and checked as ``.``. Skipped, with a message, when the directory is absent.

Expectations are in ``EXPECTED`` below; benchmarks/README.md explains each.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench_one_file import ppaux_lint

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SGLANG_VERSIONS = ("0.5.20", "0.5.22", "0.5.23")
COMPOSITE = "sglang.srt.managers.auxiliary_output.CompositeDeviceAuxiliaryOutput"
MARKER_TEXT = "# A project-root marker for ppaux-lint, written by benchmarks/real_code.py.\n"
ROOT_PYPROJECT = """\
# SGLang's repository layout, as benchmarks/real_code.py rebuilds it: a uv workspace at the root.
[project]
name = "sglang-workspace"
version = "0.0.0"

[tool.uv.workspace]
members = ["python"]

[tool.uv.sources]
sglang = { workspace = true }
"""
PYTHON_PYPROJECT = """\
[build-system]
requires = ["setuptools>=61.0"]
build-backend = "setuptools.build_meta"

[project]
name = "sglang"
version = "{version}"
"""
NOT_CHECKED = re.compile(r"not checked")


class PrepareError(Exception):
    """A corpus could not be prepared (no network, no wheel, a missing directory)."""


class Skip(Exception):
    """A corpus is left out on purpose (its input is absent), with the reason."""


# ---------------------------------------------------------------------------------------------------------
# Expectations


@dataclass(frozen=True)
class Want:
    """One expected finding: its code, and its symbol exactly or only the class name at the end of it (then
    also the file it is in, by the end of its path)."""

    code: str
    symbol: str | None = None
    class_name: str | None = None
    path_suffix: str | None = None

    def matches(self, finding: dict) -> bool:
        if finding.get("code") != self.code:
            return False
        symbol = finding.get("symbol") or ""
        if self.symbol is not None and symbol != self.symbol:
            return False
        if self.class_name is not None and symbol.rsplit(".", 1)[-1] != self.class_name:
            return False
        path = str(finding.get("path", "")).replace(os.sep, "/")
        return self.path_suffix is None or path.endswith(self.path_suffix)

    def __str__(self) -> str:
        what = self.symbol or f"{self.path_suffix}::{self.class_name}"
        return f"{self.code} {what}"


@dataclass
class Expectation:
    """Exactly ``findings`` (each once, nothing else), except findings ``allowed`` lets through; findings
    ``forbidden`` names are called out by name when present; ``no_not_checked`` also asks for no
    "not checked" warning."""

    text: str
    findings: tuple[Want, ...] = ()
    allowed: Callable[[dict], bool] | None = None
    forbidden: tuple[tuple[str, Callable[[dict], bool]], ...] = ()
    no_not_checked: bool = False

    def judge(self, findings: list[dict], warnings: list[str], rc: int, files: int, seen: int | None) -> list[str]:
        problems: list[str] = []
        if rc not in (0, 1):
            problems.append(f"ppaux-lint exited {rc}")
        if files and seen == 0:
            problems.append(f"vacuous: ppaux-lint considered none of the {files} .py files (excluded or ignored)")
        left = list(findings)
        for want in self.findings:
            hit = next((f for f in left if want.matches(f)), None)
            if hit is None:
                problems.append(f"missing: {want}")
            else:
                left.remove(hit)
        for label, test in self.forbidden:
            for f in [f for f in left if test(f)]:
                problems.append(f"{label}: {f['code']} {f.get('symbol')}")
                left.remove(f)
        for f in left:
            if self.allowed is None or not self.allowed(f):
                problems.append(f"unexpected: {f['code']} {f.get('symbol')} ({f.get('path')}:{f.get('line')})")
        if self.no_not_checked:
            count = sum(1 for w in warnings if NOT_CHECKED.search(w))
            if count:
                problems.append(f"{count} 'not checked' warning(s)")
        return problems


def _in_file(suffix: str) -> Callable[[dict], bool]:
    return lambda f: str(f.get("path", "")).replace(os.sep, "/").endswith(suffix)


def _inside_sglang(f: dict) -> bool:
    parts = Path(str(f.get("path", ""))).parts
    return "sglang" in parts


SGLANG_ONE = Expectation(
    text=f"exactly one finding, PPA001 {COMPOSITE}; no 'not checked' warning",
    findings=(Want("PPA001", symbol=COMPOSITE),),
    no_not_checked=True,
)
UPSTREAM_FORWARD_TEST = "test/registered/unit/model_executor/test_forward_observer.py"
UPSTREAM_SAMPLING_TEST = "test/registered/unit/sampling/test_sampling_observer.py"
UPSTREAM = Expectation(
    text=(
        f"PPA001 {COMPOSITE}, PPA001 test_sampling_observer._DeviceOutput; nothing in test_forward_observer.py "
        "(DeviceOutput is returned only by a forward observer) nor in test_sampling_observer_pp.py, and no PPA002 "
        "on test_sampling_observer._Observer (its after_sample returns None, so nothing crosses a stage "
        "and the pop helper never looks at it); no 'not checked' warning"
    ),
    findings=(
        Want("PPA001", symbol=COMPOSITE),
        Want("PPA001", class_name="_DeviceOutput", path_suffix=UPSTREAM_SAMPLING_TEST),
    ),
    forbidden=(("forward-observer test class reported", _in_file(UPSTREAM_FORWARD_TEST)),),
    no_not_checked=True,
)
NOTHING = Expectation(text="zero findings")
SITE_PACKAGES = Expectation(
    text="zero findings, except inside an installed sglang (there should be none)", allowed=_inside_sglang
)


# ---------------------------------------------------------------------------------------------------------
# Preparing corpora


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def pip_download(requirements: list[str], dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(dest)]
    log(f"  $ pip download --no-deps --only-binary=:all: -d {dest} {' '.join(requirements)}")
    done = subprocess.run(command + requirements, capture_output=True, text=True)
    if done.returncode != 0:
        raise PrepareError(f"pip download {' '.join(requirements)} failed:\n{done.stderr.strip()[-2000:]}")


def sglang_wheel(workdir: Path, version: str) -> Path:
    dist = workdir / "dist"
    pattern = f"sglang-{version}-*.whl"
    found = sorted(dist.glob(pattern))
    if not found:
        pip_download([f"sglang=={version}"], dist)
        found = sorted(dist.glob(pattern))
    if not found:
        raise PrepareError(f"no {pattern} in {dist} after pip download")
    return found[0]


def unzip(wheel: Path, dest: Path, top: str | None) -> None:
    """Unzip the wheel's members under ``top/`` (all of them when None) into ``dest``."""
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if top is None or m.startswith(top + "/")]
        archive.extractall(dest, members)


def complete(directory: Path) -> bool:
    return (directory / ".real_code_complete").is_file()


def mark_complete(directory: Path, note: str) -> None:
    (directory / ".real_code_complete").write_text(note + "\n")


def linked_copy(source: Path, dest: Path) -> None:
    """Copy a tree by hard links (cheap, same file system), falling back to copying."""

    shutil.copytree(source, dest, copy_function=_link_or_copy, symlinks=True)


def prepare_wheel_tree(workdir: Path, version: str) -> Path:
    """``<workdir>/real-code-sglang-X/wheel``: ``sglang/`` from the wheel beside a marker pyproject.toml."""
    root = workdir / f"real-code-sglang-{version}" / "wheel"  # not bench_speed.py's tree, which it would join
    if complete(root):
        return root
    wheel = sglang_wheel(workdir, version)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    log(f"  unzip sglang/* from {wheel.name} into {root}")
    unzip(wheel, root, "sglang")
    (root / "pyproject.toml").write_text(MARKER_TEXT)
    mark_complete(root, wheel.name)
    return root


def marker_above(directory: Path) -> Path | None:
    for parent in [directory, *directory.parents]:
        for marker in ("pyproject.toml", ".git"):
            if (parent / marker).exists():
                return parent / marker
    return None


def prepare_bare(workdir: Path, bare_dir: Path, version: str) -> Path:
    """``<bare-dir>/sglang-X``: the wheel's ``sglang/`` and nothing else, with no project marker above."""
    source = prepare_wheel_tree(workdir, version)
    root = bare_dir / f"sglang-{version}"
    if not complete(root):
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        linked_copy(source / "sglang", root / "sglang")
        mark_complete(root, f"sglang {version}")
    found = marker_above(root)
    if found is not None:
        raise PrepareError(f"{found} lies above {root}: the tree would not be bare; pass --bare-dir elsewhere")
    return root


def init_repo_layout(root: Path, version: str) -> None:
    (root / "pyproject.toml").write_text(ROOT_PYPROJECT)
    (root / "python").mkdir(exist_ok=True)
    (root / "python" / "pyproject.toml").write_text(PYTHON_PYPROJECT.format(version=version))
    done = subprocess.run(["git", "init", "-q", str(root)], capture_output=True, text=True)
    if done.returncode != 0:
        raise PrepareError(f"git init {root} failed: {done.stderr.strip()}")


def prepare_repo(workdir: Path, version: str) -> Path:
    """``<workdir>/real-code-sglang-X/repo``: SGLang's repository layout around the wheel's ``sglang/``."""
    source = prepare_wheel_tree(workdir, version)
    root = workdir / f"real-code-sglang-{version}" / "repo"
    if complete(root):
        return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    linked_copy(source / "sglang", root / "python" / "sglang")
    init_repo_layout(root, version)
    mark_complete(root, f"sglang {version}")
    return root


def prepare_numba(workdir: Path) -> Path:
    root = workdir / "numba"
    if complete(root):
        return root
    dist = workdir / "dist" / "numba"
    wheels = {name: sorted(dist.glob(f"{name}-*.whl")) for name in ("numba", "numba_cuda")}
    missing = [name.replace("_", "-") for name, found in wheels.items() if not found]
    if missing:
        pip_download(missing, dist)
        wheels = {name: sorted(dist.glob(f"{name}-*.whl")) for name in ("numba", "numba_cuda")}
    if not all(wheels.values()):
        raise PrepareError(f"numba or numba-cuda wheel missing from {dist}")
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    names = []
    for found in wheels.values():
        log(f"  unzip {found[-1].name} into {root}")
        unzip(found[-1], root, None)
        names.append(found[-1].name)
    (root / "pyproject.toml").write_text(MARKER_TEXT)
    mark_complete(root, " ".join(names))
    return root


def prepare_site_copy(bare_dir: Path, index: int, directory: str) -> Path:
    """``<bare-dir>/sitepkgs-N``: every file of a site-packages (no ``__pycache__``), hard-linked, in a directory
    that is neither named ``site-packages`` (a default exclude) nor under a project marker; rebuilt when the
    site-packages' top-level listing changes."""
    source = Path(directory)
    root = bare_dir / f"sitepkgs-{index}"
    listing = "\n".join([str(source), *sorted(os.listdir(source))])
    stamp = root / ".real_code_complete"
    if not (stamp.is_file() and stamp.read_text() == listing + "\n"):
        if root.exists():
            shutil.rmtree(root)
        log(f"  hard-linking {source} into {root}")
        shutil.copytree(
            source,
            root,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__"),
            copy_function=_link_or_copy,
        )
        mark_complete(root, listing)
    found = marker_above(root)
    if found is not None:
        raise PrepareError(f"{found} lies above {root}; pass --bare-dir elsewhere")
    return root


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def prepare_upstream(workdir: Path, upstream: Path | None) -> Path:
    source = upstream if upstream is not None else workdir / "upstream-sglang"
    if not (source / "python" / "sglang").is_dir():
        raise Skip(
            f"no upstream tree at {source} (expected python/sglang/... and test/... inside): extract upstream "
            "SGLang's forward-observer files and tests there (benchmarks/README.md, 'Real code') and pass "
            "--upstream DIR"
        )
    root = workdir / "upstream-tree"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for part in ("python", "test"):
        if (source / part).is_dir():
            shutil.copytree(source / part, root / part)
    init_repo_layout(root, "upstream")
    return root


# ---------------------------------------------------------------------------------------------------------
# Corpora


@dataclass
class Corpus:
    name: str
    prepare: Callable[[argparse.Namespace], Path]  # returns the directory to run in
    paths: tuple[str, ...]
    expectation: Expectation
    note: str = ""


def corpora() -> list[Corpus]:
    found: list[Corpus] = []
    for version in SGLANG_VERSIONS:
        found.append(
            Corpus(
                f"wheel-{version}",
                lambda a, v=version: prepare_bare(a.workdir, a.bare_dir, v),
                ("sglang",),
                SGLANG_ONE,
                "bare unpack, no marker above",
            )
        )
        found.append(
            Corpus(
                f"wheel-{version}+pyproject",
                lambda a, v=version: prepare_wheel_tree(a.workdir, v),
                ("sglang",),
                SGLANG_ONE,
                "unpack beside a marker pyproject.toml",
            )
        )
        for path in ("python/sglang", "."):
            found.append(
                Corpus(
                    f"repo-{version}:{path}",
                    lambda a, v=version: prepare_repo(a.workdir, v),
                    (path,),
                    SGLANG_ONE,
                    "repository layout, git init",
                )
            )
    found.append(Corpus("numba", lambda a: prepare_numba(a.workdir), (".",), NOTHING, "numba + numba-cuda wheels"))
    for index, directory in enumerate(site.getsitepackages()):
        name = "site-packages" if index == 0 else f"site-packages-{index}"
        found.append(Corpus(name, lambda a, d=directory: Path(d), (".",), SITE_PACKAGES, f"{directory}, in place"))
        found.append(
            Corpus(
                f"{name}-copy",
                lambda a, i=index, d=directory: prepare_site_copy(a.bare_dir, i, d),
                (".",),
                SITE_PACKAGES,
                f"{directory}, hard-linked into --bare-dir",
            )
        )
    found.append(
        Corpus("upstream", lambda a: prepare_upstream(a.workdir, a.upstream), (".",), UPSTREAM, "repository layout")
    )
    return found


# ---------------------------------------------------------------------------------------------------------
# Running


def count_py(root: Path, paths: tuple[str, ...]) -> int:
    total = 0
    for path in paths:
        start = root / path
        for _directory, dirs, files in os.walk(start):
            dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
            total += sum(1 for f in files if f.endswith(".py"))
    return total


def tool(args: argparse.Namespace) -> list[str]:
    """How to start ppaux-lint: the installed command (beside this Python's, so that the script runs from an
    environment that is not activated: ``bench_one_file.ppaux_lint``), or ``python -m ppaux_lint`` from
    ``--source``."""
    return ppaux_lint() if args.source is None else [sys.executable, "-m", "ppaux_lint"]


def tool_env(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ, NO_COLOR="1")
    if args.source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.source), *filter(None, [env.get("PYTHONPATH")])])
    return env


def inventory(args: argparse.Namespace, cwd: Path, paths: tuple[str, ...]) -> tuple[int | None, dict]:
    """How many files ppaux-lint's discovery kept, and how many outputs and observers it recognised
    (``inventory --output-format json``, untimed); None when the inventory failed."""
    done = subprocess.run(
        [*tool(args), "inventory", "--output-format", "json", *paths],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=tool_env(args),
    )
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        return None, {}
    kinds = {
        "outputs": sum(1 for c in data.get("outputs", []) if not c.get("interface")),
        "observers": sum(1 for c in data.get("observers", []) if not c.get("interface")),
    }
    return len(data.get("files", [])), kinds


def run_corpus(corpus: Corpus, args: argparse.Namespace) -> dict:
    result: dict = {"name": corpus.name, "note": corpus.note, "expectation": corpus.expectation.text}
    log(f"[{corpus.name}] preparing")
    try:
        cwd = corpus.prepare(args)
    except Skip as skip:
        result.update(status="skipped", reason=str(skip))
        return result
    except PrepareError as error:
        result.update(status="error", reason=str(error))
        return result
    command = ["ppaux-lint", "check", "--no-cache", "--output-format", "json", *corpus.paths]
    result.update(cwd=str(cwd), command=" ".join(command), files=count_py(cwd, corpus.paths))
    log(f"[{corpus.name}] (cd {cwd} && {' '.join(command)})")
    start = time.perf_counter()
    done = subprocess.run(tool(args) + command[1:], cwd=cwd, capture_output=True, text=True, env=tool_env(args))
    wall = time.perf_counter() - start
    try:
        findings = json.loads(done.stdout) if done.stdout.strip() else []
    except json.JSONDecodeError:
        findings = []
        result["stdout_tail"] = done.stdout[-2000:]
    seen, recognised = inventory(args, cwd, corpus.paths)
    stderr_lines = [line for line in done.stderr.splitlines() if line.strip()]
    warnings = [line for line in stderr_lines if "warning" in line.lower()]
    by_key = collections.Counter(f"{f.get('code')} {f.get('symbol')}" for f in findings)
    problems = corpus.expectation.judge(findings, warnings, done.returncode, result["files"], seen)
    result.update(
        status="match" if not problems else "MISMATCH",
        rc=done.returncode,
        considered=seen,
        recognised=recognised,
        wall_s=round(wall, 2),
        findings=[{k: f.get(k) for k in ("code", "symbol", "path", "line", "message")} for f in findings],
        by_code=dict(collections.Counter(f.get("code") for f in findings)),
        by_symbol=dict(by_key),
        warnings=warnings,
        not_checked=sum(1 for w in warnings if NOT_CHECKED.search(w)),
        other_stderr=[line for line in stderr_lines if line not in warnings][:20],
        problems=problems,
    )
    return result


def print_result(result: dict) -> None:
    name, status = result["name"], result["status"]
    print(f"== {name}: {status}")
    if status in ("skipped", "error"):
        print(f"   {result['reason']}")
        return
    print(f"   {result['command']}   (in {result['cwd']})")
    print(f"   expected: {result['expectation']}")
    seen = "?" if result["considered"] is None else result["considered"]
    kinds = result["recognised"]
    print(
        f"   {result['files']} .py files, {seen} considered by ppaux-lint; {result['wall_s']:.2f} s, "
        f"exit {result['rc']}; recognised {kinds.get('outputs', '?')} outputs, "
        f"{kinds.get('observers', '?')} observers (not interfaces)"
    )
    codes = ", ".join(f"{code} {n}" for code, n in sorted(result["by_code"].items())) or "none"
    print(f"   findings: {len(result['findings'])} ({codes})")
    for key, n in sorted(result["by_symbol"].items()):
        print(f"     {n} x {key}")
    print(f"   warnings on stderr: {len(result['warnings'])} ({result['not_checked']} 'not checked')")
    for line in result["warnings"][:8]:
        print(f"     {line}")
    if len(result["warnings"]) > 8:
        print(f"     ... {len(result['warnings']) - 8} more")
    for line in result["other_stderr"]:
        print(f"   stderr: {line}")
    for problem in result["problems"]:
        print(f"   - {problem}")


def summary_table(results: list[dict]) -> str:
    rows = [("corpus", ".py files", "considered", "findings", "not checked", "wall s", "result")]
    for r in results:
        if r["status"] in ("skipped", "error"):
            rows.append((r["name"], "", "", "", "", "", r["status"]))
            continue
        codes = ", ".join(f"{c}x{n}" for c, n in sorted(r["by_code"].items())) or "0"
        seen = "?" if r["considered"] is None else str(r["considered"])
        row = (r["name"], str(r["files"]), seen, codes, str(r["not_checked"]), f"{r['wall_s']:.2f}", r["status"])
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def header(args: argparse.Namespace) -> dict:
    version = subprocess.run(
        [*tool(args), "--version"], capture_output=True, text=True, env=tool_env(args), cwd=tempfile.gettempdir()
    ).stdout.strip()
    if args.source is not None:
        return {"ppaux_lint": version, "source": str(args.source), "python": sys.version.split()[0]}
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(REPO), "status", "--porcelain", "--", "ppaux_lint"], capture_output=True, text=True
    )
    return {
        "ppaux_lint": version,
        "commit": head.stdout.strip(),
        "ppaux_lint_dirty": sorted(line[3:] for line in dirty.stdout.splitlines()),
        "python": sys.version.split()[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="a corpus name or shell pattern (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    parser.add_argument("--workdir", type=Path, default=HERE / ".work", help="downloads and unpacked trees")
    parser.add_argument("--upstream", type=Path, help="the extracted upstream tree (default <workdir>/upstream-sglang)")
    parser.add_argument(
        "--bare-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "ppaux-lint-real-code",
        help="where the bare wheel trees go: a directory with no pyproject.toml or .git above it",
    )
    parser.add_argument(
        "--source",
        type=Path,
        help="run `python -m ppaux_lint` with this directory on PYTHONPATH (e.g. a `git archive` export of a "
        "commit) instead of the installed ppaux-lint",
    )
    parser.add_argument("--list", action="store_true", help="list the corpora and exit")
    args = parser.parse_args(argv)
    args.workdir = args.workdir.resolve()
    args.bare_dir = args.bare_dir.resolve()
    if args.upstream is not None:
        args.upstream = args.upstream.resolve()
    if args.source is not None:
        args.source = args.source.resolve()
        if not (args.source / "ppaux_lint" / "__main__.py").is_file():
            parser.error(f"--source {args.source} has no ppaux_lint/__main__.py")

    chosen = corpora()
    if args.list:
        for corpus in chosen:
            print(f"{corpus.name:28} {corpus.note}; expected: {corpus.expectation.text}")
        return 0
    if args.only:
        chosen = [c for c in chosen if any(c.name == p or fnmatch.fnmatchcase(c.name, p) for p in args.only)]
        if not chosen:
            parser.error(f"no corpus matches {args.only}; --list shows them")

    info = header(args)
    results = []
    for corpus in chosen:
        result = run_corpus(corpus, args)
        results.append(result)
        if not args.json:
            print_result(result)
            sys.stdout.flush()
    if args.json:
        print(json.dumps({"header": info, "results": results}, indent=2))
    else:
        print()
        if args.source is not None:
            print(f"{info['ppaux_lint']} from {info['source']}, Python {info['python']}")
        else:
            dirty = ", ".join(info["ppaux_lint_dirty"]) or "none"
            print(
                f"{info['ppaux_lint']} (installed) at {info['commit']} (uncommitted in ppaux_lint/: {dirty}), "
                f"Python {info['python']}"
            )
        print(summary_table(results))
    if any(r["status"] == "error" for r in results):
        return 2
    return 1 if any(r["status"] == "MISMATCH" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
