"""``imports_in_text``: the imports a module's text spells, as two bounds on those that run when it is imported.

``top_level`` must never hold a module that importing it does not run (a search over it that finds an import cycle
refuses a fix), and ``written``, when given, must hold every one (a search over it that finds none offers a fix
whose new import could fail with "partially initialized module"). The cases below are spellings Python accepts; the
corpus and random tests hold the bounds against the tree's reading (``imported_at_import_time``), and the summary's
module-level imports, which the search reads below it where a module was summarized, under it.
"""

from __future__ import annotations

import ast
import random
import textwrap
from collections.abc import Iterable
from pathlib import Path

import pytest

from ppaux_lint.facts.summarize.source import summarize_source
from ppaux_lint.fixes.import_cycles import imported_at_import_time, modules_of
from ppaux_lint.fixes.imports_in_text import imports_in_text

REPO = Path(__file__).resolve().parent.parent


def _read(source: str, module: str = "pkg.mod", is_package: bool = False) -> tuple[set[str] | None, set[str]]:
    found = imports_in_text(textwrap.dedent(source), module, is_package)
    return (set(found.written) if found.written is not None else None), set(found.top_level)


CASES = [
    # (source, module, is_package, written, top_level)
    ("import os\n", "pkg.mod", False, {"os"}, {"os"}),
    ("import a.b.c\n", "pkg.mod", False, {"a.b.c"}, {"a.b.c"}),
    ("import a.b as m, c\n", "pkg.mod", False, {"a.b", "c"}, {"a.b", "c"}),
    ("from a.b import c as d, e\n", "pkg.mod", False, {"a.b.c", "a.b.e"}, {"a.b.c", "a.b.e"}),
    ("from . import sib\n", "pkg.mod", False, {"pkg.sib"}, {"pkg.sib"}),
    ("from . import sib\n", "pkg", True, {"pkg.sib"}, {"pkg.sib"}),
    ("from ..up import x\n", "pkg.sub.mod", False, {"pkg.up.x"}, {"pkg.up.x"}),
    ("from ...up import x\n", "pkg.sub.mod", False, {"up.x"}, {"up.x"}),  # ``...`` is one token, three levels
    ("from .m import *\n", "pkg.mod", False, {"pkg.m"}, {"pkg.m"}),
    ("from.m import x\n", "pkg.mod", False, {"pkg.m.x"}, {"pkg.m.x"}),
    ("from .import x\n", "pkg.mod", False, {"pkg.x"}, {"pkg.x"}),
    ("from a . b import c\n", "pkg.mod", False, {"a.b.c"}, {"a.b.c"}),
    ("import a . b\n", "pkg.mod", False, {"a.b"}, {"a.b"}),
    ("from a import (b,\n    c as d,  # why (not e)\n    e,\n)\n", "pkg.mod", False, {"a.b", "a.c", "a.e"},
     {"a.b", "a.c", "a.e"}),
    ("from a \\\n    import b\n", "pkg.mod", False, {"a.b"}, {"a.b"}),
    ("import a, \\\n    b\n", "pkg.mod", False, {"a", "b"}, {"a", "b"}),
    ("x = 1; import a\n", "pkg.mod", False, {"a"}, set()),  # a statement, not at the first column
    ("if x: import a\n", "pkg.mod", False, {"a"}, set()),
    ("try:\n    import a\nexcept ImportError:\n    a = None\n", "pkg.mod", False, {"a"}, set()),
    ("def f():\n    import a\n", "pkg.mod", False, {"a"}, set()),  # in a function: above the summary, fine
    ("import a\r\nimport b\r\n", "pkg.mod", False, {"a", "b"}, {"a", "b"}),
    ("import a\rimport b\r", "pkg.mod", False, {"a", "b"}, {"a", "b"}),
    ("import ｍｏｄ\n", "pkg.mod", False, {"mod"}, {"mod"}),  # Python reads names NFKC-normalized
    # inside strings and comments: nothing
    ('"""\nimport docs\nfrom docs import x\n"""\n', "pkg.mod", False, set(), set()),
    ("'''\nimport docs\n'''\n", "pkg.mod", False, set(), set()),
    ("# import commented\n", "pkg.mod", False, set(), set()),
    ("s = 'from x import y'; t = \"import z\"\n", "pkg.mod", False, set(), set()),
    ("s = f\"{a!r} import z\"\nimport b\n", "pkg.mod", False, {"b"}, {"b"}),
    ("s = rb'\\'import z'\nimport b\n", "pkg.mod", False, {"b"}, {"b"}),
    ('s = """a \\""" import z"""\nimport b\n', "pkg.mod", False, {"b"}, {"b"}),
    ("s = 'a \\\nimport z'\nimport b\n", "pkg.mod", False, {"b"}, {"b"}),  # a backslash-continued string
    # ``from`` that is not an import
    ("def g():\n    yield from h()\n\nraise E from err\n", "pkg.mod", False, set(), set()),
    # a comment ending in a backslash continues nothing, but the pass takes it for a continuation: the import counts
    # above, and below it is left out, where leaving out is safe
    ("x = 1  # C:\\\nimport a\n", "pkg.mod", False, {"a"}, set()),
]


@pytest.mark.parametrize(("source", "module", "is_package", "written", "top_level"), CASES)
def test_spellings(source: str, module: str, is_package: bool, written: set[str], top_level: set[str]) -> None:
    assert _read(source, module, is_package) == (written, top_level)


@pytest.mark.parametrize("source", [
    "s = 'never closed\nimport a\n",  # not Python: no bound either way
    's = """never closed\nimport a\n',
    "from a import (b  # ) the comment hides the parenthesis\n    , c)\n" + "x = y import z\n",
])
def test_what_the_pass_cannot_read_leaves_no_upper_bound(source: str) -> None:
    written, top_level = _read(source)
    assert written is None
    assert top_level <= {"a", "a.b", "a.c"}


def test_an_unreadable_keyword_leaves_no_upper_bound_but_keeps_the_lower() -> None:
    written, top_level = _read("import a\nx = y import z\n")
    assert written is None and top_level == {"a"}


def _bounds_hold(source: bytes, module: str, is_package: bool) -> bool | None:
    """Whether the bounds hold against the tree of ``source``; None when it does not parse."""
    summary = summarize_source(source, "m.py", module, is_package)
    if summary.error is not None:
        return None
    text = source.decode("utf-8")
    exact = _modules(imported_at_import_time(ast.parse(text), module, is_package))
    found = imports_in_text(text, module, is_package)
    above = _modules(found.written) if found.written is not None else exact
    summarized = _modules(i.target for i in summary.imports if not i.nested)
    return _modules(found.top_level) <= exact and summarized <= exact <= above


def _modules(targets: Iterable[str]) -> set[str]:
    return {m for t in targets for m in modules_of(t)}


def test_the_bounds_hold_on_this_repository() -> None:
    """Every Python file of the package, its tests and fixtures (SGLang's 4,719 files, the 10,000-file monorepo,
    CPython's library and site-packages were checked the same way: benchmarks/README.md)."""
    paths = [p for d in ("ppaux_lint", "tests", "fixtures") for p in sorted((REPO / d).rglob("*.py"))]
    assert len(paths) > 300
    broken = [str(p) for p in paths if _bounds_hold(p.read_bytes(), "pkg.sub.mod", p.name == "__init__.py") is False]
    assert broken == []


_STATEMENTS = ["import a", "import a.b", "import a.b as ab, c", "from a import b", "from a.b import (c,\n    d)",
               "from . import e", "from ..f import g as h", "from .i import *", "from j import (k,  # (\n    l,)",
               "import m \\\n    .n", "from o import p; import q"]
_WRAPPERS = ["{s}", "if flag:\n    {s}", "try:\n    {s}\nexcept ImportError:\n    pass", "def f():\n    {s}",
             "class C:\n    {s}", "x = '''\n{s}\n'''", "# {s}", "y = 1; {s}", "with ctx:\n    {s}",
             "async def g():\n    {s}", "s = f'{{x}}'\n{s}", "for _ in ():\n    {s}"]


def test_the_bounds_hold_on_random_modules() -> None:
    """Random modules made of import statements in every position the summary tells apart."""
    rng = random.Random(20261206)
    checked = 0
    for _ in range(400):
        parts = []
        for _ in range(rng.randint(1, 6)):
            statement = rng.choice(_STATEMENTS)
            wrapper = rng.choice(_WRAPPERS)
            indent = "    " if wrapper.startswith(("if", "try", "def", "class", "with", "async", "for")) else ""
            parts.append(wrapper.format(s=statement.replace("\n", "\n" + indent)))
        source = "\n".join(parts) + "\n"
        module, is_package = rng.choice([("pkg.sub.mod", False), ("pkg.sub", True), ("top", False)])
        held = _bounds_hold(source.encode(), module, is_package)
        assert held is not False, source
        checked += held is True
    assert checked > 300  # most of them parse


@pytest.mark.parametrize(("source", "expected"), [
    ("import a.b\n", {"a.b"}),  # runs ``a.b``, though it binds ``a``
    ("class C:\n    import a\n", {"a"}),  # a class body runs at import time
    ("if TYPE_CHECKING:\n    import a\n", {"a"}),  # false at run time, but counted: no import is the safe side
    ("def f():\n    import a\n\nclass D:\n    def g(self):\n        import b\n", set()),
    ("try:\n    import a\nexcept E:\n    import b\nelse:\n    import c\nfinally:\n    import d\n",
     {"a", "b", "c", "d"}),
    ("match x:\n    case 1:\n        import a\n", {"a"}),
    ("from . import b\nfrom .c import *\n", {"pkg.b", "pkg.c"}),
])
def test_what_runs_at_import_time(source: str, expected: set[str]) -> None:
    assert set(imported_at_import_time(ast.parse(source), "pkg.mod", False)) == expected


@pytest.mark.parametrize(("source", "written"), [
    ("from" + " " * 100_000 + "x y\n", set()),  # the blanks around the dots could be split in n * n ways
    ("from ." + " " * 100_000 + "x y\n", set()),
    ("from a import (" + "#" * 100_000, None),  # a comment's repetition could be split in 2 ** n ways
    ("from a import (a" + " " * 100_000 + "x)\n", None),
    ("from a import (\n# x\n" * 20_000, None),
    ("'''" + "\\'''" * 100_000, None),  # every escaped quote a new string that is never closed
    ('"\\' * 100_000, None),
    ("import a" + " \\\n" * 100_000 + "\n", {"a"}),
])
def test_hostile_text_is_read_in_one_pass(source: str, written: set[str] | None) -> None:
    """Text anybody can commit: each of these took minutes or more with patterns that backtrack (the first four
    were found so); read in one pass, they take milliseconds. The result is checked, not the time."""
    assert _read(source)[0] == written
