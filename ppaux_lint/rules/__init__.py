"""The rules: one module per rule code, and the catalogue built from them.

A rule module is named after its code and name (``ppa001_output_missing_to_pp_tensors.py``) and binds
``RULE``, a :class:`~ppaux_lint.rules.base.Rule` holding everything that is that rule: its code, name,
summary and fix applicability, the check that yields its findings from the project index, and its fix
builder. Its Markdown document (``PPA001.md``) lies beside it. The catalogue below is found by listing this
package, so there is no second list to keep in step: adding a module adds the rule everywhere (``rules``,
``rule``, SARIF's ``tool.driver.rules``, ``--select`` validation, ``--fix``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache

from ppaux_lint.facts.findings import Finding
from ppaux_lint.rules.base import CheckContext, Rule

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


def rule_document(code: str) -> str:
    """The rule's Markdown document, shipped inside the package so installed copies can print it."""
    from importlib import resources

    return resources.files(__name__).joinpath(f"{code}.md").read_text(encoding="utf-8")


def run_checks(context: CheckContext) -> list[Finding]:
    """Every rule's findings, for any file: the engine keeps those for the files asked about and applies
    noqa, select/ignore and per-file-ignores, so no rule needs to know about any of that."""
    findings: list[Finding] = []
    for rule in all_rules():
        findings.extend(rule.check(context))
    return findings
