"""The shape of the package: floors by pipeline stage, and no import cycle anywhere (issue 25).

``lint-imports`` (``[tool.importlinter]`` in pyproject.toml, run by ``.ci/run``) checks that imports only go down
the layers and that siblings form no cycle. These tests add what a layers contract cannot say: that no two
modules anywhere under ``ppaux_lint/`` reach each other (a package's ``__init__`` and its own modules included),
counting imports under ``if TYPE_CHECKING:`` and inside functions, since a lazy import is still a dependency;
that the top level holds only packages and the three entry modules; and that each floor says what it is.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter, in the dev extra")

PACKAGE = Path(__file__).resolve().parent.parent / "ppaux_lint"
TOP_LEVEL_MODULES = {"__init__.py", "__main__.py", "pytest_plugin.py"}  # the package, python -m, pytest11
RUNTIME = "ppaux_lint.runtime"


def cycles(graph) -> list[list[str]]:
    """Every strongly connected component of more than one module in ``graph`` (Tarjan's algorithm, iterative:
    a chain of imports can be deeper than Python's recursion limit)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in order:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], order[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == order[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycles_finds_a_cycle_and_only_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}  # a -> b -> c -> a, and d -> a outside the cycle

    class Graph:
        modules = frozenset(edges)

        def find_modules_directly_imported_by(self, module: str) -> set[str]:
            return edges[module]

    assert cycles(Graph()) == [["a", "b", "c"]]


def test_no_module_under_ppaux_lint_is_in_an_import_cycle() -> None:
    graph = grimp.build_graph("ppaux_lint", exclude_type_checking_imports=False)
    assert len(graph.modules) > 100  # the whole package was read
    assert cycles(graph) == []


def test_the_top_level_holds_only_packages_and_the_entry_modules() -> None:
    modules = {p.name for p in PACKAGE.glob("*.py")}
    assert modules == TOP_LEVEL_MODULES


def runtime_floors() -> list[str]:
    """The sub-packages and modules of ``runtime/`` on the floors of its layers contract, top to bottom."""
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = (c for c in config["tool"]["importlinter"]["contracts"] if c.get("containers") == [RUNTIME])
    return [part.strip() for floor in contract["layers"] for part in floor.split("|")]


def test_every_module_of_the_runtime_stands_on_one_of_its_floors() -> None:
    """A module added beside the sub-packages would be on no floor of the contract, so nothing would hold its
    imports: every one of them belongs in the sub-package that does what it does (issue 34)."""
    runtime = PACKAGE / "runtime"
    parts = {p.stem for p in runtime.glob("*.py") if p.name != "__init__.py"}
    parts |= {p.name for p in runtime.iterdir() if (p / "__init__.py").is_file()}
    assert parts == set(runtime_floors())


def floors() -> list[Path]:
    """The packages of ``ppaux_lint/``, and the runtime's sub-packages but ``stand_ins``, whose modules are
    SGLang's, stood in."""
    packages = [p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    runtime = [PACKAGE / "runtime" / part for part in runtime_floors() if part not in ("stand_ins", "core")]
    return sorted(packages + runtime)


@pytest.mark.parametrize("floor", floors(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_each_floor_says_what_it_takes_gives_and_never_imports(floor: Path) -> None:
    doc = ast.get_docstring(ast.parse((floor / "__init__.py").read_text(encoding="utf-8"))) or ""
    words = doc.lower()
    assert all(word in words for word in ("take", "give", "never")), (
        f"{floor.relative_to(PACKAGE).as_posix()}/__init__.py's docstring must say what the stage takes, what it "
        f"gives, and what it must never import")
