"""Which observers may hand SGLang's composite to the helpers: their ``after_sample`` returns what SGLang's
``append_auxiliary_output`` (or ``CompositeDeviceAuxiliaryOutput``) makes.

SGLang 0.5.23's composite has no ``to_pp_tensors``, so such an observer fails on a real pipeline stage
whatever output class its ``from_pp_tensors`` names: an observer that extends another by appending an output
to what ``super().after_sample`` returns inherits a ``from_pp_tensors`` that names the parent's output, and a
round trip of that output, made by the parent's hooks, would pass. The inference does not follow SGLang's
functions (it knows only the project), so this reads the calls off the hook's returns and the locals they
read, as the static pass recorded them (``FunctionFlow``), and resolves the callee's name in its module.
Such an observer's row is then driven on whatever its own ``after_sample`` returns (``targets.py``), which is
what SGLang would send; ``append_auxiliary_output(None, out)`` hands ``out`` back, and passes.

Takes ``ppaux_lint.check.engine.analyze``'s result (``classes``, ``index_for``); gives the observers' names.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from ppaux_lint.contract.names import AFTER_SAMPLE

COMBINERS = frozenset({
    "sglang.srt.managers.auxiliary_output.append_auxiliary_output",
    "sglang.srt.managers.auxiliary_output.CompositeDeviceAuxiliaryOutput",
})


def composite_returners(analysis: Any, observers: Collection[str]) -> set[str]:
    """The observers of ``observers`` whose ``after_sample`` (their own, or the one they inherit from the
    project) returns a call of SGLang's ``append_auxiliary_output`` or ``CompositeDeviceAuxiliaryOutput``."""
    found = set()
    for fqn in observers:
        info = analysis.classes.get(fqn)
        index = analysis.index_for(info.path) if info is not None else None
        for owner in info.ancestry if info is not None else ():
            defining = analysis.classes.get(owner)
            if defining is None:
                break  # a base outside the project defines the rest of the MRO: nothing to read
            flow = index.inference.flow(defining.module, f"{defining.summary.qualname}.{AFTER_SAMPLE}")
            if flow is None:
                continue
            if any(index.resolve(defining.module, callee, flow.qualname) in COMBINERS for callee in _callees(flow)):
                found.add(fqn)
            break
    return found


def _callees(flow: Any) -> Iterator[str]:
    """The dotted names called at the top of each expression a return, or a local it reads, can give."""
    for expr in (*flow.returns, *(value for _, values in flow.locals for value in values)):
        callee, _, _ = (expr or "").partition("(")  # None: falling off the end
        if callee and callee.replace(".", "").replace("_", "").isalnum():
            yield callee
