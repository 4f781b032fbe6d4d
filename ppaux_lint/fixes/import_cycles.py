"""Whether a new module-level import would close an import cycle, read from the modules' text where it can be.

The answer follows the imports that run when a module is imported (:func:`imported_at_import_time`: every import
statement outside a function body) from the module to be imported: a cycle when they reach the importing module, and
also when they reach ``CYCLE_SEARCH`` modules without it (too far to tell: no import rather than a cycle). Both only
grow with the imports followed, so a search over fewer imports that finds a cycle, or one over more that finds none,
gives the answer. Three readings of a module, cheapest first:

- below: its summary where the analysis made one (``import a.b`` recorded as the ``a`` it binds, nothing from class
  bodies: fewer), else the statements at the first column of its text (:mod:`.imports_in_text`);
- above: every import statement of its text, at any depth;
- exact: its tree, parsed here, only where the two searches disagree.

Summarizing the modules the prefilter skipped, as this used to, cost a worker's parse and a message each (3-7 ms): on a
10,000-file project two searches met 132 of them, 0.45 s of a 2.1 s run. The summaries' own reading also missed
that ``import a.b`` runs ``a.b``, and imports in class bodies, so a fix could add an import that failed with
"partially initialized module".
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ppaux_lint.facts.summarize.imports import absolute
from ppaux_lint.fixes.imports_in_text import TextImports, imports_in_text
from ppaux_lint.fixes.sources import parse_quietly, read_source

if TYPE_CHECKING:
    from ppaux_lint.index.project_index import ProjectIndex
    from ppaux_lint.project.discover import SourceFile

CYCLE_SEARCH = 200  # modules an import-cycle search visits before it gives up

Imports = tuple[frozenset[str], tuple[str, ...]]  # every module the imports run, and those of the project in order
# what reading or parsing a file can raise: the last two for a tree nested deeper than the parser builds
_UNREADABLE = (OSError, SyntaxError, UnicodeDecodeError, LookupError, ValueError, RecursionError, MemoryError)


class ImportCycles:
    """The import-cycle question of one analysis, with each module's imports read once per reading. Only what was
    read is kept, never a text or a tree: a search may visit 200 modules, and a module may be large."""

    def __init__(self, index: ProjectIndex, files: Iterable[SourceFile], overlays: Mapping[str, bytes] | None) -> None:
        """``overlays``: the editor's buffers and standard input, read in place of those files."""
        self.index = index
        self.overlays = overlays
        self._files = files
        self._by_path: dict[str, SourceFile] | None = None  # made when a first module is read from its file
        self._texts: dict[str, TextImports | None] = {}
        self._readings: dict[str, dict[str, Imports]] = {"below": {}, "above": {}, "exact": {}}

    def closes_a_cycle(self, target_module: str, module: str) -> bool:
        """Whether ``target_module`` imports ``module`` at import time, through the project's import-time imports:
        a cycle that a module-level import of ``target_module`` in ``module`` would close (``ImportError: ...
        partially initialized module``), which the module keeps out of import time by importing inside functions.
        Importing ``target_module`` first runs the ``__init__`` of each package on its way, so their imports count
        too, except a package ``module`` itself is in: that one is already initializing when ``module`` runs."""
        start = self.start(target_module, module)
        if reaches(start, module, self.imports_below):
            return True
        if not reaches(start, module, self.imports_above):
            return False
        return reaches(start, module, self.imports_exact)

    def start(self, target_module: str, module: str) -> list[str]:
        """The modules an import of ``target_module`` in ``module`` runs first: ``target_module`` and the packages on
        its way that ``module`` is not in."""
        return [name for name in modules_of(target_module)
                if name == target_module or (name in self.index.known and not f"{module}.".startswith(f"{name}."))]

    def imports_below(self, module: str) -> Imports:
        """At most what ``imports_exact`` gives."""
        return self._reading("below", module, self._below)

    def imports_above(self, module: str) -> Imports:
        """At least what ``imports_exact`` gives: the exact reading itself where the text gives no bound."""
        text = self._text(module)
        written = text.written if text is not None else None
        if written is None:
            return self.imports_exact(module)
        return self._reading("above", module, lambda _: written)

    def imports_exact(self, module: str) -> Imports:
        """What importing the project module ``module`` runs, read from its tree (nothing when it cannot be read)."""
        return self._reading("exact", module, self._exact)

    def _reading(self, reading: str, module: str, read: Callable[[str], Iterable[str]]) -> Imports:
        """A reading of ``module``, made once: first every ``modules_of`` its targets (``a.b`` is among them exactly
        when a target is ``a.b`` or starts with ``a.b.``), then those that are project modules, in the order the
        imports reach them, each once: what a search goes on to."""
        found = self._readings[reading]
        if module not in found:
            runs = dict.fromkeys(name for target in dict.fromkeys(read(module)) for name in modules_of(target))
            found[module] = frozenset(runs), tuple(n for n in runs if n in self.index.known)
        return found[module]

    def _below(self, module: str) -> Iterable[str]:
        summary = self.index.modules.get(module)
        if summary is not None:
            return (i.target for i in summary.imports if not i.nested)
        text = self._text(module)
        return text.top_level if text is not None else ()

    def _exact(self, module: str) -> Iterable[str]:
        read = self._read(module)
        try:
            tree = parse_quietly(read[0]) if read is not None else None
        except _UNREADABLE:
            tree = None
        return imported_at_import_time(tree, module, read[1].is_package) if tree is not None else ()

    def _text(self, module: str) -> TextImports | None:
        if module not in self._texts:
            read = self._read(module)
            self._texts[module] = imports_in_text(read[0], module, read[1].is_package) if read is not None else None
        return self._texts[module]

    def _read(self, module: str) -> tuple[str, SourceFile] | None:
        """The text of the file that is the project module ``module``, and that file; None where there is none, or
        it cannot be read."""
        if self._by_path is None:
            self._by_path = {source.path: source for source in self._files}
        path = self.index.owner(module)
        source = self._by_path.get(path) if path is not None else None
        if source is None:
            return None
        try:
            return read_source(source.path, self.overlays)[0], source
        except _UNREADABLE:
            return None


def imported_at_import_time(tree: ast.Module, module: str, is_package: bool) -> list[str]:
    """The targets of the import statements of ``module`` outside function bodies (at module level, under ``if``,
    ``try``, ``with``, loops, ``match`` and in class bodies, ``if TYPE_CHECKING:`` too): spelled whole, as
    ``imports_in_text`` spells them."""
    targets: list[str] = []
    todo: list[ast.AST] = list(reversed(tree.body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            targets.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(module, is_package, node.level, node.module or "")
            targets.extend(base if alias.name == "*" else f"{base}.{alias.name}" if base else alias.name
                           for alias in node.names)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend(reversed([child for child in ast.iter_child_nodes(node)
                                  if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case))]))
    return targets


def reaches(start: list[str], module: str, imports: Callable[[str], Imports]) -> bool:
    """Whether following ``imports`` from ``start`` reaches ``module``, or ``CYCLE_SEARCH`` modules."""
    todo = list(start)
    seen = set(todo)
    while todo and len(seen) < CYCLE_SEARCH:
        imported, runs = imports(todo.pop())
        if module in imported:  # an import of it, or of a module inside it
            return True
        for name in runs:
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return len(seen) >= CYCLE_SEARCH  # too far to tell: no import rather than a cycle


def modules_of(target: str) -> list[str]:
    """The modules importing ``target`` runs: each package on the way, and the target itself when it is one."""
    found = []
    dot = target.find(".")
    while dot != -1:  # each prefix up to a dot: what joining the first parts of a split gave, without the joins
        found.append(target[:dot])
        dot = target.find(".", dot + 1)
    found.append(target)
    return found
