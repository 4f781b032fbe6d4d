"""The modules the index loads first are summarized together beforehand (``index/first_hops.py``), and a guess
never changes what the run reports.

On the synthetic benchmarks the first hops were exactly the modules loaded on demand (7, 45 and 232 at 1,000,
10,000 and 50,000 files), each parsed alone while the run waited.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ppaux_lint.cache.store as store_module
from ppaux_lint.facts.summarize.source import summarize_source
from ppaux_lint.index.first_hops import first_hops

from ._support import AUX, by_file, key, run, write_tree

MIXINS = 5


def _project(root: Path, decoy: bool = False) -> Path:
    """An output whose bases are plain mixins, each in a module no prefilter token is in. With ``decoy``, the
    output's file also imports a class named like the last mixin from another module, then rebinds the name
    by assignment, which resolution reads first: that module is guessed and never asked for."""
    files = {"pkg/__init__.py": "", "pkg/other.py": "class Mixin4:\n    pass\n"}
    for i in range(MIXINS):
        files[f"pkg/mixin{i}.py"] = f"class Mixin{i}:\n    def helper{i}(self):\n        return {i}\n"
    imports = "".join(f"from pkg.mixin{i} import Mixin{i}\n" for i in range(MIXINS - 1))
    if decoy:
        imports += "from pkg.other import Mixin4\nfrom pkg import mixin4\nMixin4 = mixin4.Mixin4\n"
    else:
        imports += "from pkg.mixin4 import Mixin4\n"
    bases = ", ".join(f"Mixin{i}" for i in range(MIXINS))
    files["pkg/out.py"] = (f"from {AUX} import DeviceAuxiliaryOutput\n{imports}\n\n"
                           f"class Out({bases}, DeviceAuxiliaryOutput):\n    pass\n")
    return write_tree(root, files)


def _parse_batches(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    batches: list[list[str]] = []
    parse = store_module.SummaryStore._parse

    def recorded(self, work, encode):
        batches.append(sorted(Path(source.path).name for source, *_ in work))
        return parse(self, work, encode)

    monkeypatch.setattr(store_module.SummaryStore, "_parse", recorded)
    return batches


def test_the_modules_bases_lead_to_are_parsed_in_one_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path / "proj")
    batches = _parse_batches(monkeypatch)
    assert by_file(run(root, no_cache=True).findings, root) == {"pkg/out.py": {"PPA001"}}
    assert [f"mixin{i}.py" for i in range(MIXINS)] in batches  # not one parse each, as the index asks


def test_a_guess_never_asked_for_is_not_among_the_runs_summaries(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path / "proj", decoy=True)
    batches = _parse_batches(monkeypatch)
    analysis = run(root, no_cache=True)
    assert any("other.py" in batch for batch in batches)  # guessed from the import ...
    assert str(root / "pkg/other.py") not in {s.path for s in analysis.summaries}  # ... and never used
    assert str(root / "pkg/mixin4.py") in {s.path for s in analysis.summaries}
    monkeypatch.setattr(store_module.SummaryStore, "prefetch", lambda self, files: None)
    unguessed = run(root, no_cache=True)
    assert key(analysis.findings) == key(unguessed.findings)
    assert sorted(s.path for s in analysis.summaries) == sorted(s.path for s in unguessed.summaries)


def test_first_hops_follow_imports_as_the_graph_reads_them() -> None:
    source = (b"import pkg.deep.mod\nfrom pkg.deep.mod import Base as B\nfrom outside import Other\n"
              b"from pkg import *\nclass A(B, pkg.deep.mod.Thing, Other, Missing):\n    pass\n")
    summary = summarize_source(source, "/p/a.py", "pkg.a", False)
    (cls,) = summary.classes
    known = {"pkg", "pkg.deep", "pkg.deep.mod"}
    # ``import pkg.deep.mod`` binds ``pkg``, so ``pkg.deep.mod.Thing`` starts at ``pkg``; ``B`` at the module
    assert list(first_hops([(summary, cls)], known)) == ["pkg", "pkg.deep.mod"]
    assert list(first_hops([(summary, cls)], {"pkg"})) == ["pkg", "pkg"]  # the longest part that is a module
