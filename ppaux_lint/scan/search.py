"""Whether bytes contain any of many literal needles: the inner loop of the prefilter's scans.

A fixpoint round over a deep hierarchy searches every remaining file for hundreds of class names at once.
A regex that lists them as alternatives (``A|B|C``) tries each one at every position, so it slows down
with the number of needles (1,469 needles over 42 MB: 2.8 s); the same needles as a trie, sharing every
common prefix (``(?:Ca(?:che|ll)|...)``), rule out a position after a character or two whatever their
number (0.26 s). A handful of needles is faster still as one ``in`` each, which runs at memory speed, once
the needles that contain another are dropped (they can only match where that one does).

Yet even a trie stops at every byte that starts some needle, and a project's class names share their first
letters with everything (``A``: 292 names ``Aux0000L00Output``... took 0.28 s over 51 MB). They share longer
pieces too, a family's prefix or ``Output``: a few such anchors, each found at memory speed by ``bytes.find``,
cover every needle, and where an anchor occurs, each needle that holds it is compared at its place
(``Anchored``): 0.02 s for the same search. Exactly the same answer as the regex: a needle that occurs holds
one of the anchors at some offset ``k``, so that anchor occurs ``k`` bytes into the occurrence, where the
needle is compared; a comparison that succeeds is an occurrence. When the needles need more than
``MAX_ANCHORS`` anchors, the trie does the search.

Each anchor is then widened to the longest piece that all the needles filed under it share where they hold
it (``_widened``: ``tensor`` becomes ``_pp_tensors``, ``xiliar`` becomes ``AuxiliaryOutput``): as fast to find,
and far rarer in real code. So anchors also serve a few needles, whenever they are fewer: the first round's
twelve (the Protocols', the methods' and the helpers' names) need six, which search SGLang's tree in 0.16 s
where one ``in`` per needle took 0.22 s (six-byte anchors, ``tensor`` among them, took 0.28 s), and a later
round's eighteen class names of one family need two (5 ms over the 1,000-file project, against 23 ms).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Collection, Iterable, Sequence

REGEX_MIN_NEEDLES = 24  # past this many, one regex pass beats an ``in`` per needle
ANCHOR_LENGTH = 6  # bytes of an anchor (a needle shorter than this is its own)
MAX_ANCHORS = 8  # ``find`` passes a search may make before the trie's one pass is cheaper
MAX_OCCURRENCES = 64  # of anchors, in one text, compared at before the fallback searches it instead


def searcher(needles: Collection[bytes]) -> Callable[[bytes], bool]:
    """A test of whether bytes contain at least one of ``needles`` (as substrings)."""
    if len(needles) <= REGEX_MIN_NEEDLES:
        kept = minimal(needles)
        anchored = Anchored.of(frozenset(kept)) if len(kept) > 1 else None
        if anchored is not None and anchored.anchors < len(kept):  # fewer passes over each text
            return anchored.search
        return _each_searcher(kept)
    anchored = Anchored.of(frozenset(needles))
    if anchored is not None:
        return anchored.search
    return _trie_searcher(needles)


def _each_searcher(kept: tuple[bytes, ...]) -> Callable[[bytes], bool]:
    """One ``in`` per needle, each at memory speed (``kept``: no needle holds another, ``minimal``)."""
    return lambda data: any(needle in data for needle in kept)


def _trie_searcher(needles: Collection[bytes]) -> Callable[[bytes], bool]:
    """The one regex pass over the needles' trie (``_trie_pattern``)."""
    pattern = re.compile(_trie_pattern(needles))
    return lambda data: pattern.search(data) is not None


class Anchored:
    """A search for many needles through a few anchors (see the module's docstring): each needle filed under
    one anchor it holds, grouped by where it holds it and by its length, so that one slice and one set lookup
    test a whole group at an occurrence of the anchor."""

    def __init__(self, needles: frozenset[bytes], groups: dict[bytes, list[tuple[int, int, frozenset[bytes]]]]) \
            -> None:
        self._needles = needles
        self._groups = list(groups.items())
        self.anchors = len(self._groups)
        self._fallback: Callable[[bytes], bool] | None = None  # made when a text first needs it

    @staticmethod
    @functools.lru_cache(maxsize=8)  # a worker searches many chunks for the same needles
    def of(needles: frozenset[bytes]) -> Anchored | None:
        """The anchored search for ``needles``; None when they need more than ``MAX_ANCHORS`` anchors."""
        cover = _cover(needles)
        if cover is None:
            return None
        filed: dict[bytes, list[bytes]] = {}
        for needle in needles:
            # Under one anchor it holds (the cover gives each needle one): every occurrence of the needle holds
            # that anchor, so it is found there; filing it under the others too only added comparisons.
            filed.setdefault(next(anchor for anchor in cover if anchor in needle), []).append(needle)
        grouped: dict[bytes, dict[tuple[int, int], set[bytes]]] = {}
        for anchor, members in filed.items():
            widened = _widened(anchor, members)
            for needle in members:
                at = needle.find(widened)
                while at >= 0:  # each place the needle holds it: an occurrence may be found at any of them
                    grouped.setdefault(widened, {}).setdefault((at, len(needle)), set()).add(needle)
                    at = needle.find(widened, at + 1)
        return Anchored(needles, {anchor: [(at, length, frozenset(members)) for (at, length), members in
                                           by_place.items()] for anchor, by_place in grouped.items()})

    def search(self, data: bytes) -> bool:
        """Whether ``data`` holds a needle. Text that holds an anchor at every turn (an anchor common in the
        project) is searched without them after ``MAX_OCCURRENCES`` of them (``_unanchored``), so no text costs
        much more than that search would."""
        find = data.find
        budget = MAX_OCCURRENCES
        for anchor, groups in self._groups:
            position = find(anchor)
            while position >= 0:
                for at, length, members in groups:
                    start = position - at
                    if start >= 0 and data[start:start + length] in members:
                        return True
                budget -= 1
                if not budget:
                    return self._unanchored(data)
                position = find(anchor, position + 1)
        return False

    def _unanchored(self, data: bytes) -> bool:
        """The search without anchors: one ``in`` per needle for a few, the trie's one pass for many."""
        if self._fallback is None:
            few = len(self._needles) <= REGEX_MIN_NEEDLES
            self._fallback = _each_searcher(minimal(self._needles)) if few else _trie_searcher(self._needles)
        return self._fallback(data)


def _widened(anchor: bytes, members: list[bytes]) -> bytes:
    """The longest piece around ``anchor`` that every one of ``members`` holds where it first holds ``anchor``."""
    places = [member.find(anchor) for member in members]
    first, at = members[0], places[0]
    before = 0
    while all(place > before and member[place - before - 1] == first[at - before - 1]
              for member, place in zip(members, places, strict=True)):
        before += 1
    after = 0
    while all(place + len(anchor) + after < len(member)
              and member[place + len(anchor) + after] == first[at + len(anchor) + after]
              for member, place in zip(members, places, strict=True)):
        after += 1
    return first[at - before:at + len(anchor) + after]


def _cover(needles: frozenset[bytes]) -> list[bytes] | None:
    """Anchors such that every needle holds one, taken greedily (the piece the most needles still uncovered
    hold, longest first among equals); None past ``MAX_ANCHORS``. An empty needle is in everything: no anchor
    can stand for it."""
    if b"" in needles:
        return None
    pieces: dict[bytes, set[bytes]] = {}
    for needle in needles:
        width = min(len(needle), ANCHOR_LENGTH)
        for at in range(len(needle) - width + 1):
            pieces.setdefault(needle[at:at + width], set()).add(needle)
    uncovered = set(needles)
    anchors: list[bytes] = []
    while uncovered:
        if len(anchors) == MAX_ANCHORS:
            return None
        best = max(pieces, key=lambda piece: (len(pieces[piece] & uncovered), len(piece), piece))
        anchors.append(best)
        uncovered -= pieces.pop(best)
    return anchors


def minimal(needles: Iterable[bytes]) -> tuple[bytes, ...]:
    """The needles that contain no other one, shortest first: bytes hold one of these exactly when they
    hold one of all."""
    contains = Substrings(needles)
    return tuple(n for n in sorted(contains.needles, key=lambda n: (len(n), n)) if not contains.other_in(n))


class Substrings:
    """Which needles occur inside a short text (a token). Each needle is filed under its first two bytes, with its
    length: a place in the text costs one lookup, and a slice only where some needle starts with those two bytes.
    A token is a few dozen bytes: this costs far less than a regex over thousands of needles takes to compile, or
    a test of every needle against every token, or a slice of every length at every place (the monorepo's
    fixpoint asks about 4,800 tokens, 2,400 of them against 15 older ones: 26 ms that way, 11 ms this way)."""

    def __init__(self, needles: Iterable[bytes]) -> None:
        self.needles = frozenset(needles)
        self._short = frozenset(n for n in self.needles if len(n) < 2)  # b"" and single bytes: no two to file under
        starts: dict[bytes, set[int]] = {}
        for needle in self.needles:
            if len(needle) >= 2:
                starts.setdefault(needle[:2], set()).add(len(needle))
        self._starts = {start: sorted(lengths) for start, lengths in starts.items()}

    def add(self, needles: Iterable[bytes]) -> None:
        """File more needles: what a fixpoint round adds to the tokens it already holds, at the cost of the new
        ones (made anew each round, the index cost every older token again: n * n for a chain of n rounds)."""
        fresh = frozenset(needles) - self.needles
        if not fresh:
            return
        self.needles = self.needles | fresh
        self._short = self._short | frozenset(n for n in fresh if len(n) < 2)
        for needle in fresh:
            if len(needle) >= 2:
                lengths = self._starts.setdefault(needle[:2], [])
                if len(needle) not in lengths:
                    bisect.insort(lengths, len(needle))

    def any_in(self, text: bytes) -> bool:
        return self._find(text, len(text) + 1)

    def other_in(self, text: bytes) -> bool:
        """Whether a needle other than ``text`` itself occurs in it (only a shorter one can)."""
        return self._find(text, len(text))

    def _find(self, text: bytes, below: int) -> bool:
        """Whether a needle shorter than ``below`` occurs in ``text``."""
        if self._short and any(len(n) < below and n in text for n in self._short):
            return True
        starts, needles, end = self._starts, self.needles, len(text)
        for at in range(end - 1):
            lengths = starts.get(text[at:at + 2])
            if lengths is None:
                continue
            for length in lengths:
                if length >= below or at + length > end:
                    break
                if length == 2 or text[at:at + length] in needles:
                    return True
        return False


class Held:
    """Texts kept in memory, searched for a few needles through one copy of them all, joined by NUL bytes (which
    no needle holds, so no match spans two texts): a ``find`` at memory speed per needle and per text that
    holds it, where a search of each text cost a call of Python per text. The fixpoint's later rounds search
    the same remaining files for the one or two tokens each round adds; over a chain of n modules that was
    n rounds of n searches."""

    def __init__(self, keys: Sequence[str], texts: Sequence[bytes]) -> None:
        self.keys = frozenset(keys)
        self._keys = tuple(keys)
        self._starts: list[int] = []
        at = 0
        for text in texts:
            self._starts.append(at)
            at += len(text) + 1
        self._blob = b"\0".join(texts)

    def holding(self, needles: Iterable[bytes]) -> set[str]:
        """The keys of the texts that contain at least one of ``needles`` (as substrings)."""
        starts, blob, found = self._starts, self._blob, set()
        if not starts:
            return set()
        for needle in needles:
            at = blob.find(needle)
            while at >= 0:
                index = bisect.bisect_right(starts, at) - 1
                found.add(index)
                at = blob.find(needle, starts[index + 1]) if index + 1 < len(starts) else -1
        return {self._keys[i] for i in found}


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
