"""The report's order of findings does not depend on the order the rules produced them in."""

from __future__ import annotations

import itertools

from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.spans import Span


def test_findings_that_share_place_rule_and_class_are_ordered_by_message() -> None:
    """The engine gathers findings in a set, whose order varies between runs with string hashing: two PPA017s on
    one class at one place (one per subclass that inherits the misspelt method) came out in either order."""
    span = Span(3, 5, 3, 20)
    findings = [Finding("PPA017", f"`pkg.m.Base.to_pp_tensor` ... seen from `pkg.m.{name}`", "/p/pkg/m.py", span,
                        "pkg.m.Base") for name in ("Sub1", "Sub2", "Sub3")]
    orders = {tuple(f.message for f in sorted(p, key=lambda f: f.sort_key)) for p in itertools.permutations(findings)}
    assert orders == {tuple(f.message for f in findings)}
