"""Which Python versions a project allows, read from its ``requires-python``, for the findings that depend on one.

Some of SGLang's checks behave differently across Python versions: ``isinstance`` against a runtime-checkable
Protocol asked ``hasattr``, which calls ``__getattr__``, up to Python 3.11, and from 3.12 on looks the attribute
up statically (``inspect.getattr_static``), so a class that offers a method only through ``__getattr__`` passes
the check on the first and fails it on the second. Such a finding is only true on the versions the project runs
on, so it asks here which of them the project allows.

``requires-python`` is a PEP 440 specifier set (``>=3.9``, ``>=3.8,<3.12``, ``~=3.10``, ``==3.11.*``, ``!=3.12.*``).
It is evaluated over the Python 3 releases a minor version at a time: a minor version is allowed when one of its
releases satisfies every clause (its first release, its last one, and the releases the clauses name). A
specifier that cannot be read counts as none, and says so.

The same versions decide the grammar files are parsed with (``target``): the oldest Python the project allows,
as ruff's ``target-version`` is, so that syntax newer than that is a syntax error whichever Python runs
ppaux-lint. ``[tool.ppaux-lint] target-version`` (``"py311"``) overrides ``requires-python``.
"""

from __future__ import annotations

import re

from ppaux_lint.support.records import dataclass

_LAST_MINOR = 40  # "every version from 3.12 on": far enough to hold any release the specifier can name
_LAST_PATCH = 10_000
_CLAUSE = re.compile(r"\s*(~=|===|==|!=|<=|>=|<|>)\s*([0-9]+(?:\.[0-9]+)*)(\.\*)?\s*")

Version = tuple[int, int, int]


@dataclass(frozen=True)
class Pythons:
    """The Python 3 minor versions a project allows; ``declared`` is the specifier as written ("" when none)."""

    minors: frozenset[int]
    declared: str = ""

    def allows_before(self, minor: int) -> bool:
        return any(m < minor for m in self.minors)

    def allows_from(self, minor: int) -> bool:
        return any(m >= minor for m in self.minors)

    def described(self) -> str:
        """How a message names the requirement: "the project allows `>=3.10`", or that it declares none."""
        if not self.declared:
            return "the project declares no `requires-python`"
        return f"the project allows `{self.declared}`"


OLDEST_GRAMMAR = 7  # the oldest grammar ``ast``'s ``feature_version`` reads (a declared older one reads as it)
DEFAULT_TARGET = 10
"""The grammar a project that declares neither ``target-version`` nor a readable ``requires-python`` is parsed
with: Python 3.10, the oldest ppaux-lint runs on (ruff's default is likewise its oldest)."""


def target(target_version: int | None, requires: str | None) -> int:
    """The Python 3 minor version whose grammar a file is parsed with: ``target_version`` when the config sets
    one, else the oldest that ``requires`` allows, else ``DEFAULT_TARGET``."""
    if target_version is not None:
        return target_version
    allowed = pythons(requires)
    if allowed is ANY or not allowed.minors:
        return DEFAULT_TARGET
    return max(OLDEST_GRAMMAR, min(allowed.minors))


ANY = Pythons(frozenset(range(_LAST_MINOR + 1)))
"""What a project without ``requires-python`` (or with one that cannot be read) may run on."""


def pythons(requires: str | None) -> Pythons:
    """The Python 3 minor versions ``requires`` allows; ``ANY`` when it is absent or unreadable."""
    if not requires or not requires.strip():
        return ANY
    clauses = []
    for text in requires.split(","):
        match = _CLAUSE.fullmatch(text)
        if match is None:
            return ANY
        operator, version, star = match.groups()
        numbers = tuple(int(n) for n in version.split("."))
        if star and operator not in ("==", "!="):
            return ANY
        clauses.append((operator, numbers, bool(star)))
    minors = frozenset(m for m in range(_LAST_MINOR + 1)
                       if any(all(_satisfies(v, c) for c in clauses) for v in _candidates(m, clauses)))
    return Pythons(minors, requires.strip())


def _candidates(minor: int, clauses: list[tuple[str, tuple[int, ...], bool]]) -> set[Version]:
    """The releases of ``3.minor`` worth testing: its ends, and around each release a clause names."""
    found = {(3, minor, 0), (3, minor, _LAST_PATCH)}
    for _, numbers, _ in clauses:
        if numbers[:2] == (3, minor) and len(numbers) > 2:
            found.update((3, minor, max(0, numbers[2] + step)) for step in (-1, 0, 1))
    return found


def _satisfies(version: Version, clause: tuple[str, tuple[int, ...], bool]) -> bool:
    operator, numbers, star = clause
    if star:  # ==3.11.* / !=3.12.*: a prefix match
        matches = version[:len(numbers)] == numbers[:3]
        return matches if operator == "==" else not matches
    given = (*numbers, 0, 0, 0)[:3]
    if operator in ("==", "==="):
        return version == given
    if operator == "!=":
        return version != given
    if operator == "~=":  # ~=3.10 means >=3.10,==3.*; ~=3.10.2 means >=3.10.2,==3.10.*
        prefix = numbers[:-1] if len(numbers) > 1 else numbers
        return version >= given and version[:len(prefix)] == prefix
    return {"<": version < given, "<=": version <= given, ">": version > given, ">=": version >= given}[operator]
