"""PPA011: a tensor name returned by ``to_pp_tensors`` that is not a non-empty string, written as a literal or
computed from constants (``K = ""``, ``K = None``: ``sent.key``), on the instances that run the method: a base's
``self.KEY`` that each subclass sets is the subclass's.

A part's names (``index/parts.py``) are judged when a container sends them as they are; not when every
container renames them (``{f"top.{k}": v for k, v in self.top.to_pp_tensors().items()}``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.facts.findings import Finding
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    for own, _, _, key, instance in sent.returned_items(context):
        run = context.run(own.info)
        if run is not None and not run.alone and not run.merged_into:
            continue  # a part's, whose every container sends its tensors under names of its own
        if key.kind in ("empty", "nonstr"):
            named = f"under {key.shown}" if key.source else f"named {key.shown}"
            on = f" on an instance of `{instance}`" if instance != own.info.fqn else ""
            yield RULE.finding(f"{own.where} returns a tensor {named}{on}, which is not a non-empty "
                               f"string: {pp_errors.raised(pp_errors.BAD_NAME)}",
                               own.path, key.span, instance)  # the class whose constant makes the name


RULE = Rule("PPA011", "invalid-pp-tensor-name", "A returned PP tensor name is not a non-empty string", check,
            passed_despite="its examples did not reach that name, or SGLang would have raised")
