"""Gitignore-style patterns, read as git reads them and matched in time linear in the path.

Every glob ppaux-lint matches against a path (``exclude``, ``extend-exclude``, ``--exclude``, .gitignore files,
``per-file-ignores``) is one of these. pathspec turns each pattern into a Python regular expression by git's
rules, and ``re`` matches it by backtracking, which is fast for the usual patterns but exponential in their
``*`` and ``**``: ``extend-exclude = ["pkg/*a*a*a*a*a*a*a*a*a*a*a*a*c"]`` against a 36-character name ran for
more than 30 s, where git answers at once. So a pattern is matched by ``re`` only where the work its
backtracking may do is small for that path (``support.linear_regex.Program.re_work``: ``*.py`` on any
ordinary path), and otherwise by ``linear_regex``, which runs the same expression in linear time and gives
the same answer, the directory mark included; which pattern decides is pathspec's own rule (``match_file``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ppaux_lint.support import linear_regex

RE_WORK = 100_000  # ways re's backtracking may try (linear_regex.Program.re_work): well under a millisecond
MAX_PATH = 4096  # Linux's PATH_MAX: no longer path reaches a pattern
_DIRECTORY = "ps_d"  # the group pathspec's expressions mark a match through a directory with


class Globs:
    """Gitignore-style patterns; a pattern that cannot be compiled is a ValueError (pathspec's own)."""

    def __init__(self, lines: Sequence[str]) -> None:
        import pathspec

        try:
            spec = pathspec.GitIgnoreSpec.from_lines(lines)
        except re.error as exc:
            raise ValueError(str(exc)) from None
        self.patterns = [_Pattern(p.include, p.regex) for p in spec.patterns if p.include is not None]
        self._normalize = pathspec.util.normalize_file

    def match_file(self, path: str) -> bool:
        """Whether ``path`` (relative, ``/``-separated) is matched, as ``pathspec.GitIgnoreSpec.match_file``
        decides: the last pattern to match wins, except that a file's own match outranks a match through its
        directory, unless that one includes."""
        path = self._normalize(path)
        include, rank = False, 0
        for pattern in self.patterns:
            through_directory = pattern.match(path)
            if through_directory is None:
                continue
            if (pattern.include and through_directory) or (1 if through_directory else 2) >= rank:
                include, rank = pattern.include, 1 if through_directory else 2
        return include


class _Pattern:
    def __init__(self, include: bool, regex: re.Pattern[str]) -> None:
        self.include = include
        self.regex = regex
        self.program = linear_regex.compile(regex.pattern)  # None only if pathspec wrote syntax it does not read
        self.re_length = _re_length(self.program) if self.program is not None else MAX_PATH

    def match(self, path: str) -> bool | None:
        """None when the pattern does not match ``path``, else whether it matched through a directory of it."""
        program = self.program
        if program is None or (len(path) <= self.re_length and (
                "\n" not in path or program.re_work(len(path), newline=True) <= RE_WORK)):
            found = self.regex.match(path)
            return None if found is None else bool(found.groupdict().get(_DIRECTORY))
        groups = program.match(path)
        return None if groups is None else _DIRECTORY in groups


def _re_length(program: linear_regex.Program) -> int:
    """The longest path without a newline whose ``re_work`` is within ``RE_WORK`` (-1: none is): found once per
    pattern, compared with each path's length."""
    if 1 << program.optional > RE_WORK:
        return -1
    roots = (RE_WORK >> program.optional) ** (1 / program.unbounded) if program.unbounded else MAX_PATH
    length = min(MAX_PATH, int(roots))
    while length >= 0 and program.re_work(length, newline=False) > RE_WORK:
        length -= 1
    return length
