"""Fix planning's import-cycle question answered from the modules' text (``fixes/import_cycles.py``) gives the
answer their trees give, and parses no module where the text decides it.

The question decides whether a fix may add a module-level import (``tests/integrations/test_fix.py``,
``test_fix_rebuild.py`` show what a wrong answer breaks). Here random projects, whose modules import each other at
module level, inside functions, under ``if TYPE_CHECKING:``, in class bodies and inside strings, are asked every
pair of modules both ways.
"""

from __future__ import annotations

import random

import pytest

from ppaux_lint.fixes import import_cycles
from ppaux_lint.fixes.import_cycles import CYCLE_SEARCH, ImportCycles, reaches

from ._support import AUX, run, write_tree

_PLACES = [
    "{s}\n",
    "def helper():\n    {s}\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {s}\n",
    "class Holder:\n    {s}\n",
    "try:\n    {s}\nexcept ImportError:\n    pass\n",
    '"""\n{s}\n"""\n',
    "# {s}\n",
]


def _random_project(rng: random.Random, count: int) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/sub/__init__.py": ""}
    names = [f"pkg.m{i}" if i % 3 else f"pkg.sub.m{i}" for i in range(count)]
    for i, name in enumerate(names):
        parts = []
        for other in rng.sample(names, rng.randint(0, 3)):
            statement = rng.choice([f"import {other}", f"from {other.rpartition('.')[0]} import "
                                    f"{other.rpartition('.')[2]}", f"import {other} as alias"])
            parts.append(rng.choice(_PLACES).format(s=statement))
        if i % 4 == 0:  # an output: summarized by the analysis, so followed by its summary
            parts.append(f"from {AUX} import DeviceAuxiliaryOutput\n\nclass Out{i}(DeviceAuxiliaryOutput):\n"
                         "    def copy_to_host(self, copy_tensor):\n        return self\n")
        files[name.replace(".", "/") + ".py"] = "\n".join(parts)
    if rng.random() < 0.5:  # a package whose __init__ runs imports too
        files["pkg/sub/__init__.py"] = f"import {rng.choice(names)}\n"
    return files


@pytest.mark.parametrize("seed", range(6))
def test_the_text_gives_the_trees_answer(tmp_path, seed: int) -> None:
    rng = random.Random(seed)
    root = write_tree(tmp_path / "proj", _random_project(rng, 14))
    analysis = run(root, no_cache=True)
    modules = sorted(m for m in analysis.index.known if m.startswith("pkg."))
    fast = ImportCycles(analysis.index, analysis.discovery.files, analysis.overlays)
    exact = ImportCycles(analysis.index, analysis.discovery.files, analysis.overlays)
    answers = set()
    for target in modules:
        for module in modules:
            if target == module:
                continue
            expected = reaches(exact.start(target, module), module, exact.imports_exact)
            assert fast.closes_a_cycle(target, module) == expected, (target, module)
            answers.add(expected)
    assert answers == {True, False}  # both answers were asked for


def _chain(length: int, text_decides: bool) -> dict[str, str]:
    """``pkg.m0`` imports ``pkg.m1`` ... imports ``pkg.m{length - 1}``, which imports ``pkg.obs``; with
    ``text_decides`` false, each import sits behind a ``;`` and ``obs`` is imported inside a function (an import the
    text cannot place, so only the trees tell that there is no cycle)."""
    files = {"pkg/__init__.py": "", "pkg/obs.py": "X = 1\n"}
    for i in range(length):
        last = i == length - 1
        statement = "import pkg.obs" if last else f"import pkg.m{i + 1}"
        if text_decides:
            files[f"pkg/m{i}.py"] = f"{statement}\n"
        else:
            files[f"pkg/m{i}.py"] = (f"def late():\n    {statement}\n" if last else f"X = 1; {statement}\n")
    return files


@pytest.mark.parametrize(("length", "text_decides", "cycle"), [
    (20, True, True),  # the first column's imports reach ``obs``: a cycle, found below
    (CYCLE_SEARCH + 10, True, True),  # too far to tell, below already
    (20, False, False),  # every import is somewhere the lower reading leaves out; the upper one sees ``obs``
])
def test_what_the_search_parses(tmp_path, monkeypatch: pytest.MonkeyPatch, length: int, text_decides: bool,
                                cycle: bool) -> None:
    """No module is summarized, and one is parsed only where the two readings of the text disagree."""
    root = write_tree(tmp_path / "proj", _chain(length, text_decides))
    analysis = run(root, no_cache=True)
    summarized = set(analysis.index.modules)
    parsed: list[str] = []
    read_tree = import_cycles.imported_at_import_time
    monkeypatch.setattr(import_cycles, "imported_at_import_time",
                        lambda tree, module, is_package: parsed.append(module) or read_tree(tree, module, is_package))
    cycles = ImportCycles(analysis.index, analysis.discovery.files, analysis.overlays)
    assert cycles.closes_a_cycle("pkg.m0", "pkg.obs") is cycle
    assert set(analysis.index.modules) == summarized
    assert (parsed == []) is text_decides, parsed


def test_a_module_the_parser_cannot_build_is_read_as_importing_nothing(tmp_path) -> None:
    """A module whose text leaves no upper bound (a comment that ends in a backslash, before an import: the pass
    takes it for a continuation) is parsed; one nested past what the parser builds (RecursionError, MemoryError)
    reads as importing nothing, as a module that does not parse does, rather than ending the run."""
    files = _chain(3, text_decides=True)
    for deep in ("-" * 200_000 + "1", "a" + ".b" * 300_000):
        files["pkg/m1.py"] = f"X = 1  # \\\nimport pkg.m2\nv = {deep}\n"
        root = write_tree(tmp_path / str(len(deep)), files)
        analysis = run(root, no_cache=True)
        cycles = ImportCycles(analysis.index, analysis.discovery.files, analysis.overlays)
        assert cycles.closes_a_cycle("pkg.m1", "pkg.obs") is False  # no tree: no import of ``pkg.m2``
