"""The shape of the package: floors by pipeline stage, and no import cycle anywhere (issue 25).

``lint-imports`` (``[tool.importlinter]`` in pyproject.toml, run by ``.ci/run``) checks that imports only go down
the layers and that siblings form no cycle. These tests add what a layers contract cannot say: that no two
modules anywhere under ``ppaux_lint/`` reach each other (a package's ``__init__`` and its own modules included),
counting imports under ``if TYPE_CHECKING:`` and inside functions, since a lazy import is still a dependency;
that the top level holds only packages and the three entry modules; and that each floor says what it is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter, in the dev extra")

PACKAGE = Path(__file__).resolve().parent.parent / "ppaux_lint"
TOP_LEVEL_MODULES = {"__init__.py", "__main__.py", "pytest_plugin.py"}  # the package, python -m, pytest11


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


def floors() -> list[Path]:
    return sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())


@pytest.mark.parametrize("floor", floors(), ids=lambda p: p.name)
def test_each_floor_says_what_it_takes_gives_and_never_imports(floor: Path) -> None:
    doc = ast.get_docstring(ast.parse((floor / "__init__.py").read_text(encoding="utf-8"))) or ""
    words = doc.lower()
    assert all(word in words for word in ("take", "give", "never")), (
        f"{floor.name}/__init__.py's docstring must say what the stage takes, what it gives, and what it must "
        f"never import")
