"""A part's row, worded from the round trip of the container that sends it.

SGLang never sends a part alone: a container's ``to_pp_tensors`` flattens the part's tensors into its own
mapping, so whatever is wrong with the part surfaces there, inside the container's round trip (a part with
no ``to_pp_tensors`` raises ``AttributeError`` in the container's call of it). ``targets.build_targets``
gives a part's row (``VerifyTarget.part``) the round trip of a container that holds it, as its ``output``;
this takes that round trip's result and says what it means for the part. A pass or a failure that names the part is the
part's verdict. A failure that does not name it is the container's, or another part's: the part is not
blamed for it, and its row is a skip that says it will be judged once that round trip passes.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ppaux_lint.runtime.terms.results import FAIL, PASS, SKIP, VerifyResult
from ppaux_lint.runtime.terms.targets import VerifyTarget


def part_verdict(result: VerifyResult, target: VerifyTarget) -> VerifyResult:
    """``result`` (the round trip of ``target.output``, the container) as the verdict on the part ``target``."""
    container = target.output.symbol if target.output else ""
    if result.status == FAIL and not names(result.message, target.symbol):
        return replace(result, status=SKIP, message=(
            f"a part of {container}, sent only inside its mapping, and that round trip failed on something other "
            f"than this part ({result.message}); it is judged once {container}'s round trip passes"))
    if result.status == PASS:
        return replace(result, message=f"judged inside {container}'s round trip, as SGLang sends it: {result.message}")
    return replace(result, message=f"inside {container}'s round trip, as SGLang sends it: {result.message}")


def names(message: str, symbol: str) -> bool:
    """Whether ``message`` names the class ``symbol`` (its own name as a word: ``'RankPart' object has no ...``,
    ``RankPart.to_pp_tensors``)."""
    return re.search(rf"(?<![\w.]){re.escape(symbol.rpartition('.')[2])}\b", message) is not None \
        or symbol in message
