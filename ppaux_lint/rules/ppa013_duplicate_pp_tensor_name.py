"""PPA013: the same tensor name twice in one dict returned by ``to_pp_tensors``.

The helper never sees the first entry: Python keeps the last, so one tensor silently stays home. A dict
built step by step is not a literal: assigning a key again replaces its value, which is how such a dict is
written (a default, then the real tensor), and the helper never sees either as a duplicate, so it is not
reported. Keys are compared as Python computes them, so two constants of one value are the same name
(``sent.key``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.facts.findings import Finding
from ppaux_lint.facts.summary import ReturnFact
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    seen: dict[tuple[str, str, ReturnFact], set[str]] = {}  # per class and instance: one function may be bound
    # into several classes, two files may hold equal facts (a symlink), and subclasses may set the keys' constants
    for own, fact, _, key, instance in sent.returned_items(context):
        if fact.built or key.kind != "str":
            continue
        names = seen.setdefault((own.info.fqn, instance, fact), set())
        if key.value in names:
            on = f" on an instance of `{instance}`" if instance != own.info.fqn else ""
            yield RULE.finding(f"{own.where} returns {key.shown} twice in one dict{on}; the first tensor is silently "
                               f"replaced and never reaches the next stage", own.path, key.span, instance)
        names.add(key.value)


RULE = Rule("PPA013", "duplicate-pp-tensor-name",
            "The same name appears twice in a dict returned by `to_pp_tensors`", check,
            passed_despite=("Python keeps only the last of the repeated entries before SGLang sees the dict, and the "
                            "host copies matched without the dropped one"))
