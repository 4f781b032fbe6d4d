"""The prefilter's byte search: the trie regex and the ``in`` tests must agree with a plain substring test."""

from __future__ import annotations

import random

import pytest

import ppaux_lint.scan.search as search_module
from ppaux_lint.scan.prefilter import Uncovered, uncovered
from ppaux_lint.scan.search import (
    ANCHOR_LENGTH,
    MAX_ANCHORS,
    MAX_OCCURRENCES,
    REGEX_MIN_NEEDLES,
    Anchored,
    Held,
    Substrings,
    _cover,
    _widened,
    minimal,
    searcher,
)


def _words(rng: random.Random, count: int, alphabet: str = "abc_", longest: int = 6) -> set[bytes]:
    return {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, longest))).encode() for _ in range(count)}


@pytest.mark.parametrize("count", [3, REGEX_MIN_NEEDLES, REGEX_MIN_NEEDLES + 1, 200])
def test_searcher_finds_exactly_the_substrings(count: int) -> None:
    rng = random.Random(count)
    for _ in range(300):
        needles = sorted(_words(rng, count))
        data = "".join(rng.choice("abc_.d \n") for _ in range(rng.randint(0, 40))).encode()
        assert searcher(needles)(data) == any(n in data for n in needles), (needles, data)


def test_needles_sharing_prefixes_and_special_bytes() -> None:
    needles = [b"Cache", b"CacheKit", b"Call", b"a.b", b"x|y", b"(z)"] + [f"Name{i}".encode() for i in range(40)]
    search = searcher(needles)
    assert search(b"class Callable: pass")
    assert search(b"a.b") and not search(b"axb")
    assert search(b"x|y") and not search(b"x") and not search(b"y")
    assert search(b"f(z)") and not search(b"z")
    assert search(b"Name39") and not search(b"Name")


def test_minimal_drops_every_needle_that_contains_another() -> None:
    rng = random.Random(7)
    for _ in range(500):
        needles = _words(rng, rng.randint(1, 40)) | ({b""} if rng.random() < 0.05 else set())
        kept = set(minimal(needles))
        assert kept == {n for n in needles if not any(o != n and o in n for o in needles)}
        assert all(any(k in n for k in kept) for n in needles)  # what the dropped ones match, a kept one does


def test_substrings_and_uncovered() -> None:
    contains = Substrings([b"Base", b"Out"])
    assert contains.any_in(b"MyBaseClass") and contains.any_in(b"Out")
    assert not contains.any_in(b"Bas") and not contains.other_in(b"Base")
    assert contains.other_in(b"BaseOut")
    assert uncovered({"MyBase", "Other", "Outer"}, {"Base", "Out"}) == {"Other"}


def test_substrings_answer_as_testing_every_needle() -> None:
    """Needles filed by their first two bytes find what testing each needle finds: short needles (one byte, none),
    needles that start alike, texts shorter than a needle, and ``other_in``'s text among the needles."""
    rng = random.Random(36)
    alphabet = b"abAB_0"
    for _ in range(2000):
        needles = {bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 30))}
        contains = Substrings(needles)
        for _ in range(10):
            text = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            assert contains.any_in(text) == any(n in text for n in needles), (needles, text)
            assert contains.other_in(text) == any(len(n) < len(text) and n in text for n in needles), (needles, text)


def test_substrings_grown_by_add_answer_as_made_whole() -> None:
    """A fixpoint files each round's tokens into the index it already holds (``Uncovered``): the same answers as
    an index made of all of them at once, and as ``uncovered`` against everything held before, round by round."""
    rng = random.Random(54)
    alphabet = b"abAB_0"
    for _ in range(500):
        rounds = [{bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 8))}
                  for _ in range(rng.randint(1, 5))]
        grown = Substrings(rounds[0])
        for added in rounds[1:]:
            grown.add(added)
        whole = Substrings(set().union(*rounds))
        for _ in range(10):
            text = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            assert grown.any_in(text) == whole.any_in(text) and grown.other_in(text) == whole.other_in(text)
    for _ in range(300):
        held = {"".join(rng.choice("abAB_") for _ in range(rng.randint(1, 5))) for _ in range(3)}
        fresh = Uncovered(held)
        for _ in range(4):
            added = {"".join(rng.choice("abAB_") for _ in range(rng.randint(1, 6))) for _ in range(4)} - held
            assert fresh(added) == uncovered(added, held), (added, held)
            held |= added


def test_held_texts_hold_what_searching_each_finds() -> None:
    """Texts joined for a later round's few tokens (``Held``): the keys of those a search of each would find, an
    empty text and an empty needle included, and no match across the join (a needle is never split by NUL)."""
    rng = random.Random(5454)
    alphabet = b"abAB_0\0"
    for _ in range(1000):
        texts = [bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(rng.randint(0, 6))]
        keys = [f"f{i}" for i in range(len(texts))]
        held = Held(keys, texts)
        for _ in range(5):
            needles = {bytes(rng.choice(alphabet[:-1]) for _ in range(rng.randint(0, 4))) for _ in range(3)}
            assert held.holding(needles) == {k for k, t in zip(keys, texts, strict=True)
                                             if any(n in t for n in needles)}, (texts, needles)


def _families(rng: random.Random, count: int) -> list[bytes]:
    """Needles shaped as a project's class names are: a few families' prefixes, levels, a shared suffix."""
    prefixes = [rng.choice(["Aux", "BatchKit", "Pl", "_Base", "X"]) + str(rng.randint(0, 9)) for _ in range(3)]
    suffixes = ["Output", "Observer"] * 30 + ["Out", ""]  # seldom another: then it needs anchors of its own
    return sorted({f"{rng.choice(prefixes)}L{rng.randint(0, 30)}{rng.choice(suffixes)}".encode()
                   for _ in range(count)})


def _text(rng: random.Random, needles: list[bytes]) -> bytes:
    """Bytes that hold pieces of needles (often an anchor, seldom a whole needle), glued with noise."""
    parts = []
    for _ in range(rng.randint(0, 30)):
        needle = rng.choice(needles)
        cut = rng.randint(0, len(needle))
        parts.append(rng.choice([needle[:cut], needle[cut:], needle if rng.random() < 0.05 else needle[1:-1],
                                 b"Output", b"Observer", b" = ", b"\n", b"L1", b"(", b"_"]))
    return b"".join(parts)


@pytest.mark.parametrize("occurrences", [MAX_OCCURRENCES, 1])
def test_the_anchored_search_finds_exactly_the_substrings(occurrences: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over needles a few anchors cover; with a budget of one occurrence, every text with an anchor is the
    trie's, which must agree too."""
    monkeypatch.setattr(search_module, "MAX_OCCURRENCES", occurrences)
    rng = random.Random(occurrences)
    anchored = 0
    for _ in range(400):
        needles = _families(rng, rng.randint(REGEX_MIN_NEEDLES + 1, 120))
        search = Anchored.of(frozenset(needles))
        if search is None:
            continue
        anchored += 1
        for _ in range(10):
            data = _text(rng, needles)
            assert search.search(data) == any(n in data for n in needles), (needles, data)
    assert anchored > 200  # the shapes above are what anchors are for


def test_anchors_cover_every_needle_or_there_are_none() -> None:
    rng = random.Random(11)
    for _ in range(300):
        needles = frozenset(_words(rng, rng.randint(1, 60), alphabet="abcdefgh_", longest=9))
        anchors = _cover(needles)
        if anchors is not None:
            assert len(anchors) <= MAX_ANCHORS and all(any(a in n for a in anchors) for n in needles)
            assert all(len(a) == min(ANCHOR_LENGTH, min(len(n) for n in needles if a in n)) or
                       any(a == n for n in needles) for a in anchors)
    assert _cover(frozenset({b"", b"abc"})) is None  # the empty needle is in every text
    assert _cover(frozenset(f"{i:02d}".encode() for i in range(100))) is None  # no piece is shared


def test_a_needle_holding_its_anchor_twice_is_found_at_either() -> None:
    needles = [b"OutputOutputA"] + [f"Q{i}Output".encode() for i in range(30)]
    search = searcher(needles)
    assert search(b"xOutputOutputA") and search(b"OutputOutputOutputA")
    assert not search(b"OutputOutput") and not search(b"OutputA")



@pytest.mark.parametrize("occurrences", [MAX_OCCURRENCES, 1])
def test_a_few_needles_that_share_pieces_are_searched_through_anchors(occurrences: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A later round's few class names share a family's prefix: when their anchors are fewer than they are, the
    search goes through them (the needles' ``in`` tests are never made) and, with a budget of one occurrence,
    falls back to one ``in`` per needle; both must agree with a plain substring test."""
    monkeypatch.setattr(search_module, "MAX_OCCURRENCES", occurrences)
    rng = random.Random(occurrences + 3)
    through_anchors = 0
    for _ in range(300):
        needles = _families(rng, rng.randint(2, REGEX_MIN_NEEDLES))
        search = searcher(needles)
        kept = minimal(needles)
        anchored = Anchored.of(frozenset(kept)) if len(kept) > 1 else None
        if anchored is not None and anchored.anchors < len(kept):
            through_anchors += 1
            assert getattr(search, "__self__", None) is anchored
        for _ in range(10):
            data = _text(rng, needles)
            assert search(data) == any(n in data for n in needles), (needles, data)
    assert through_anchors > 100


def test_anchors_are_widened_to_what_their_needles_share() -> None:
    """Each anchor is the longest piece its needles share around it, which every one of them holds; the first
    round's needles get ``_pp_tensors`` and ``AuxiliaryOutput``, not ``tensor`` and ``xiliar``, which are common
    in real code (``tensor`` is in a third of SGLang's files)."""
    from ppaux_lint.project.config import Protocols
    from ppaux_lint.scan.prefilter import encoded, initial_tokens

    assert _widened(b"abc", [b"xabcy", b"zxabcyy"]) == b"xabcy"
    assert _widened(b"abc", [b"abc", b"xabc"]) == b"abc"
    rng = random.Random(5)
    for _ in range(200):
        needles = frozenset(_families(rng, rng.randint(2, 60)))
        search = Anchored.of(needles)
        if search is None:
            continue
        cover = _cover(needles)
        for anchor, groups in search._groups:
            assert any(piece in anchor for piece in cover)
            assert all(anchor in needle for _, _, members in groups for needle in members)
    first = Anchored.of(frozenset(minimal(encoded(initial_tokens(Protocols())))))
    assert first is not None and searcher(encoded(initial_tokens(Protocols()))) == first.search
    anchors = {anchor for anchor, _ in first._groups}
    assert {b"_pp_tensors", b"AuxiliaryOutput"} <= anchors and not anchors & {b"tensor", b"xiliar"}
