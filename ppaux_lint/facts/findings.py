"""Findings: what every rule yields and every renderer consumes."""

from __future__ import annotations

from ppaux_lint.facts.spans import Span
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace ``[start, end)`` (0-based character offsets into the file's text) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Fix:
    """A fix a finding offers. ``safe`` fixes only rename or restate; unsafe ones add behaviour."""

    description: str
    safe: bool
    path: str
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Related:
    """The other end of a cross-file finding (PPA015's sender or receiver), so that asking about either
    file reports the finding, and SARIF's ``relatedLocations`` can point at it."""

    path: str  # absolute
    span: Span
    message: str


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    path: str  # absolute
    span: Span
    symbol: str  # dotted qualified name of the class (or function) concerned
    severity: str = "error"
    fix: Fix | None = None
    related: tuple[Related, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file this finding involves: its own, then each related location's."""
        return (self.path, *(r.path for r in self.related))

    @property
    def sort_key(self) -> tuple:
        """The report's order: by place, rule and class, then by message, so that findings of one rule on one
        class at one place (a PPA017 per subclass that inherits the misspelt method) come out in the same order
        on every run, whatever order the rules' set of findings held them in."""
        return (self.path, self.span.line, self.span.column, self.code, self.symbol, self.message)
