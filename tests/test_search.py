"""The prefilter's byte search: the trie regex and the ``in`` tests must agree with a plain substring test."""

from __future__ import annotations

import random

import pytest

from ppaux_lint.scan.prefilter import uncovered
from ppaux_lint.scan.search import REGEX_MIN_NEEDLES, Substrings, minimal, searcher


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
