"""Project files as a fix sees them.

Summaries keep facts, not trees, and a fix has to agree with the bytes it will rewrite; so each file a plan
looks at is read as stored and parsed once, and classes are found by the name and line their summary gives.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ppaux_lint.facts.summarize.syntax import walk_statements
from ppaux_lint.support.encoding import source_encoding
from ppaux_lint.support.fileio import MAX_SOURCE_BYTES, read_regular_file

if TYPE_CHECKING:
    from ppaux_lint.index.project_index import ProjectIndex


def read_source(path: str, overlays: Mapping[str, bytes] | None = None) -> tuple[str, str]:
    """The file's text exactly as stored (newlines untranslated) and its encoding; an overlay's (the editor's
    buffer, standard input) when there is one, since that is what the findings were computed from."""
    return read_source_data(path, overlays)[1:]


def read_source_data(path: str, overlays: Mapping[str, bytes] | None = None) -> tuple[bytes, str, str]:
    """``read_source``, with the bytes the text was decoded from."""
    if overlays is not None and path in overlays:
        data = overlays[path]
    else:
        data = read_regular_file(path, MAX_SOURCE_BYTES)  # as the analysis read it: never a FIFO, never a huge one
    encoding = source_encoding(data)
    return data, data.decode(encoding), encoding


def parse_quietly(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` of a checked file's text: the checked code's SyntaxWarnings are not ours to print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=filename)


def writes_back(data: bytes, text: str, encoding: str) -> bool:
    """Whether ``encoding`` gives back the very bytes ``text`` was decoded from: only then may a fix or a noqa
    rewrite the file, since it changes nothing but its own bytes. Not every codec Python reads source in does:
    a coding cookie of ``unicode_escape`` writes a newline as a backslash and an n, ``idna`` refuses a long
    line."""
    try:
        return text.encode(encoding) == data
    except (UnicodeError, LookupError):
        return False


class Sources:
    """Parsed files of one analysis, and the project classes in them."""

    def __init__(self, index: ProjectIndex, overlays: Mapping[str, bytes] | None = None) -> None:
        self.index = index
        self.overlays = overlays
        self._trees: dict[str, tuple[str, ast.Module]] = {}
        self._classes: dict[str, dict[tuple[str, int], ast.ClassDef]] = {}  # by file: (name, line) -> node

    def tree(self, path: str) -> ast.Module:
        if path not in self._trees:
            text = read_source(path, self.overlays)[0]
            self._trees[path] = (text, parse_quietly(text, path))
        return self._trees[path][1]

    def text(self, path: str) -> str:
        self.tree(path)
        return self._trees[path][0]

    def class_node(self, fqn: str) -> tuple[ast.ClassDef, str, str] | None:
        """The ast node of a project class, with its file path and module."""
        summary = self.index.classes.get(fqn)
        if summary is None:
            return None
        module = self.index.class_module[fqn]
        path = self.index.modules[module].path
        if path not in self._classes:  # one walk per file, however many of its classes are asked about
            self._classes[path] = {(node.name, node.lineno): node for node in _class_defs(self.tree(path).body)}
        node = self._classes[path].get((summary.name, summary.class_line))
        return (node, path, module) if node is not None else None


def _class_defs(body: list[ast.stmt]) -> Iterable[ast.ClassDef]:
    """Every class statement, at any depth: only statement lists are searched, never expressions, which are
    most of a tree's nodes and can hold no class."""
    return (node for node in walk_statements(body, into_scopes=True) if isinstance(node, ast.ClassDef))
