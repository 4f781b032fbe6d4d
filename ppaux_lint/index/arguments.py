"""What the project hands each class's constructor: the inference's answer for an unannotated ``__init__``
parameter.

A container is often built by the code that returns it, with its parts made on the spot:
``Bundle(TopK(ids, probs), Entropy(values))``, and ``Bundle.__init__(self, top, entropy)`` stores
``self.top = top`` with no annotation to say what ``top`` is. The handoffs of ``summarize.handoffs`` record
each such call (the callee, the class constructed, and the argument's position or keyword, also through
``functools.partial``); this maps them onto the parameters of the ``__init__`` the callee runs (its own, or
one it inherits), so that ``self.top`` can be a ``TopK``.

It only ever adds a class a parameter is seen to receive: what other calls pass (a local, a helper's result)
stays unknown beside it. Only handoffs whose callee and constructed class are written as class names (a
capital first), or whose callee is ``cls`` in a classmethod, are resolved, which keeps a file's
``foo(torch.zeros(3))`` calls from costing a resolution each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ppaux_lint.contract.names import is_class_like

if TYPE_CHECKING:
    from ppaux_lint.index.graph import ProjectGraph

PARTIAL = "functools.partial"
_INIT = "__init__"


class Arguments:
    """The constructed classes handed to each project class's constructor, read once from every handoff."""

    def __init__(self, index: ProjectGraph) -> None:
        self.index = index
        self._calls: dict[str, list[tuple[int, str, str]]] | None = None  # callee -> (position, keyword, class)
        self._memo: dict[tuple[str, str], frozenset[str]] = {}

    def handed(self, owner: str, param: str) -> frozenset[str]:
        """The project classes constructed and passed to parameter ``param`` of ``owner.__init__``, by a call of
        ``owner`` or of a subclass that runs that ``__init__``."""
        key = (owner, param)
        if key not in self._memo:
            self._memo[key] = self._handed(owner, param)
        return self._memo[key]

    def _handed(self, owner: str, param: str) -> frozenset[str]:
        summary = self.index.classes.get(owner)
        init = summary.method(_INIT) if summary is not None else None
        if init is None:
            return frozenset()
        positional = [p.name for p in init.params if p.kind in ("posonly", "pos")][1:]
        position = positional.index(param) if param in positional else -1
        by_keyword = any(p.name == param and p.kind in ("pos", "kwonly") for p in init.params)
        found: set[str] = set()
        for callee, handed in self._read().items():
            member = self.index.lookup(callee, _INIT)
            if member is None or member.owner != owner:
                continue
            found.update(cls for at, keyword, cls in handed
                         if (keyword == param and by_keyword) or (not keyword and at == position >= 0))
        return frozenset(found)

    def _read(self) -> dict[str, list[tuple[int, str, str]]]:
        if self._calls is None:
            self._calls = {}
            index = self.index
            for summary in list(index.modules.values()):  # resolving may load modules: they hold none that count
                for handoff in summary.handoffs:
                    callee = self._callee(summary.module, handoff.callee, handoff.scope)
                    if callee is None or not is_class_like(handoff.constructs.rsplit(".", 1)[-1]):
                        continue
                    if handoff.through and index.resolve(summary.module, handoff.through, handoff.scope) != PARTIAL:
                        continue
                    constructed = index.resolve(summary.module, handoff.constructs, handoff.scope)
                    if callee in index.classes and constructed in index.classes:
                        self._calls.setdefault(callee, []).append((handoff.position, handoff.keyword, constructed))
        return self._calls

    def _callee(self, module: str, written: str, scope: str) -> str | None:
        """The project class a handoff's callee names: a class name (a capital first), or ``cls`` in a
        classmethod of the class (``return cls(TopK(ids))``); None for any other callee."""
        if is_class_like(written.rsplit(".", 1)[-1]):
            return self.index.resolve(module, written, scope)
        owner, _, name = scope.removesuffix(".<locals>").rpartition(".")
        summary = self.index.classes.get(f"{module}.{owner}")
        method = summary.method(name) if summary is not None and "." not in written else None
        if method is None or "classmethod" not in method.decorators or not method.params:
            return None
        return f"{module}.{owner}" if method.params[0].name == written else None
