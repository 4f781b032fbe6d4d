"""PPA012: a value returned by ``to_pp_tensors`` that is certainly not a tensor."""

from __future__ import annotations

from typing import Iterator

from ppaux_lint import pp_errors
from ppaux_lint.findings import Finding
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    for info, where, _, item in sent.returned_items(context):
        if item.key.kind == "str" and item.not_tensor:
            error = pp_errors.raised(pp_errors.NOT_A_TENSOR.format(name=item.key.value))
            yield RULE.finding(f"{where} returns {item.not_tensor} under {item.key.value!r}, not a tensor: {error}",
                               info.path, item.span, info.fqn)


RULE = Rule("PPA012", "non-tensor-pp-value", "A value returned by `to_pp_tensors` is certainly not a tensor", check)
