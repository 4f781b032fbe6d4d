"""One rule, one unit: each rule code lives in exactly one module under ``ppaux_lint/rules/``.

Reporters, selection, ``--fix``, ``inventory`` and ``verify`` ask the rule objects; they never spell a code.
These tests read the package's source with ``ast`` so that a code slipping back into the engine fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import ppaux_lint
from ppaux_lint.rules import all_rules, by_code
from ppaux_lint.rules.base import NO_FIX

PACKAGE = Path(ppaux_lint.__file__).resolve().parent
RULE_MODULE = re.compile(r"ppa(\d{3})_(\w+)\.py")
CODE = re.compile(r"PPA\d{3}")


def _code_strings(path: Path) -> set[str]:
    """Rule codes spelled in the module's string literals, docstrings excluded (prose may name a rule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return {code for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            for code in CODE.findall(node.value)}


def test_each_rule_module_is_named_after_its_rule() -> None:
    for path in sorted((PACKAGE / "rules").glob("ppa*.py")):
        match = RULE_MODULE.fullmatch(path.name)
        assert match, path.name
        rule = by_code(f"PPA{match.group(1)}")
        assert rule is not None, path.name
        assert match.group(2) == rule.name.replace("-", "_"), (path.name, rule.name)


def test_each_code_is_spelled_in_exactly_its_own_module() -> None:
    spelled: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for code in _code_strings(path):
            spelled.setdefault(code, []).append(path.relative_to(PACKAGE).as_posix())
    for rule in all_rules():
        expected = f"rules/{rule.code.lower()}_{rule.name.replace('-', '_')}.py"
        assert spelled.pop(rule.code, []) == [expected], rule.code
    assert spelled == {}, f"codes of no rule, or spelled outside their module: {spelled}"


def test_each_rule_has_its_document_beside_its_module() -> None:
    for rule in all_rules():
        assert (PACKAGE / "rules" / f"{rule.code}.md").is_file(), rule.code
        assert rule.document.startswith(f"# {rule.code}: {rule.name}\n")


def test_a_rule_names_its_fix_exactly_when_it_has_one() -> None:
    for rule in all_rules():
        assert (rule.fix_kind is None) == (rule.fix == NO_FIX), rule.code
