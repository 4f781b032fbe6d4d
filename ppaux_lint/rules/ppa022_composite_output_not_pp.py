"""PPA022: a sampling observer returns SGLang's ``CompositeDeviceAuxiliaryOutput``, which cannot cross a stage.

SGLang 0.5.23 ships ``CompositeDeviceAuxiliaryOutput`` (and ``append_auxiliary_output``, which builds one from two
outputs) for plugins that bundle several outputs. It defines ``copy_to_host`` only, not ``to_pp_tensors``, so the
PP helper refuses it whatever its parts can do. The class is SGLang's, not the project's: PPA001, which is about
the project's own classes, never sees it, so the finding is made here, at the ``after_sample`` that can return one
(the inference's ``("xi", ...)`` value: a call of the class itself, also through locals and project helpers).
``append_auxiliary_output(a, b)`` hands back one of its arguments when the other is None, so it is not followed.
Where the project sets ``to_pp_tensors`` on the class (or on something the analysis cannot name, which may be it),
the lookup of that name on it is not empty, and the rule says nothing: the helper then sends it.

No fix: what the composite should send (each part's tensors under a name of its own) is the author's design.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import ADD_HELPER, AFTER_SAMPLE, COMPOSITE_OUTPUT, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.index.inference import FOREIGN
from ppaux_lint.index.model import OBSERVER
from ppaux_lint.rules.base import CheckContext, Rule

_RETURNED = (FOREIGN, COMPOSITE_OUTPUT)


def check(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    if index.lookup(COMPOSITE_OUTPUT, TO_PP) is not None:
        return  # the project gives it one (``CompositeDeviceAuxiliaryOutput.to_pp_tensors = ...``), or may
    done: set[str] = set()
    for info in context.concrete():
        if OBSERVER not in info.roles or info.unknown:
            continue
        member = index.lookup(info.fqn, AFTER_SAMPLE)
        if member is None or member.unknown is not None or member.method is None or member.owner in done \
                or member.owner not in index.classes:
            continue
        values = index.inference.hook_returns(info.fqn, AFTER_SAMPLE)
        if not values or _RETURNED not in values:
            continue
        done.add(member.owner)
        path = member.site.path if member.site is not None else index.info(member.owner).path
        message = (f"`{member.owner}.{AFTER_SAMPLE}` can return SGLang's `{COMPOSITE_OUTPUT.rpartition('.')[2]}`, "
                   f"which has no `{TO_PP}`, so it cannot be sent to the next pipeline stage; with pipeline "
                   f"parallelism {ADD_HELPER} raises {pp_errors.raised(pp_errors.OUTPUT_NOT_PP)}")
        yield RULE.finding(message, path, member.method.span, member.owner)


RULE = Rule("PPA022", "composite-output-not-pp",
            "A sampling observer returns SGLang's `CompositeDeviceAuxiliaryOutput`, which cannot cross a PP stage",
            check)
