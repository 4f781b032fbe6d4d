"""The lookahead: the edges it reads from bytes, the names they reach, and what it saves the fixpoint.

Its guess never decides a finding (tests/robustness/test_equivalence.py runs every project with no guess,
half of it and too much); these tests pin what it reads and that a deep hierarchy is read three times, not
once per level."""

from __future__ import annotations

import os
import random
import re
import sys
from pathlib import Path

import pytest

from ppaux_lint.cache import store
from ppaux_lint.check.engine import Options, analyze
from ppaux_lint.scan import lookahead
from ppaux_lint.scan.lookahead import Graph, add_edges, reach

SOURCE = b'''\
from pkg.base import Root as _Root, Other
import pkg.mod as mod_alias
from pkg import (
    Level1 as L1,
)

class Child(_Root, mod_alias.Mixin, metaclass=Meta):
    pass

class Wrapped(
    L1,  # the first level
):
    pass

Alias = pkg.sub.Child
lower = Child
self.value = value
'''


def test_edges_from_headers_aliases_and_assignments() -> None:
    graph: Graph = {}
    add_edges(SOURCE, graph)
    edges = {(a.decode(), b.decode()) for a, bound in graph.items() for b in bound}
    assert {("Root", "_Root"), ("Level1", "L1"), ("_Root", "Child"), ("Mixin", "Child"), ("mod_alias", "Child"),
            ("Meta", "Child"), ("L1", "Wrapped"), ("Child", "Alias"), ("Child", "lower")} <= edges
    assert ("mod", "mod_alias") not in edges  # a lower-case source: a module, never a later round's token
    assert ("value", "value") not in edges and ("Other", "Other") not in edges


def test_reach_follows_edges_through_cycles() -> None:
    graph: Graph = {b"A": {b"B"}, b"B": {b"C", b"A"}, b"X": {b"Y"}}
    assert reach({"A"}, graph) == {"A", "B", "C"}
    assert reach({"Z"}, graph) == {"Z"}


def _chain(root: Path, depth: int) -> None:
    """An output hierarchy of ``depth`` levels, each in its own module, and plain modules beside it. Each level
    builds one instance of the level below, so every level has instances of its own and is judged."""
    (root / "pyproject.toml").write_text('[project]\nname = "chain"\nversion = "0"\n')
    package = root / "src" / "chain"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "level0.py").write_text(
        "from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n\n\n"
        "class Level0(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n        return self\n")
    for level in range(1, depth):
        (package / f"level{level}.py").write_text(
            f"from chain.level{level - 1} import Level{level - 1} as Base{level}\n\n\n"
            f"class Level{level}(Base{level}):\n    pass\n\n\nBELOW = Base{level}()\n")
    for plain in range(5):
        (package / f"plain{plain}.py").write_text(f"class Plain{plain}:\n    value = {plain}\n")


def test_a_deep_hierarchy_is_read_three_times_not_once_per_level(tmp_path: Path, monkeypatch) -> None:
    depth = 6
    _chain(tmp_path, depth)
    reads: dict[str, int] = {}
    real = store._read

    def counting(path: str) -> tuple[bytes, os.stat_result]:
        reads[path] = reads.get(path, 0) + 1
        return real(path)

    monkeypatch.setattr(store, "_read", counting)
    findings = analyze([tmp_path], Options(no_cache=True, in_process=True)).findings
    assert sorted(f.symbol.rsplit(".", 1)[-1] for f in findings if f.code == "PPA001") == [
        f"Level{level}" for level in range(depth)]
    # the first round, the second (which reads the guess out of the bytes) and the search for the guess
    assert max(reads.values()) <= 3, reads


@pytest.mark.skipif(sys.version_info < (3, 11), reason="possessive quantifiers came with Python 3.11")
def test_the_possessive_assignment_pattern_matches_as_the_plain_one() -> None:
    """``_ASSIGN`` is possessive where Python can be (3.11): backing off could never have made it match, so it
    must find exactly what the pattern with backtracking finds, at the same places."""
    plain = re.compile(rb"=[ \t]*(?:\w+\.)*(_*[A-Z]\w*)[ \t]*(?:\n|#)")
    rng = random.Random(36)
    pieces = [b"=", b"==", b" ", b"\t", b"a", b"Ab", b"_B", b"__", b"x1", b".", b"..", b"\n", b"#", b"(", b"Cls", b"a.B"]
    for _ in range(5000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 24)))
        assert [(m.span(), m.group(1)) for m in lookahead._ASSIGN.finditer(text)] == \
            [(m.span(), m.group(1)) for m in plain.finditer(text)], text
    assert lookahead._ASSIGN.pattern != plain.pattern
