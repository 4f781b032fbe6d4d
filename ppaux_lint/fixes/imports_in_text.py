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
_FROM = re.compile(rf"from{_BLANK}*(?P<dots>(?:\.{_BLANK}*)*)(?P<module>{_DOTTED})?{_BLANK}*(?<!\w)import(?!\w)"
                   rf"{_BLANK}*(?:(?P<star>\*)|\((?P<group>[^)#]*(?:#[^\r\n]*[^)#]*)*)\)|(?P<names>{_NAMED}(?:{_BLANK}*,{_BLANK}*"
                   rf"{_NAMED})*))")
_IMPORT = re.compile(rf"import{_BLANK}+(?P<names>{_ALIASED}(?:{_BLANK}*,{_BLANK}*{_ALIASED})*)")
_ANY_BLANK = r"(?:\s|\\\r?\n|\\\r)"  # between parentheses, newlines too
_GROUP_NAMED = rf"{_NAME}(?:{_ANY_BLANK}+as{_ANY_BLANK}+{_NAME})?"
_GROUP = re.compile(rf"{_ANY_BLANK}*{_GROUP_NAMED}(?:{_ANY_BLANK}*,{_ANY_BLANK}*{_GROUP_NAMED})*{_ANY_BLANK}*,?"
                    rf"{_ANY_BLANK}*")
_ALIAS = re.compile(rf"(?P<name>{_DOTTED})(?:{_ANY_BLANK}+as{_ANY_BLANK}+{_NAME})?")
_COMMENT = re.compile(r"#[^\r\n]*")
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
        statement = (_FROM if keyword == "from" else _IMPORT).match(text, start) if line_start is not None else None
        if statement is None:
            if keyword == "import":  # not a statement the pass can read: no upper bound
                written = None
            continue  # ``yield from``, ``raise ... from``
        position = statement.end()
        targets = _targets(statement, module, is_package)
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


def _targets(statement: re.Match[str], module: str, is_package: bool) -> list[str] | None:
    """The statement's targets; None when its names do not read as names."""
    if statement.re is _IMPORT:
        return _names(statement.group("names"))
    base = absolute(module, is_package, statement.group("dots").count("."), _name(statement.group("module") or ""))
    if statement.group("star") is not None:
        return [base]
    group = statement.group("group")
    if group is not None:
        group = _COMMENT.sub("", group)
        if _GROUP.fullmatch(group) is None:
            return None
    names = _names(group if group is not None else statement.group("names"))
    return [f"{base}.{name}" if base else name for name in names]


def _names(aliases: str) -> list[str]:
    """The names imported in ``a.b as c, d``: ``a.b`` and ``d``."""
    return [_name(alias.group("name")) for alias in _ALIAS.finditer(aliases)]


def _name(spelled: str) -> str:
    """A dotted name as Python reads it: without the blanks around its dots, NFKC-normalized."""
    name = _NOT_NAME.sub("", spelled)
    return name if name.isascii() else unicodedata.normalize("NFKC", name)
