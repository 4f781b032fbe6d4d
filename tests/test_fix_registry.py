"""A rule names its fix (``Rule.fix_kind``) and ``fixes/builders/`` builds it: the two sides must meet.

The rules cannot import the fixes, so nothing at import time checks that a declared kind has a builder; a
kind without one would only fail when ``check`` first met a finding of that rule, and a builder that no rule
declares would be dead code. This test makes both fail here.
"""

from __future__ import annotations

from ppaux_lint.fixes.builders import builders
from ppaux_lint.rules import all_rules


def test_every_declared_fix_kind_has_a_builder_and_every_builder_is_declared() -> None:
    declared = {rule.fix_kind: rule.code for rule in all_rules() if rule.fix_kind is not None}
    built = builders()
    assert {kind: code for kind, code in declared.items() if kind not in built} == {}, \
        "fix kinds that a rule declares and no builder builds"
    assert sorted(set(built) - set(declared)) == [], "builders of a fix kind that no rule declares"
