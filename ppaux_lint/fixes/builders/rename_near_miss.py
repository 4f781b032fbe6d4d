"""``rename-near-miss``: rename a misspelt transport method to its real name, and nothing more.

The ``def`` and the ``self.<old>``/``cls.<old>`` uses inside the same class are renamed, only when the old
name is used nowhere else in the file, nor spelt anywhere in the project's other files (``super().<old>()`` in a
subclass elsewhere, ``getattr(out, "<old>")``), no subclass in the project defines it too (its override would be left
overriding nothing), the class binds nothing under the new name (nor does code after it), the class's text
spells its names as the parser reads them (no NFKC-folded identifier), and the method is neither ``async`` nor a
generator: renamed, it would return no mapping, and the near miss would become a PPA016.
"""

from __future__ import annotations

import ast
import os
import re
import unicodedata

from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes.plan import Plan, Planner
from ppaux_lint.fixes.sources import parse_quietly, read_source
from ppaux_lint.fixes.syntax import binds, intended_name, other_references

KIND = "rename-near-miss"


def build(planner: Planner, finding: Finding) -> Plan | None:
    owner = finding.symbol
    found = planner.sources.class_node(owner)
    if found is None or found[1] != finding.path:
        return None
    node, path, _ = found
    # the def the finding's name belongs to: the last one starting at or before the name's line (a backslash may
    # continue ``def`` onto the next line)
    definition = max((d for d in node.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and d.lineno <= finding.span.line), key=lambda d: d.lineno, default=None)
    if definition is None or isinstance(definition, ast.AsyncFunctionDef) or _yields(definition):
        return None  # renamed, it would be a transport method of the wrong shape (PPA016) instead of a near miss
    old = definition.name
    new = intended_name(old)
    if new is None or binds(node, new) or planner.index.set_outside(owner, new):
        return None
    if any(_defines(planner, subclass, old) for subclass in planner.index.subclasses(owner)):
        return None  # its override of the misspelt name, in whatever file, would no longer override anything
    if not _spelt_as_parsed(planner.sources.text(path), node):
        return None  # a fullwidth letter folds to ASCII for the parser, not for an edit of the text
    if other_references(planner.sources.tree(path), node, definition, old):
        return None  # renaming the def alone would break those uses
    if _named_elsewhere(planner, path, old):
        return None  # ``super().to_pp_tensor()`` in a subclass's file, ``getattr(out, "to_pp_tensor")`` would break
    return planner.base_plan(finding, owner, node, description=f"Rename `{old}` to `{new}`",
                             rename=(old, new, finding.span.line, finding.span.column))


def _named_elsewhere(planner: Planner, path: str, name: str) -> bool:
    """Whether any other file of the project uses ``name``: as an attribute (``super().to_pp_tensor()``), a name,
    an import, a string (``getattr(out, "to_pp_tensor")``), a keyword, anything but the ``def`` of a method of
    that name in a class of its own. Only the project's own files are read, as the analysis read them (an editor's
    buffer included), and only those that spell the name as a word are parsed; one that cannot be read or parsed
    counts as a use. A link to the renamed file itself is renamed with it."""
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    for source in planner.analysis.discovery.files:
        if source.path == path:
            continue
        try:
            text = read_source(source.path, planner.analysis.overlays)[0]
            if not word.search(text) or _same_file(source.path, path):
                continue
            tree = parse_quietly(text)
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, ValueError):
            return True
        if _uses(tree, name):
            return True
    return False


def _uses(tree: ast.Module, name: str) -> bool:
    methods = {id(d) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for d in c.body
               if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == name}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name \
                and id(node) not in methods:
            return True
        if (isinstance(node, ast.Attribute) and node.attr == name) or (isinstance(node, ast.Name) and node.id == name):
            return True
        if isinstance(node, ast.alias) and name in (node.name.split(".")[-1], node.asname):
            return True
        if isinstance(node, ast.keyword) and node.arg == name:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _word_in(node.value, name):
            return True
    return False


def _word_in(text: str, name: str) -> bool:
    """Whether ``text`` (a string constant) holds ``name`` as a word: ``"to_pp_tensor"``, ``"obj.to_pp_tensor"``."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _yields(definition: ast.FunctionDef) -> bool:
    """Whether the function is a generator: a ``yield`` in its own body, not in a function nested there."""
    todo: list[ast.AST] = list(definition.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _defines(planner: Planner, fqn: str, name: str) -> bool:
    cls = planner.index.classes.get(fqn)
    return cls is not None and (cls.method(name) is not None or cls.assign(name) is not None)


def _spelt_as_parsed(text: str, node: ast.ClassDef) -> bool:
    """Whether the class's text spells its names as the parser reads them: Python folds identifiers to NFKC
    (``\uff54o_pp_tensor``, with a fullwidth ``t``, is ``to_pp_tensor``), while the rename edits names as written, so
    a def or a use spelt otherwise would be missed, and the fix claimed done while nothing, or half, changed."""
    lines = text.splitlines()[node.lineno - 1:node.end_lineno or node.lineno]
    segment = "\n".join(lines)
    return segment.isascii() or unicodedata.normalize("NFKC", segment) == segment
