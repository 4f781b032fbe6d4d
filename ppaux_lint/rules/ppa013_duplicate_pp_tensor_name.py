"""PPA013: the same tensor name twice in one dict returned by ``to_pp_tensors``.

The helper never sees the first entry: Python keeps the last, so one tensor silently stays home. A dict
built step by step is not a literal: assigning a key again replaces its value, which is how such a dict is
written (a default, then the real tensor), and the helper never sees either as a duplicate, so it is not
reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.facts.findings import Finding
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    for own, fact in sent.returns(context):
        if fact.kind != "dict" or fact.built:
            continue
        seen: set[str] = set()
        for item in fact.items:
            key = item.key
            if key.kind != "str":
                continue
            if key.value in seen:
                yield RULE.finding(f"{own.where} returns {key.value!r} twice in one dict; the first tensor is "
                                   f"silently replaced and never reaches the next stage", own.path, key.span,
                                   own.info.fqn)
            seen.add(key.value)


RULE = Rule("PPA013", "duplicate-pp-tensor-name",
            "The same name appears twice in a dict returned by `to_pp_tensors`", check,
            passed_despite=("Python keeps only the last of the repeated entries before SGLang sees the dict, and the "
                            "host copies matched without the dropped one"))
