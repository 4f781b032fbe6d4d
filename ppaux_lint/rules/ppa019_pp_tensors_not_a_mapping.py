"""PPA019: ``to_pp_tensors`` returns a list, tuple, set or iterator where the helper needs a mapping.

``add_auxiliary_output_to_pp_tensors`` walks ``output.to_pp_tensors().items()``. A list of ``(name, tensor)``
pairs reads naturally and passes a type checker that was never told the return type, but it has no
``.items()``: the first PP step raises ``AttributeError``. An empty one never gets that far (PPA010 reports
it), so only a return that may hold something is reported here.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import ADD_HELPER
from ppaux_lint.facts.findings import Finding
from ppaux_lint.rules import sent
from ppaux_lint.rules.base import CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    for own, fact in sent.returns(context):
        sequence = sent.not_a_mapping(context, own, fact)
        if sequence is None or sequence.empty:
            continue
        name = sequence.type_name
        article = "an" if name[0] in "aeiou" else "a"
        also = (f"; when it is empty, {pp_errors.raised(pp_errors.EMPTY_OUTPUT)} instead"
                if sequence.may_be_empty else "")
        yield RULE.finding(f"{own.where} returns {article} {name}, not a mapping: {ADD_HELPER} calls `.items()` on "
                           f"it and raises AttributeError: '{name}' object has no attribute 'items'{also}",
                           own.path, fact.span, own.info.fqn)


RULE = Rule("PPA019", "pp-tensors-not-a-mapping",
            "`to_pp_tensors` returns a list, tuple, set or iterator instead of a mapping", check,
            passed_despite="its examples did not reach that return, or SGLang would have raised")
