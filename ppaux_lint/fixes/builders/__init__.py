"""The fix builders: one module per kind of fix, found by the name a rule declares.

A rule says which fix it has as data (``Rule.fix_kind``, e.g. ``"rename-near-miss"``); the module here named
after that kind (``rename_near_miss.py``) binds ``KIND``, that name, and ``build(planner, finding)``, which
returns a :class:`~ppaux_lint.fixes.plan.Plan`, or None whenever it cannot see that the result is right. As
with the rules, the registry is found by listing this package, so adding a module adds the fix.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import lru_cache

from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes.plan import Plan, Planner

Builder = Callable[[Planner, Finding], Plan | None]


@lru_cache(maxsize=1)
def builders() -> dict[str, Builder]:
    """Every builder, by the fix kind it builds."""
    found: dict[str, Builder] = {}
    for module in pkgutil.iter_modules(__path__):
        builder = importlib.import_module(f"{__name__}.{module.name}")
        if module.name != builder.KIND.replace("-", "_"):
            raise ImportError(f"fix builder module {module.name} builds {builder.KIND}: the file name must be "
                              f"its kind")
        found[builder.KIND] = builder.build
    return found
