"""PPA001: an auxiliary output without ``to_pp_tensors`` cannot be sent to the next pipeline stage.

The fix (unsafe: it adds behaviour) generates ``to_pp_tensors`` returning the output's tensor fields: the
dataclass fields along the MRO, or the ``torch.Tensor`` parameters that ``__init__`` stores. Fields that
default to ``None`` or have ``init=False`` stay home: the first would make the helper raise, the second
cannot be passed back to the constructor. An output that sets ``to_pp_tensors = None`` on purpose gets none.

An output that only forward observers return (``ClassInfo.forward_only_by``, see ``routes.py``) is not reported:
SGLang installs no forward observer when ``pp_size > 1``, so it never crosses a stage. Nor is an output with no
instance of its own (abstract, or a base the project only subclasses: ``instances.py``); its subclasses are
judged with its methods. Nor is a part (``ClassInfo.part_of``, see ``parts.py``), which only travels inside
another output's mapping, unless a container on the PP path calls its ``to_pp_tensors``: then the missing method
raises AttributeError inside the container's, and the finding says so. One that a forward observer returns and a
sampling observer returns too is reported, naming both routes.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract import pp_errors
from ppaux_lint.contract.names import ADD_HELPER, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.index.model import OUTPUT, ClassInfo
from ppaux_lint.rules import presence
from ppaux_lint.rules.base import AT_RUN_TIME, UNSAFE_FIX, CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    return presence.missing_findings(RULE, context, context.sending(), TO_PP, OUTPUT,
                                     noun="auxiliary output", purpose="sent to the next pipeline stage",
                                     helper=ADD_HELPER, error=pp_errors.OUTPUT_NOT_PP, route=_route)


def _route(info: ClassInfo) -> str:
    """A part that a container calls fails inside the container's ``to_pp_tensors``; an output that a forward
    observer returns too still crosses a stage through the sampling observer that returns it: say so, so the
    container or the forward route is not taken for an exemption."""
    if info.part_calls:
        containers = _names(tuple(f"{container}.{TO_PP}" for container, _ in info.part_calls))
        return (f"it is a part of another output, but {containers} calls its `{TO_PP}`, which raises "
                f"AttributeError there")
    if not info.forward_by or not info.returned_by:
        return ""
    return (f"a forward observer returns it too ({_names(info.forward_by)}), but so does sampling observer "
            f"{_names(info.returned_by)}, whose output crosses the stage")


def _names(fqns: tuple[str, ...]) -> str:
    return ", ".join(f"`{fqn}`" for fqn in fqns)


RULE = Rule("PPA001", "output-missing-to-pp-tensors",
            "An auxiliary output has no `to_pp_tensors`, so it cannot be sent to the next PP stage",
            check, UNSAFE_FIX, fix_kind="add-to-pp-tensors", declares_untransported=True,
            passed_despite=AT_RUN_TIME)
