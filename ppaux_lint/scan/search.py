"""Whether bytes contain any of many literal needles: the inner loop of the prefilter's scans.

A fixpoint round over a deep hierarchy searches every remaining file for hundreds of class names at once.
A regex that lists them as alternatives (``A|B|C``) tries each one at every position, so it slows down
with the number of needles (1,469 needles over 42 MB: 2.8 s); the same needles as a trie, sharing every
common prefix (``(?:Ca(?:che|ll)|...)``), rule out a position after a character or two whatever their
number (0.26 s). A handful of needles is faster still as one ``in`` each, which runs at memory speed, once
the needles that contain another are dropped (they can only match where that one does).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Iterable

REGEX_MIN_NEEDLES = 24  # past this many, one regex pass beats an ``in`` per needle


def searcher(needles: Collection[bytes]) -> Callable[[bytes], bool]:
    """A test of whether bytes contain at least one of ``needles`` (as substrings)."""
    if len(needles) <= REGEX_MIN_NEEDLES:
        kept = minimal(needles)
        return lambda data: any(needle in data for needle in kept)
    pattern = re.compile(_trie_pattern(needles))
    return lambda data: pattern.search(data) is not None


def minimal(needles: Iterable[bytes]) -> tuple[bytes, ...]:
    """The needles that contain no other one, shortest first: bytes hold one of these exactly when they
    hold one of all."""
    contains = Substrings(needles)
    return tuple(n for n in sorted(contains.needles, key=lambda n: (len(n), n)) if not contains.other_in(n))


class Substrings:
    """Which needles occur inside a short text (a token), by looking its slices up: a token is a few dozen
    bytes and the needles have few distinct lengths, so this costs far less than a regex over thousands
    of needles takes to compile, or a test of every needle against every token."""

    def __init__(self, needles: Iterable[bytes]) -> None:
        self.needles = frozenset(needles)
        self._lengths = sorted({len(n) for n in self.needles})

    def any_in(self, text: bytes) -> bool:
        return self._find(text, len(text) + 1)

    def other_in(self, text: bytes) -> bool:
        """Whether a needle other than ``text`` itself occurs in it (only a shorter one can)."""
        return self._find(text, len(text))

    def _find(self, text: bytes, below: int) -> bool:
        for length in self._lengths:
            if length >= below:
                return False
            if any(text[i:i + length] in self.needles for i in range(len(text) - length + 1)):
                return True
        return False


def _trie_pattern(needles: Iterable[bytes]) -> bytes:
    """A regex matching where some needle starts, its alternatives branching only where needles do; a
    needle that another starts with ends the match there (a substring test needs no more)."""
    return _branches(sorted(set(needles)), 0)


_ESCAPED = tuple(re.escape(bytes([byte])) for byte in range(256))


def _branches(group: list[bytes], depth: int) -> bytes:
    """The pattern for the rest of ``group``: sorted needles that share their first ``depth`` bytes."""
    if len(group[0]) == depth:  # a needle that ends here sorts first, and it is a match already
        return b""
    if len(group) == 1:
        return b"".join(_ESCAPED[byte] for byte in group[0][depth:])
    alternatives = [_ESCAPED[byte] + _branches(list(members), depth + 1)
                    for byte, members in itertools.groupby(group, key=lambda needle: needle[depth])]
    return alternatives[0] if len(alternatives) == 1 else b"(?:" + b"|".join(alternatives) + b")"
