"""Where a class defined inside a function can be reached from outside it: the module-level names that hold it.

``import`` cannot name ``make_topk_observer.<locals>.TopKObserverK``, but a plugin that makes its classes in
functions exposes what they make, and that is what a deployment installs: ``TopK5Observer =
make_topk_observer(5)`` holds the class, ``OBSERVER = _install()`` an instance of it. The static pass already
knows what each module-level name is bound to (the module body's flow) and what a factory returns (the
inference follows the call into the function, where the class's own name means the class it defines), so
this reads the answer from it rather than guessing at run time. The worker then imports the name and checks
that the object is the class, or an instance of it (``driving/loader.py``), so a wrong guess can only cost a skip.

Takes ``ppaux_lint.check.engine.analyze``'s result, read through ``summaries`` and ``index_for`` only; gives
``{class fqn: ("module:name", ...)}`` for the classes of interest, in the order the modules and their
bindings come.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

LOCALS = "<locals>"
INSTANCE, CLASS = "i", "k"  # the inference's values for an instance of a project class, and the class itself


def is_local(qualname: str) -> bool:
    """Whether ``qualname`` names a class defined inside a function (which ``import`` cannot reach)."""
    return LOCALS in qualname.split(".")


def exposures(analysis: Any, wanted: Collection[str]) -> dict[str, tuple[str, ...]]:
    """The module-level names that hold each class of ``wanted`` (or an instance of it), as ``module:name``."""
    if not wanted:
        return {}
    found: dict[str, list[str]] = {}
    for summary in analysis.summaries:
        if not summary.module:
            continue
        inference = analysis.index_for(summary.path).inference
        body = inference.flow(summary.module, "")
        for name, values in body.locals if body is not None else ():
            for expr in values:
                for value in inference.evaluate(expr, summary.module, body, None):
                    if value[0] in (CLASS, INSTANCE) and value[1] in wanted:
                        names = found.setdefault(value[1], [])
                        if f"{summary.module}:{name}" not in names:
                            names.append(f"{summary.module}:{name}")
    return {fqn: tuple(names) for fqn, names in found.items()}
