"""The rules: one module per rule code, and the catalogue built from them.

This stage takes the project index (with the files' summaries, in a
:class:`~ppaux_lint.rules.base.CheckContext`) and gives findings: :func:`run_checks` yields every rule's, for
any file. It must never import what stands above it, not even lazily or for type checkers: not the fixes,
the engine that chooses files and silences findings, the cache, the reports, the runtime, the server or the
command line. Each of those asks the rules and no rule asks them, so a rule reads the same whether
``check``, ``--fix``, an editor or ``verify`` runs it (``lint-imports`` holds the package to this).

A rule module is named after its code and name (``ppa001_output_missing_to_pp_tensors.py``) and binds
``RULE``, a :class:`~ppaux_lint.rules.base.Rule` holding everything that is that rule: its code, name and
summary, the check that yields its findings from the project index, and its fix as data: the applicability
(``fix``: none, safe or unsafe) and, where there is a fix, the name of its kind (``fix_kind``), which
:mod:`ppaux_lint.fixes` reads to find the builder. The module's docstring says what the fix does; the code
that builds it lives in ``fixes/``. Its Markdown document (``PPA001.md``) lies beside it. The catalogue below
is found by listing this package, so there is no second list to keep in step: adding a module adds the rule
everywhere (``rules``, ``rule``, SARIF's ``tool.driver.rules``, ``--select`` validation, ``--fix``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache

from ppaux_lint.facts.findings import Finding
from ppaux_lint.rules.base import CheckContext, Rule, rule_document

__all__ = ["CheckContext", "Rule", "all_rules", "by_code", "rule_document", "run_checks"]

_RULE_MODULE = re.compile(r"ppa\d{3}_\w+")


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    """Every rule, in code order."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        if _RULE_MODULE.fullmatch(module.name):
            rule = importlib.import_module(f"{__name__}.{module.name}").RULE
            if module.name.split("_", 1)[0] != rule.code.lower():
                raise ImportError(f"rule module {module.name} binds {rule.code}: the file name must start "
                                  f"with its code")
            found.append(rule)
    return tuple(sorted(found, key=lambda rule: rule.code))


@lru_cache(maxsize=1)
def _by_code() -> dict[str, Rule]:
    return {rule.code: rule for rule in all_rules()}


def by_code(code: str) -> Rule | None:
    return _by_code().get(code)


def run_checks(context: CheckContext) -> list[Finding]:
    """Every rule's findings, for any file: the engine keeps those for the files asked about and applies
    noqa, select/ignore and per-file-ignores, so no rule needs to know about any of that."""
    findings: list[Finding] = []
    for rule in all_rules():
        findings.extend(rule.check(context))
    return findings
