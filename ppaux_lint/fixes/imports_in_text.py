"""The imports a module's text spells, read without parsing it: two bounds on those that run when it is imported.

Fix planning asks whether a new module-level import would close an import cycle (:mod:`.import_cycles`), and the
question follows the project's import-time imports from module to module. Most modules it meets were never
summarized (the prefilter skipped them), and summarizing one was a parse in a worker and a message: 3-7 ms, 0.45 s
for the 130 that a 10,000-file project's searches met. One regular-expression pass over the text costs about a
fifth of a millisecond and gives two bounds on the targets of the import statements outside function bodies (what
``import_cycles.imported_at_import_time`` reads from the tree), each sound on its own:

- ``written``, at least those: every import statement outside strings and comments, at any depth (inside
  functions too). An ``import`` keyword the pass cannot read as part of a statement it understands (an unusual
  spelling), or a string never closed, leaves no upper bound: None.
- ``top_level``, at most those: the statements that begin a line at its first column, which are always at module
  level. A file that does not parse has no imports as the tree reads it; its text is taken at its word there,
  which can only make the search see a cycle and offer no fix.

A target is spelled whole: ``import a.b`` runs ``a.b`` (and ``a`` on its way), ``from a import b`` names ``a.b``.
"""

from __future__ import annotations

import re
import unicodedata

from ppaux_lint.facts.summarize.imports import absolute
from ppaux_lint.support.records import dataclass

_BLANK = r"(?:[ \t\f]|\\\r?\n|\\\r)"  # inside one logical line: blanks and backslash continuations
_NAME = r"[^\W\d]\w*"
_DOTTED = rf"{_NAME}(?:{_BLANK}*\.{_BLANK}*{_NAME})*"
_ALIASED = rf"{_DOTTED}(?:{_BLANK}+as{_BLANK}+{_NAME})?"
_NAMED = rf"{_NAME}(?:{_BLANK}+as{_BLANK}+{_NAME})?"

# What the pass stops at: a comment, the quote that opens a string (so that nothing inside either counts), or a keyword
# of an import. The lookahead lets the engine skip to the characters that can start one (4x faster).
_TOKEN = re.compile(r"(?=[#\"'fi])(?:#[^\r\n]*|(?P<quote>\"{3}|'{3}|\"|')|\b(?P<keyword>from|import)\b)")
# The rest of a string and its closing quote, for each opening quote; written so that no text makes them backtrack
# more than once over a character ("unrolled" loops), since the checked files are anybody's.
_REST = {
    '"' * 3: re.compile(r'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"{3}', re.DOTALL),
    "'" * 3: re.compile(r"[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'{3}", re.DOTALL),
    '"': re.compile(r'[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*"', re.DOTALL),
    "'": re.compile(r"[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*'", re.DOTALL),
}
_SKIP = re.compile(rf"{_BLANK}*")
_DOTTED_NAME = re.compile(_DOTTED)
_IMPORT_WORD = re.compile(r"import(?!\w)")
_NAMES = re.compile(rf"{_NAMED}(?:{_BLANK}*,{_BLANK}*{_NAMED})*")
# The rest of a parenthesized group of names, to its ``)``; a comment there runs to the end of its line (and may
# hold a parenthesis). Each step can be taken one way only, so no text makes the match backtrack far.
_GROUP_REST = re.compile(r"[^()#]*(?:#[^\r\n]*(?:\r\n|[\r\n])[^()#]*)*\)")
_GROUP_NAME = re.compile(rf"\s*{_NAME}(?:\s+as\s+{_NAME})?\s*")
_IMPORT = re.compile(rf"import{_BLANK}+(?P<names>{_ALIASED}(?:{_BLANK}*,{_BLANK}*{_ALIASED})*)")
_ANY_BLANK = r"(?:\s|\\\r?\n|\\\r)"  # between parentheses, newlines too
_ALIAS = re.compile(rf"(?P<name>{_DOTTED})(?:{_ANY_BLANK}+as{_ANY_BLANK}+{_NAME})?")
_COMMENT = re.compile(r"#[^\r\n]*")
_CONTINUATION = re.compile(r"\\\r?\n|\\\r")
_NOT_NAME = re.compile(r"[\s\\]+")


@dataclass(frozen=True)
class TextImports:
    written: tuple[str, ...] | None  # targets of every import statement; None: no bound
    top_level: tuple[str, ...]  # targets of the statements at the first column


def imports_in_text(text: str, module: str, is_package: bool) -> TextImports:
    """The import targets ``text``, the source of ``module``, spells (see the module's docstring)."""
    written: list[str] | None = []
    top_level: list[str] = []
    position = 0
    while (token := _TOKEN.search(text, position)) is not None:
        position = token.end()
        keyword = token.group("keyword")
        if keyword is None:
            quote = token.group("quote")
            if quote is not None:  # a string: skip to its end
                rest = _REST[quote].match(text, position)
                if rest is None:  # never closed: not Python as the pass reads it
                    return TextImports(None, ())
                position = rest.end()
            continue
        start = token.start()
        line_start = _statement_start(text, start)
        read = None if line_start is None else _from_statement(text, start, module, is_package) \
            if keyword == "from" else _import_statement(text, start)
        if read is None:
            if keyword == "import":  # not a statement the pass can read: no upper bound
                written = None
            continue  # ``yield from``, ``raise ... from``
        position, targets = read
        if targets is None:
            written = None
            continue
        if written is not None:
            written.extend(targets)
        if line_start:
            top_level.extend(targets)
    return TextImports(tuple(written) if written is not None else None, tuple(top_level))


def _statement_start(text: str, start: int) -> bool | None:
    """Whether the keyword at ``start`` begins a line at its first column (True), begins a statement elsewhere
    (False: after blanks, a ``;`` or a ``:``), or is inside a statement (None)."""
    index = start - 1
    while index >= 0:
        char = text[index]
        if char in " \t\f":
            index -= 1
        elif char in "\r\n":
            newline = index - 1 if char == "\n" and index >= 1 and text[index - 1] == "\r" else index
            if newline < 1 or text[newline - 1] != "\\":
                return index == start - 1
            index = newline - 2  # a backslash continuation: the same logical line
        elif char in ";:":
            return False
        else:
            return None
    return start == 0


def _import_statement(text: str, start: int) -> tuple[int, list[str]] | None:
    """Where the ``import`` statement at ``start`` ends, and its targets; None when it does not read as one."""
    statement = _IMPORT.match(text, start)
    return (statement.end(), _names(statement.group("names"))) if statement is not None else None


def _from_statement(text: str, start: int, module: str, is_package: bool) -> tuple[int, list[str] | None] | None:
    """Where the ``from`` statement at ``start`` ends, and its targets (None when its names do not read as names);
    None when the ``from`` begins no import (``yield from``, ``raise ... from``). Read a step at a time: in one
    pattern, the blanks before and after the dots could be split in as many ways as there are blanks."""
    position = _SKIP.match(text, start + len("from")).end()
    level = 0
    while text.startswith(".", position):
        level += 1
        position = _SKIP.match(text, position + 1).end()
    name = ""
    dotted = _DOTTED_NAME.match(text, position) if _IMPORT_WORD.match(text, position) is None else None
    if dotted is not None:
        name = _name(dotted.group())
        position = _SKIP.match(text, dotted.end()).end()
    if not (level or name) or _IMPORT_WORD.match(text, position) is None:
        return None
    position = _SKIP.match(text, position + len("import")).end()
    base = absolute(module, is_package, level, name)
    if text.startswith("*", position):
        return position + 1, [base]
    if text.startswith("(", position):
        rest = _GROUP_REST.match(text, position + 1)
        if rest is None:
            return position + 1, None
        names = _group_names(text[position + 1:rest.end() - 1])
        position = rest.end()
    else:
        listed = _NAMES.match(text, position)
        if listed is None:
            return position, None
        names, position = _names(listed.group()), listed.end()
    return position, None if names is None else [f"{base}.{name}" if base else name for name in names]


def _group_names(group: str) -> list[str] | None:
    """The names between the parentheses of ``from x import (a, b as c,)``, None when they do not read as names."""
    parts = _CONTINUATION.sub(" ", _COMMENT.sub("", group)).split(",")
    if parts and not parts[-1].strip() and len(parts) > 1:
        parts.pop()  # a trailing comma
    if any(_GROUP_NAME.fullmatch(part) is None for part in parts):
        return None
    return [_name(part.split()[0]) for part in parts]


def _names(aliases: str) -> list[str]:
    """The names imported in ``a.b as c, d``: ``a.b`` and ``d``."""
    return [_name(alias.group("name")) for alias in _ALIAS.finditer(aliases)]


def _name(spelled: str) -> str:
    """A dotted name as Python reads it: without the blanks around its dots, NFKC-normalized."""
    name = _NOT_NAME.sub("", spelled)
    return name if name.isascii() else unicodedata.normalize("NFKC", name)
