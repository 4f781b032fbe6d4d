"""The names a module binds to other modules' objects: imports, ``__all__`` and module-level aliases.

Produces ``FileSummary.imports`` (relative imports made absolute),
``FileSummary.all_names`` and ``FileSummary.assignments``. These are the facts
the index follows to resolve a name across files (a base class imported from
elsewhere, a re-exporting ``__init__.py``), so they are recorded exactly as
the interpreter would bind them and nothing more.
"""

from __future__ import annotations

import ast

from ppaux_lint.facts.summarize.syntax import dotted, string
from ppaux_lint.facts.summary import Import


class Bindings:
    """The import and alias bindings of one module, in source order."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.imports: list[Import] = []
        self.all_names: tuple[str, ...] | None = None
        self.assignments: list[tuple[str, str]] = []

    def import_(self, node: ast.Import, nested: bool) -> None:
        for alias in node.names:
            if alias.asname:
                self.imports.append(Import(alias.asname, alias.name, nested=nested))
            else:
                head = alias.name.split(".")[0]
                self.imports.append(Import(head, head, nested=nested))

    def import_from(self, node: ast.ImportFrom, nested: bool, certain: bool = True) -> None:
        """``certain``: the statement is at the module's top level, where it certainly runs."""
        base = absolute(self.module, self.is_package, node.level, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.imports.append(Import("*", base, star=True, nested=nested, certain=certain))
            else:
                target = f"{base}.{alias.name}" if base else alias.name
                self.imports.append(Import(alias.asname or alias.name, target, nested=nested))

    def assign(self, node: ast.Assign) -> None:
        """A module-level assignment: ``__all__ = [...]`` or an alias ``Name = dotted.Name``."""
        for target in node.targets:
            if not isinstance(target, ast.Name):
                continue
            if target.id == "__all__":
                self.all_names = _string_sequence(node.value)
            elif isinstance(node.value, (ast.Name, ast.Attribute)) and dotted(node.value):
                self.assignments.append((target.id, dotted(node.value)))

    def augment(self, node: ast.AugAssign) -> None:
        """A module-level ``__all__ += [...]`` (any operator reads as ``+=``): extending a literal list with
        another keeps it known, anything else makes it unknown."""
        if isinstance(node.target, ast.Name) and node.target.id == "__all__":
            extra = _string_sequence(node.value)
            self.all_names = (self.all_names + extra) if (self.all_names is not None and extra is not None) \
                else None


def absolute(importer: str, is_package: bool, level: int, module: str) -> str:
    """The absolute name of ``module`` as ``from {"." * level}{module} import ...`` in the module ``importer`` means
    it (a package's own ``__init__`` is the package ``.`` names)."""
    if not level:
        return module
    package = importer.split(".") if importer else []
    if not is_package:
        package = package[:-1]
    package = package[: len(package) - (level - 1)] if level - 1 <= len(package) else []
    return ".".join(p for p in [*package, module] if p)


def _string_sequence(node: ast.expr) -> tuple[str, ...] | None:
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    values = [string(element) for element in node.elts]
    return None if any(v is None for v in values) else tuple(values)  # type: ignore[arg-type]
