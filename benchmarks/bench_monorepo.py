#!/usr/bin/env python3
"""How fast ppaux-lint checks a plugin monorepo where a quarter of the files matter, against ruff (issue 16).

    python benchmarks/bench_monorepo.py [--runs 5] [--files 10000] [--workdir benchmarks/.work]

On the SGLang tree the prefilter keeps 8 of 4,719 files, so ``check`` does little but read bytes. A
monorepo of plugin packages is the opposite case: every package defines outputs and observers whose bases
live in other packages, so about a quarter of the files contain a token and must be parsed, and resolving
a class means following imports across packages. This script generates such a tree (seeded, kept in the
workdir, regenerated only when its size, seed or generator version changes), then times
``ppaux-lint check --no-cache .`` against ``ruff check --no-cache --select F .`` on it, interleaved
(ruff, ppaux-lint, ruff, ppaux-lint, ...), and prints the medians, the median of the per-round ratios,
the peak memory and whether every ppaux-lint run reported the same findings (and the ones the generator
planted).

The tree (``packages/<name>/pyproject.toml`` and ``packages/<name>/src/<pkg>/...``, 60 packages):

- each package is home to a few *families*: a 4-level hierarchy of output classes, level 0 in the home
  package (subclassing SGLang's ``DeviceAuxiliaryOutput``), each later level in another package, naming
  the level above through an absolute import, the ``outputs`` subpackage's re-export, the top package's
  re-export, ``import a.b as m`` or ``from pkg.outputs import module``, with a factory building an instance
  of its own; each family has an observer;
- every fourth family lacks ``to_pp_tensors`` above some level (PPA001s), every fifth observer lacks
  ``from_pp_tensors`` (a PPA002);
- each package's ``serving/registry.py`` imports the leaves of families from other packages, and a few
  ordinary modules mention ``SamplingObserver`` in a docstring (files the prefilter keeps for nothing);
- the rest (about three quarters) is ordinary torch code of 50-300 lines: ``nn.Module`` layers, kernels,
  data helpers, importing each other within and across packages.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench_speed import (
    _FUNCTIONS,
    _METHODS,
    _TO_PP,
    NOUNS,
    BenchError,
    Sample,
    as_installed,
    cached_project,
    class_with_state,
    describe_machine,
    findings_of,
    log,
    measure,
    median_peak,
    median_seconds,
    module_opening,
    observer_source,
    ppaux_check,
    ruff_command,
    run_timed,
    stop_launcher,
    write_files,
)

GENERATOR_VERSION = 2  # bump when the generated tree changes, so cached ones are regenerated
SEED = 20261201
PACKAGES = 60
LEVELS = 4
RELEVANT_SHARE = 0.25
RATIO_TARGET = 2.0  # issue 16: check --no-cache at most this many times ruff --no-cache --select F
ORDINARY_SUBPACKAGES = ("models", "layers", "kernels", "data", "utils", "training")
RELEVANT_KINDS = ("top", "outputs-init", "level", "observer", "registry")  # the files that name the protocol
LEVEL_STYLES = ("absolute", "reexport-outputs", "reexport-top", "module-alias", "submodule")


@dataclass(frozen=True)
class Family:
    """One output hierarchy: level ``l`` lives in package ``packages[l]``; a broken family defines
    ``to_pp_tensors`` first at level ``fixed_at``, so levels below it are PPA001 findings."""

    home: int
    number: int
    packages: tuple[int, ...]
    styles: tuple[str, ...]  # how level l names level l-1 (styles[0] is the root import)
    fixed_at: int
    overrides: tuple[bool, ...]
    observer_package: int
    observer_ok: bool


@dataclass(frozen=True)
class File:
    path: str  # relative to the tree's root
    module: str
    package: int
    kind: str  # "top", "init", "outputs-init", "level", "observer", "registry", "plain"
    family: int = -1
    level: int = 0


@dataclass
class Tree:
    """Everything needed to render any file alone, so rendering can be split across processes."""

    seed: int
    names: list[str]  # each package's import name
    families: list[Family]
    files: list[File]
    plain: list[int]  # indices of the ordinary modules
    registry_uses: dict[int, list[int]]  # package -> families whose leaves its registry imports
    decoys: set[int]

    @property
    def expected_findings(self) -> dict[str, int]:
        return {"PPA001": sum(f.fixed_at for f in self.families),
                "PPA002": sum(1 for f in self.families if not f.observer_ok)}

    def class_name(self, family: int, level: int) -> str:
        f = self.families[family]
        return f"{_camel(self.names[f.home])}F{f.number}L{level}Output"

    def level_module(self, family: int, level: int) -> str:
        f = self.families[family]
        return f"{self.names[f.packages[level]]}.outputs.{self.names[f.home]}_f{f.number}_l{level}"

    def outputs_of(self, package: int) -> list[tuple[str, str]]:
        """(submodule, class) of every output class that lives in ``package``, for its re-exports."""
        return [(self.level_module(i, level).rsplit(".", 1)[1], self.class_name(i, level))
                for i, f in enumerate(self.families) for level in range(LEVELS) if f.packages[level] == package]


def _camel(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def package_names() -> list[str]:
    suffixes = ("kit", "ops", "serve")
    return [f"{NOUNS[i % len(NOUNS)]}_{suffixes[i // len(NOUNS)]}" for i in range(PACKAGES)]


def plan_tree(n: int, seed: int) -> Tree:
    """Decide, from the seed alone, what every file holds; rendering then needs no more decisions."""
    per_package = n // PACKAGES
    families_per_package = max(1, round((per_package * RELEVANT_SHARE - 4) / (LEVELS + 1)))
    if per_package < 4 + (LEVELS + 1) * families_per_package + len(ORDINARY_SUBPACKAGES) * 2:
        raise BenchError(f"a monorepo of {PACKAGES} packages needs more than {n} files")
    rng = random.Random(seed)
    names = package_names()
    families = []
    for home in range(PACKAGES):
        for number in range(families_per_package):
            others = rng.sample([p for p in range(PACKAGES) if p != home], LEVELS)
            count = len(families)
            broken = count % 4 == 1
            fixed_at = rng.randint(1, LEVELS - 2) if broken else 0
            overrides = tuple(not broken if level == 0 else (level == fixed_at if broken and level <= fixed_at
                                                             else rng.random() < 0.3) for level in range(LEVELS))
            styles = ("root", *(rng.choice(LEVEL_STYLES) for _ in range(1, LEVELS)))
            families.append(Family(home, number, (home, *others[:LEVELS - 1]), styles, fixed_at, overrides,
                                   others[-1] if rng.random() < 0.5 else home, count % 5 != 2))
    tree = Tree(seed, names, families, [], [], {}, set())
    for package, name in enumerate(names):
        src = f"packages/{name.replace('_', '-')}/src/{name}"
        tree.files += [File(f"{src}/__init__.py", name, package, "top"),
                       File(f"{src}/outputs/__init__.py", f"{name}.outputs", package, "outputs-init"),
                       File(f"{src}/observers/__init__.py", f"{name}.observers", package, "init"),
                       File(f"{src}/serving/__init__.py", f"{name}.serving", package, "init"),
                       File(f"{src}/serving/registry.py", f"{name}.serving.registry", package, "registry")]
        for index, family in enumerate(families):
            for level in range(LEVELS):
                if family.packages[level] == package:
                    module = tree.level_module(index, level)
                    tree.files.append(File(f"{src}/outputs/{module.rsplit('.', 1)[1]}.py", module, package,
                                           "level", index, level))
            if family.observer_package == package:
                short = f"{names[family.home]}_f{family.number}_observer"
                tree.files.append(File(f"{src}/observers/{short}.py", f"{name}.observers.{short}", package,
                                       "observer", index))
        for sub in ORDINARY_SUBPACKAGES:
            tree.files.append(File(f"{src}/{sub}/__init__.py", f"{name}.{sub}", package, "init"))
        size = per_package + (package < n % PACKAGES)
        slots = max(0, size - sum(1 for f in tree.files if f.package == package))
        for slot in range(slots):
            sub = ORDINARY_SUBPACKAGES[slot % len(ORDINARY_SUBPACKAGES)]
            short = f"{NOUNS[(slot * 7 + package) % len(NOUNS)]}_{slot // len(ORDINARY_SUBPACKAGES)}"
            tree.plain.append(len(tree.files))
            tree.files.append(File(f"{src}/{sub}/{short}.py", f"{name}.{sub}.{short}", package, "plain"))
    for package in range(PACKAGES):
        foreign = [i for i, f in enumerate(families) if f.packages[-1] != package]
        tree.registry_uses[package] = sorted(rng.sample(foreign, min(3, len(foreign))))
    tree.decoys = {i for i in tree.plain if rng.random() < 0.005}
    return tree


def render(tree: Tree, index: int) -> str:
    file = tree.files[index]
    if file.kind in ("top", "init"):
        return _render_init(tree, file)
    if file.kind == "outputs-init":
        lines = [f'"""Auxiliary outputs of {file.module.split(".")[0]}."""', ""]
        lines += [f"from .{sub} import {cls}" for sub, cls in sorted(tree.outputs_of(file.package))]
        return "\n".join(lines) + "\n"
    if file.kind == "level":
        return _render_level(tree, file.family, file.level)
    if file.kind == "observer":
        return _render_observer(tree, file.family)
    if file.kind == "registry":
        return _render_registry(tree, file.package)
    return _render_plain(tree, index)


def _render_init(tree: Tree, file: File) -> str:
    lines = [f'"""The {file.module} package."""', ""]
    if file.kind == "top":  # the top package re-exports its outputs
        names = sorted(cls for _, cls in tree.outputs_of(file.package))
        if names:
            lines += ["from .outputs import (", *(f"    {cls}," for cls in names), ")", ""]
        lines.append('__version__ = "0.4.0"')
    return "\n".join(lines) + "\n"


def _reference(tree: Tree, family: int, level: int, style: str) -> tuple[list[str], str]:
    """The import lines that bring level ``level`` of ``family`` into another package, and its expression."""
    module, name = tree.level_module(family, level), tree.class_name(family, level)
    top, short = module.split(".")[0], module.rsplit(".", 1)[1]
    if style == "reexport-outputs":
        return [f"from {top}.outputs import {name}"], name
    if style == "reexport-top":
        return [f"from {top} import {name}"], name
    if style == "module-alias":
        return [f"import {module} as {short}_mod"], f"{short}_mod.{name}"
    if style == "submodule":
        return [f"from {top}.outputs import {short}"], f"{short}.{name}"
    return [f"from {module} import {name}"], name


def _render_level(tree: Tree, index: int, level: int) -> str:
    family = tree.families[index]
    name = tree.class_name(index, level)
    if level == 0:
        imports, base = ["from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput"], \
            "DeviceAuxiliaryOutput"
    else:
        imports, base = _reference(tree, index, level - 1, family.styles[level])
    lines = [f'"""Level {level} of the {tree.names[family.home]} family {family.number}."""', "",
             "from __future__ import annotations", "", "from dataclasses import dataclass", "", "import torch", "",
             *imports, "", "", "@dataclass", f"class {name}({base}):",
             f'    """Adds {NOUNS[(index + level) % len(NOUNS)]} bookkeeping to the level above."""', ""]
    if level == 0:
        lines += ["    token_ids: torch.Tensor", "    scores: torch.Tensor", "",
                  "    def copy_to_host(self, copy_tensor):",
                  "        return type(self)(copy_tensor(self.token_ids), copy_tensor(self.scores))"]
    else:
        lines += [f'    label = "{name.lower()}"', "", "    def describe(self) -> str:",
                  '        return f"{self.label}: {tuple(self.token_ids.shape)}"']
    # Each level has instances of its own (a factory its tests use), so each is judged itself: a class only
    # ever subclassed would be judged through its subclasses (issue 22), and the planted PPA001s would go.
    example = ["", "", f"def example_{level}() -> {name}:", f"    return {name}(torch.zeros(2), torch.zeros(2))"]
    return "\n".join(lines) + "\n" + (_TO_PP if family.overrides[level] else "") + "\n".join(example) + "\n"


def _render_observer(tree: Tree, index: int) -> str:
    family = tree.families[index]
    imports, ref = _reference(tree, index, LEVELS - 1, "absolute" if index % 2 else "reexport-top")
    return observer_source(f"The observer of the {tree.names[family.home]} family {family.number}.", imports,
                           f"{_camel(tree.names[family.home])}F{family.number}Observer", ref, family.observer_ok)


def _render_registry(tree: Tree, package: int) -> str:
    lines = ['"""The outputs this package serves, from every package that defines them."""', ""]
    names = []
    for index in tree.registry_uses[package]:
        imports, ref = _reference(tree, index, LEVELS - 1, "absolute")
        lines += imports
        names.append(ref)
    lines += ["", f"SERVED_OUTPUTS = ({', '.join(names)},)", "", "",
              "def lookup(name: str):", "    for output in SERVED_OUTPUTS:", "        if output.__name__ == name:",
              "            return output", "    raise KeyError(name)"]
    return "\n".join(lines) + "\n"


_TORCH_BLOCKS = (
    '''

class {Noun}{Verb}Block(nn.Module):
    """A {noun} projection with a residual path."""

    def __init__(self, hidden: int = {n}, dropout: float = 0.1) -> None:
        super().__init__()
        self.proj = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        x = self.norm(x)
        x = F.gelu(self.proj(x))
        return residual + self.dropout(x)
''',
    '''

def {verb}_{noun}_logits(logits: torch.Tensor, temperature: float = 1.0, top_k: int = {n}) -> torch.Tensor:
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    logits = logits / temperature
    values, _ = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1)
    cutoff = values[..., -1, None]
    return logits.masked_fill(logits < cutoff, float("-inf"))
''',
    '''

@torch.no_grad()
def {verb}_{noun}_stats(batch: torch.Tensor) -> dict[str, float]:
    flat = batch.float().flatten()
    return {{"mean": flat.mean().item(), "std": flat.std().item(), "max": flat.max().item(),
            "nonzero": int(torch.count_nonzero(flat))}}
''',
    '''

class {Noun}{Verb}Attention(nn.Module):
    def __init__(self, dim: int = {n}, heads: int = 8) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, t, d))
''',
)


def _render_plain(tree: Tree, index: int) -> str:
    """An ordinary torch module of 50-300 lines: layers, functions, a primary class, imports of modules
    elsewhere in the monorepo; only the generator's words vary."""
    rng = random.Random(tree.seed * 1_000_003 + index)
    here = tree.files[index]
    target = rng.randint(50, 300)
    noun = NOUNS[index % len(NOUNS)]
    mention = " Results reach the SamplingObserver hooks." if index in tree.decoys else ""
    package, part = here.module.split(".")[:2]
    lines = module_opening(rng, f"{noun.title()} {part} for {package}.{mention}", 2)
    lines += ["import torch", "import torch.nn.functional as F", "from torch import nn", ""]
    imported = []
    for other in sorted(set(rng.sample(tree.plain, rng.randint(0, 3))) - {index}):
        lines.append(f"from {tree.files[other].module} import {_primary(tree, other)}")
        imported.append(_primary(tree, other))
    lines += ["", "logger = logging.getLogger(__name__)", ""]
    opening, words = class_with_state(rng, _primary(tree, index), f"Keeps {noun}s in order.")
    text = "\n".join(lines + opening) + "\n"
    for _ in range(rng.randint(2, 5)):
        text += rng.choice(_METHODS).format(**words())
    for name in imported:
        text += f"\n\ndef make_{name.lower()}() -> {name}:\n    return {name}()\n"
    while text.count("\n") < target:
        text += rng.choice(_TORCH_BLOCKS + _FUNCTIONS).format(**words())
    return text


def _primary(tree: Tree, index: int) -> str:
    file = tree.files[index]
    return f"{_camel(file.module.rsplit('.', 1)[1])}{file.module.split('.')[1].title()}{index}"


def _write_tree(tree: Tree, root: Path) -> int:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "plugin-monorepo"\nversion = "0.4.0"\n\n'
                                         '[tool.ruff]\n\n[tool.ppaux-lint]\n')
    for name in tree.names:
        package = root / "packages" / name.replace("_", "-")
        package.mkdir(parents=True)
        (package / "pyproject.toml").write_text(
            f'[project]\nname = "{name.replace("_", "-")}"\nversion = "0.4.0"\ndependencies = ["torch>=2.1"]\n\n'
            '[tool.setuptools.packages.find]\nwhere = ["src"]\n')
    return write_files(root, [f.path for f in tree.files], functools.partial(render, tree))


def monorepo(workdir: Path, n: int) -> tuple[Path, dict]:
    """The generated tree for ``n`` files, built once and kept under the workdir."""
    path = workdir / "monorepo" / f"v{GENERATOR_VERSION}-seed{SEED}-n{n}"

    def build(staging: Path) -> dict[str, object]:
        tree = plan_tree(n, SEED)
        total = _write_tree(tree, staging)
        relevant = sum(1 for f in tree.files if f.kind in RELEVANT_KINDS) + len(tree.decoys)
        return {"n": len(tree.files), "seed": SEED, "generator": GENERATOR_VERSION, "megabytes": total / 1e6,
                "expected": tree.expected_findings, "families": len(tree.families), "relevant": relevant}

    return path, cached_project(path, f"monorepo {n}", build)


def counts(findings: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for finding in findings:
        code = json.loads(finding)["code"]
        out[code] = out.get(code, 0) + 1
    return dict(sorted(out.items()))


def bench(path: Path, runs: int, ruff: list[str]) -> tuple[list[Sample], list[Sample]]:
    """``runs`` rounds of ruff then ppaux-lint, after one warm-up of each (page cache, bytecode)."""
    ruff_argv = [*ruff, "check", "--no-cache", "--select", "F", "-q", "."]
    ppaux_argv = ppaux_check("--no-cache", ".")
    run_timed(ruff_argv, path)
    run_timed(ppaux_argv, path)
    ruff_samples, ppaux_samples = [], []
    for number in range(1, runs + 1):
        log(f"round {number}/{runs}")
        ruff_samples.append(run_timed(ruff_argv, path))
        ppaux_samples.append(run_timed(ppaux_argv, path))
    return ruff_samples, ppaux_samples


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--files", type=int, default=10_000, help="files in the generated tree (default 10000)")
    parser.add_argument("--workdir", type=Path, default=Path(__file__).resolve().parent / ".work",
                        help="where the generated tree is kept (default benchmarks/.work)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    as_installed()
    measure([sys.executable, "-c", "pass"], workdir)  # start the launcher while this process is small
    try:
        ruff = ruff_command()
        path, meta = monorepo(workdir, args.files)
        ruff_samples, ppaux_samples = bench(path, args.runs, ruff)
    except BenchError as exc:
        print(f"bench_monorepo: error: {exc}", file=sys.stderr)
        return 2
    finally:
        stop_launcher()
    reference = findings_of(ppaux_samples[0])
    identical = all(findings_of(s) == reference for s in ppaux_samples)
    ratios = [p.seconds / r.seconds for r, p in zip(ruff_samples, ppaux_samples, strict=True)]
    ratio = statistics.median(ratios)
    found, expected = counts(reference), dict(sorted(meta["expected"].items()))
    print(describe_machine(ruff))
    print(f"monorepo: {meta['n']} .py files in {PACKAGES} packages, {meta['megabytes']:.1f} MB, {meta['families']} "
          f"families of {LEVELS} levels, {meta['relevant']} files relevant; medians of {args.runs} interleaved runs")
    print(f"{'command':<40} {'median s':>9} {'min-max s':>12} {'peak MiB':>9}")
    for label, samples in (("ruff check --no-cache --select F", ruff_samples),
                           ("ppaux-lint check --no-cache", ppaux_samples)):
        low, high = min(s.seconds for s in samples), max(s.seconds for s in samples)
        print(f"{label:<40} {median_seconds(samples):>9.3f} {f'{low:.2f}-{high:.2f}':>12} "
              f"{median_peak(samples):>9.1f}")
    met = ratio <= RATIO_TARGET
    print(f"median ratio {ratio:.2f}x ruff (rounds: {', '.join(f'{r:.2f}' for r in ratios)}); "
          f"target <= {RATIO_TARGET:.1f}x: {'PASS' if met else 'MISS'}")
    print(f"findings identical across runs: {'yes' if identical else 'NO'}; {len(reference)} found "
          f"{found}, planted {expected}")
    return 0 if met and identical and found == expected else 1


if __name__ == "__main__":
    sys.exit(main())
