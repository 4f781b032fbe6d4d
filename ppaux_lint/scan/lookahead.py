"""A guess, from bytes already read, at every token the prefilter's fixpoint will reach.

The fixpoint (engine.py, prefilter.py) learns a level of a class hierarchy per round, and each round
searches every file not yet matched: a tree whose deepest hierarchy has twelve levels is read thirteen
times, which at 50,000 files is most of a cold run. But the names that a file would bind to a token,
were it parsed, can be guessed from its bytes while a round reads them anyway: a class header
``class Name(... base ...):`` binds ``Name`` to each identifier among its bases, ``... base as alias``
binds ``alias`` and ``alias = pkg.base`` does too. Following these edges from the tokens gives a set
that holds every token the fixpoint will add, unless the source hides an edge from these patterns (a
comment with a colon inside a class header, an alias split across lines). One search for that set then
finds every file a later round can match, and later rounds read only those: the tree is read three
times (the first round, the second, which collects the edges, and the search for the guess), whatever
its depth. The second round, not the first, because most trees are settled by one round, and reading
edges costs about as much as the first round's search.

A guess is never trusted for the result: the engine still runs every round on the real summaries, and
a round whose new tokens are not all in the guess searches every remaining file, as without one. A wrong
guess costs time, never a finding; an over-large one (an edge read from a docstring) costs a few files
parsed for nothing, exactly as a token mentioned in a comment does.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping

_CLASS = re.compile(rb"class\s+(\w+)\s*\(([^:]*)\)\s*:")
_WORD = re.compile(rb"\w+")
# Led by a literal, which the regex engine finds at memory speed; the name before it is read backwards. Only
# class-like values (a capital after any underscores) can carry a token from a later round: a lower-case
# alias of a helper is bound in a file the first round matches already.
_ALIAS = re.compile(rb" as[ \t]+(\w+)")
# Possessive where the regex module has them (Python 3.11): every ``=`` of a file is tried, and backing off a
# run of spaces or word characters can never make this match (what follows it is a space, a word character or
# a dot), so the same matches come twice as fast (9 ms to 4.6 per 1,000 files of the synthetic project).
_ASSIGN = re.compile(rb"=[ \t]*+(?:\w++\.)*+(_*[A-Z]\w*+)[ \t]*+(?:\n|#)" if sys.version_info >= (3, 11)
                     else rb"=[ \t]*(?:\w+\.)*(_*[A-Z]\w*)[ \t]*(?:\n|#)")
_CLASS_LIKE = re.compile(rb"_*[A-Z]")
_TAIL = re.compile(rb"\w+\Z")
_BACK = 80  # bytes before ``as`` or ``=`` that can hold the name: more than any identifier needs

Graph = dict[bytes, set[bytes]]


def add_edges(data: bytes, graph: Graph) -> None:
    """Add to ``graph`` the edges name -> bound of this file: were ``name`` a token, its summary would bind
    ``bound`` to it."""
    for match in _CLASS.finditer(data):
        name = match.group(1)
        for base in _WORD.findall(match.group(2)):
            graph.setdefault(base, set()).add(name)
    for match in _ALIAS.finditer(data):
        source = _word_before(data, match.start())
        if source and _CLASS_LIKE.match(source):
            graph.setdefault(source, set()).add(match.group(1))
    for match in _ASSIGN.finditer(data):
        target = _word_before(data, match.start())
        if target:
            graph.setdefault(match.group(1), set()).add(target)


def _word_before(data: bytes, end: int) -> bytes | None:
    words = data[max(0, end - _BACK):end].rsplit(None, 1)
    found = _TAIL.search(words[-1]) if words else None
    return found.group() if found is not None else None


def reach(tokens: Iterable[str], *graphs: Mapping[bytes, Iterable[bytes]]) -> frozenset[str]:
    """Every name the edges of ``graphs`` lead to from ``tokens``, and the tokens themselves."""
    seen = {t.encode("utf-8") for t in tokens}
    todo = list(seen)
    while todo:
        name = todo.pop()
        for graph in graphs:
            for bound in graph.get(name, ()):
                if bound not in seen:
                    seen.add(bound)
                    todo.append(bound)
    return frozenset(name.decode("utf-8", "replace") for name in seen)
