"""How SGLang calls the hooks that classes are recognised by, and whether a method fits that call.

Structural recognition (a class that defines ``copy_to_host`` is an output) would otherwise take another
library's method of the same name for SGLang's: numba's and CuPy's device arrays have
``copy_to_host(self)`` or ``copy_to_host(self, ary=None, stream=0)``, which share nothing with SGLang's
protocol but the name. So a method fits a hook only when its signature *demands* what SGLang passes: every
positional argument SGLang passes fills a required positional parameter, every keyword SGLang passes is
accepted, and nothing else is required.
"""

from __future__ import annotations

from ppaux_lint.contract.names import AFTER_FORWARD, AFTER_SAMPLE, COPY_TO_HOST
from ppaux_lint.facts.summary import MethodSummary
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class HookCall:
    """One call SGLang makes: ``positional`` arguments besides ``self``, then ``keywords`` by name."""

    name: str
    positional: int
    keywords: tuple[str, ...] = ()

    def fits(self, method: MethodSummary) -> bool:
        params = method.params
        positional = [p for p in params if p.kind in ("posonly", "pos")]
        if "staticmethod" not in method.decorators:
            positional = positional[1:]  # self (or cls), which the attribute access binds
        passed, rest = positional[:self.positional], positional[self.positional:]
        if len(passed) < self.positional or any(p.has_default or p.name in self.keywords for p in passed):
            return False  # too few, optional (another library's meaning), or a keyword would fill it twice
        keyword_only = [p for p in params if p.kind == "kwonly"]
        by_keyword = {p.name for p in rest + keyword_only if p.kind != "posonly"}
        if not any(p.kind == "varkw" for p in params) and not by_keyword.issuperset(self.keywords):
            return False
        required = [p for p in rest + keyword_only if not p.has_default]
        return all(p.kind != "posonly" and p.name in self.keywords for p in required)


COPY_TO_HOST_CALL = HookCall(COPY_TO_HOST, 1)  # output.copy_to_host(copy_tensor)
AFTER_SAMPLE_CALL = HookCall(AFTER_SAMPLE, 2)  # observer.after_sample(state, token_ids)
# observer.after_forward(batch, forward_batch, logits_output, can_run_graph=...)
AFTER_FORWARD_CALL = HookCall(AFTER_FORWARD, 3, ("can_run_graph",))
