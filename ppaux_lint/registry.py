"""The rule catalogue: codes, names and one-line summaries.

Codes are a public interface (CI configs and ``# noqa`` comments name them),
so they are never renumbered; a retired rule keeps its code reserved.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    fix: str = "none"  # "none", "safe" or "unsafe": what ``--fix`` can do for it


RULES: tuple[Rule, ...] = (
    Rule("PPA000", "unreadable-file", "A file cannot be decoded or parsed, so it was not checked"),
    Rule("PPA001", "output-missing-to-pp-tensors",
         "An auxiliary output has no `to_pp_tensors`, so it cannot be sent to the next PP stage", "unsafe"),
    Rule("PPA002", "observer-missing-from-pp-tensors",
         "A sampling observer has no `from_pp_tensors`, so it cannot rebuild its output on the first PP stage",
         "unsafe"),
    Rule("PPA010", "empty-pp-tensors", "`to_pp_tensors` returns an empty mapping on some path"),
    Rule("PPA011", "invalid-pp-tensor-name", "A returned PP tensor name is not a non-empty string literal"),
    Rule("PPA012", "non-tensor-pp-value", "A value returned by `to_pp_tensors` is certainly not a tensor"),
    Rule("PPA013", "duplicate-pp-tensor-name", "The same name appears twice in a dict returned by `to_pp_tensors`"),
    Rule("PPA014", "from-pp-tensors-may-return-none", "`from_pp_tensors` can return `None`"),
    Rule("PPA015", "pp-key-mismatch",
         "`from_pp_tensors` reads a key its output never sends, or never reads one it sends"),
    Rule("PPA016", "bad-pp-method-shape",
         "A PP transport method is async, a generator, a property, or has the wrong arity"),
    Rule("PPA017", "pp-method-near-miss", "A method name is a near miss of `to_pp_tensors`/`from_pp_tensors`",
         "safe"),
    Rule("PPA018", "pp-protocol-stub-inherited",
         "A class inherits a PP Protocol explicitly but never overrides its method, keeping the stub that returns None"),
    Rule("PPA020", "bad-pp-helper-argument", "A PP transport helper is called with an argument that will make it raise"),
    Rule("PPA021", "raw-pp-key-prefix", "Code reads or writes transport keys by their prefix, bypassing the helpers"),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}


def rule_document(code: str) -> str:
    """The rule's Markdown document, shipped inside the package so installed copies can print it."""
    return resources.files("ppaux_lint").joinpath("rules", f"{code}.md").read_text(encoding="utf-8")
