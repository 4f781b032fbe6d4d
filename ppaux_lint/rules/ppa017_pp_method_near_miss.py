"""PPA017: a misspelt transport method (``to_pp_tensor``, ``From_PP_Tensors``) instead of the real name.

It replaces PPA001/PPA002 on the class, since the misspelling is the cause. The fix (safe: it only renames)
renames the ``def`` and the ``self.<old>``/``cls.<old>`` uses inside the same class, when the old name is
used nowhere else in the file and the class binds nothing under the new name.
"""

from __future__ import annotations

from collections.abc import Iterator

from ppaux_lint.contract.names import FROM_PP, TO_PP
from ppaux_lint.facts.findings import Finding
from ppaux_lint.index.model import OBSERVER, OUTPUT
from ppaux_lint.rules import presence
from ppaux_lint.rules.base import AT_RUN_TIME, SAFE_FIX, CheckContext, Rule


def check(context: CheckContext) -> Iterator[Finding]:
    index = context.index
    sending = {info.fqn for info in context.sending()}
    for info in context.concrete():
        for method, role in ((TO_PP, OUTPUT), (FROM_PP, OBSERVER)):
            if method == TO_PP and info.fqn not in sending:
                continue  # never asked for it: a forward-only output, a part whose container reads its fields
            found = presence.absence(index, info, method, role)
            if found is None or found.near is None:
                continue
            owner, candidate = found.near
            added = index.namespace(owner).added.get(candidate.name)  # given by code around the statement
            how = f" ({added.origin})" if added is not None else ""
            yield RULE.finding(
                f"`{owner}.{candidate.name}`{how} looks like a misspelling of `{method}`: did you mean `{method}`? "
                f"As written, `{info.fqn}` has no `{method}`, so the PP helpers reject it",
                index.modules[index.class_module[owner]].path, candidate.span, owner)


RULE = Rule("PPA017", "pp-method-near-miss", "A method name is a near miss of `to_pp_tensors`/`from_pp_tensors`",
            check, SAFE_FIX, fix_kind="rename-near-miss",
            passed_despite=AT_RUN_TIME)
