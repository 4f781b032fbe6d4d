"""A regular expression of the plain kind pathspec writes for a gitignore pattern, matched in time linear in the
text, with the answer Python's ``re`` gives.

``re`` backtracks: on failure it tries every way to share the text among the pattern's ``*`` and ``+``, and
pathspec writes every glob ``*`` as ``[^/]*`` and every ``**`` as ``.+``, so ``*a*a*a...*c`` against a name of
a's tries every way to split the name: a dozen of them against 36 characters ran for minutes. Here the same
expression runs as the same backtracking search, in the same order of preference, but it remembers each
(place in the expression, place in the text) it has left without a match and never tries one twice: at most
their product, once each. Since the order is ``re``'s, the match found first is ``re``'s, and so are the named
groups that took part in it.

Only the syntax pathspec writes is read: ``^``, ``$``, literals and ``\\``-escaped characters, ``.``,
bracket classes, ``(?:...)`` and ``(?P<name>...)`` groups, and the greedy ``*``, ``+`` and ``?``. ``compile``
gives None for anything else, and the caller keeps ``re``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable

# The instructions of a compiled expression: consume one character that passes a test, try two ways in order,
# jump, enter a named group, assert the end (``$``: the end, or before a newline that ends the text), succeed.
_CHAR, _SPLIT, _JUMP, _GROUP, _END, _MATCH = range(6)
_QUANTIFIERS = "*+?"
_NAMED = re.compile(r"\(\?P<(\w+)>")


class Program:
    """A compiled expression. ``unbounded`` counts its ``*`` and ``+`` but the tails (a ``.*`` right before ``$``,
    which can only fail at a newline), ``optional`` its ``?``: what bounds the work ``re``'s backtracking may do
    (``re_work``)."""

    def __init__(self) -> None:
        self.ops: list[int] = []
        self.args: list[object] = []
        self.unbounded = 0
        self.tails = 0
        self.optional = 0
        self.required: list[str] = []  # literal runs every match holds, in order: a quick test that it cannot match

    def emit(self, op: int, arg: object = None) -> int:
        self.ops.append(op)
        self.args.append(arg)
        return len(self.ops) - 1

    def re_work(self, length: int, newline: bool) -> int:
        """A bound on the ways ``re`` may try to match a text of ``length`` characters: each unbounded quantifier
        stops at one of length+1 places, each ``?`` takes its group or not, and a tail counts only where a
        ``newline`` can stop it."""
        return (length + 1) ** (self.unbounded + (self.tails if newline else 0)) << self.optional

    def match(self, text: str) -> frozenset[str] | None:
        """The names of the groups that took part in the match ``re.match`` finds, or None when it finds none."""
        start = 0
        for literal in self.required:
            start = text.find(literal, start)
            if start < 0:
                return None
            start += len(literal)
        ops, args, size, width = self.ops, self.args, len(text), len(text) + 1
        failed: set[int] = set()  # pc * width + position: left once, so without a match from there
        stack: list[tuple[int, int, frozenset[str]]] = [(0, 0, frozenset())]
        while stack:
            pc, at, groups = stack.pop()
            while pc * width + at not in failed:
                failed.add(pc * width + at)
                op = ops[pc]
                if op == _CHAR:
                    if at < size and args[pc](text[at]):  # type: ignore[operator]
                        pc, at = pc + 1, at + 1
                        continue
                    break
                if op == _SPLIT:
                    first, second = args[pc]  # type: ignore[misc]
                    stack.append((second, at, groups))
                    pc = first
                elif op == _JUMP:
                    pc = args[pc]  # type: ignore[assignment]
                elif op == _GROUP:
                    groups, pc = groups | {args[pc]}, pc + 1  # type: ignore[operator]
                elif op == _END:
                    if at != size and (at != size - 1 or text[at] != "\n"):
                        break
                    pc += 1
                else:
                    return groups
        return None


def compile(regex: str) -> Program | None:
    """The program of ``regex``, or None when it uses syntax pathspec does not write."""
    program = Program()
    try:
        end = _sequence(regex, 1 if regex.startswith("^") else 0, program, top=True)
    except (_Unsupported, re.error):
        return None
    if end != len(regex):  # a ")" without its "("
        return None
    program.emit(_MATCH)
    return program


class _Unsupported(Exception):
    pass


def _sequence(regex: str, at: int, program: Program, top: bool = False) -> int:
    """Compile items from ``at`` up to a ``)`` or the end; where it stopped. ``top``: not inside a group, so its
    literals are in every match."""
    literal = ""
    while at < len(regex) and regex[at] != ")":
        atom_end, quantifier = _atom_end(regex, at)
        quantifier_end = atom_end + (quantifier != "")
        if quantifier == "?":
            program.optional += 1
        if regex[at:quantifier_end] == ".*" and regex[quantifier_end:].lstrip(")?") == "$":
            program.tails += 1
        elif quantifier in ("*", "+"):
            program.unbounded += 1
        single = _literal(regex, at, atom_end)
        if top and single is not None and not quantifier:
            literal += single
        elif literal:
            program.required.append(literal)
            literal = ""
        if quantifier in ("*", "?"):
            split = program.emit(_SPLIT)
            _one(regex, at, atom_end, program)
            if quantifier == "*":
                program.emit(_JUMP, split)
            program.args[split] = (split + 1, len(program.ops))
        else:
            first = len(program.ops)
            _one(regex, at, atom_end, program)
            if quantifier == "+":
                program.emit(_SPLIT, (first, len(program.ops) + 1))
        at = quantifier_end
    if literal:
        program.required.append(literal)
    return at


def _atom_end(regex: str, at: int) -> tuple[int, str]:
    """Where the atom at ``at`` ends, and the quantifier after it ("" for none)."""
    char = regex[at]
    if char == "(":
        end = _group_end(regex, at)
    elif char == "[":
        end = _class_end(regex, at)
    elif char == "\\":
        if at + 1 >= len(regex) or regex[at + 1].isalnum():  # \d, \w, \1...: not a literal
            raise _Unsupported
        end = at + 2
    elif char in "|{}*+?^":
        raise _Unsupported
    else:
        end = at + 1
    quantifier = regex[end] if end < len(regex) and regex[end] in _QUANTIFIERS else ""
    if quantifier and end + 1 < len(regex) and regex[end + 1] in _QUANTIFIERS:  # lazy or possessive
        raise _Unsupported
    return end, quantifier


def _group_end(regex: str, at: int) -> int:
    """One past the ``)`` that closes the group at ``at``: a ``(?:`` or a ``(?P<name>``, the groups pathspec
    writes."""
    named = _NAMED.match(regex, at)
    if named is None and not regex.startswith("(?:", at):
        raise _Unsupported
    end = named.end() if named is not None else at + 3
    while end < len(regex) and regex[end] != ")":
        end, quantifier = _atom_end(regex, end)
        end += quantifier != ""
    if end >= len(regex):
        raise _Unsupported
    return end + 1


def _class_end(regex: str, at: int) -> int:
    """One past the ``]`` that closes the class at ``at``, by re's rules: a ``]`` first (after any ``^``) is a
    member, and ``\\`` escapes the character after it."""
    end = at + 1
    if end < len(regex) and regex[end] == "^":
        end += 1
    if end < len(regex) and regex[end] == "]":
        end += 1
    while end < len(regex) and regex[end] != "]":
        end += 2 if regex[end] == "\\" else 1
    if end >= len(regex):
        raise _Unsupported
    return end + 1


def _literal(regex: str, at: int, end: int) -> str | None:
    """The one character the atom matches, when it is a literal."""
    if regex[at] == "\\":
        return regex[at + 1]
    return regex[at] if end == at + 1 and regex[at] not in ".$" else None


def _one(regex: str, at: int, end: int, program: Program) -> None:
    """Compile the atom ``regex[at:end]``."""
    char = regex[at]
    if char == "(":
        named = _NAMED.match(regex, at)
        if named is not None:
            program.emit(_GROUP, named.group(1))
        _sequence(regex, named.end() if named is not None else at + 3, program)
    elif char == "$":
        program.emit(_END)
    else:
        program.emit(_CHAR, _test(regex[at:end]))


def _test(atom: str) -> Callable[[str], bool]:
    """Whether one character matches ``atom``: a literal, ``.``, or a class (as re reads it)."""
    if atom == ".":
        return lambda char: char != "\n"
    if atom == "[^/]":
        return lambda char: char != "/"
    if atom.startswith("["):
        with warnings.catch_warnings():  # "possible nested set": re warned when the whole expression was compiled
            warnings.simplefilter("ignore", FutureWarning)
            matches = re.compile(atom).match
        return lambda char: matches(char) is not None
    literal = atom[-1]
    return lambda char: char == literal
