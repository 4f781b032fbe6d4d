"""Which findings have a fix, and what each fix will do.

This runs on every ``check`` (``Finding.fix`` tells the reports which findings are fixable), so it uses only
the stdlib ``ast`` and the analysis already made; a plan names its edit without materializing it. A fix is
offered only when the planner can see that the result will be right: anything it cannot see means no plan.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable

from ppaux_lint.findings import Finding, Fix
from ppaux_lint.fixes.constructors import Constructor, Constructors
from ppaux_lint.fixes.render import (
    DEFAULT_LINE_LENGTH,
    MethodSpec,
    body_column,
    configured_line_length,
    quote_style,
)
from ppaux_lint.fixes.sources import Sources
from ppaux_lint.fixes.syntax import (
    annotates_returns,
    binds,
    intended_name,
    other_references,
    returned_mapping,
    returns,
    typing_only_names,
)
from ppaux_lint.index import FROM_PP, TO_PP

if TYPE_CHECKING:
    from ppaux_lint.engine import Analysis

FIXABLE = frozenset({"PPA001", "PPA002", "PPA017"})


@dataclass(frozen=True)
class Plan:
    finding: Finding
    path: str
    description: str
    safe: bool
    class_name: str
    class_line: int  # line of the class *name*, as in ClassSummary.span
    rename: tuple[str, str, int, int] | None = None  # (old, new, line, 1-based column) of the def name
    method: MethodSpec | None = None
    add_import: tuple[str, str] | None = None  # (module, name)
    quote: str = '"'
    line_length: int = DEFAULT_LINE_LENGTH
    body_column: int = 4  # absolute indentation of the class body, in characters

    @property
    def fix(self) -> Fix:
        return Fix(self.description, self.safe, self.path)


def attach_fixes(analysis: "Analysis") -> list[Finding]:
    """``analysis.findings``, each with ``fix`` set when a fix is available (description and safety)."""
    plans = {id(plan.finding): plan for plan in plan_fixes(analysis)}
    out = []
    for finding in analysis.findings:
        plan = plans.get(id(finding))
        out.append(replace(finding, fix=plan.fix) if plan is not None and finding.fix is None else finding)
    return out


def plan_fixes(analysis: "Analysis") -> list[Plan]:
    if not any(f.code in FIXABLE for f in analysis.findings):
        return []
    planner = _Planner(analysis)
    plans = []
    for finding in analysis.findings:
        if finding.code not in FIXABLE:
            continue
        try:
            plan = planner.plan(finding)
        except Exception:  # noqa: BLE001 - a file we cannot see as the summary did: offer nothing, never fail check
            plan = None
        if plan is not None:
            plans.append(plan)
    return plans


class _Planner:
    def __init__(self, analysis: "Analysis") -> None:
        self.analysis = analysis
        self.index = analysis.index
        self.infos = analysis.classes
        self.sources = Sources(analysis.index)
        self.constructors = Constructors(analysis.index, analysis.classes, self.sources)
        self._line_length: int | None = None

    def line_length(self) -> int:
        if self._line_length is None:
            self._line_length = configured_line_length(self.analysis.project.root)
        return self._line_length

    def plan(self, finding: Finding) -> Plan | None:
        if finding.code == "PPA017":
            return self.plan_rename(finding)
        if finding.code == "PPA001":
            return self.plan_to_pp(finding)
        if finding.code == "PPA002":
            return self.plan_from_pp(finding)
        return None

    def _base_plan(self, finding: Finding, fqn: str, node: ast.ClassDef, **kwargs) -> Plan:
        summary = self.index.classes[fqn]
        text = self.sources.text(finding.path)
        return Plan(finding=finding, path=finding.path, class_name=summary.name, class_line=summary.span.line,
                    quote=quote_style(text), line_length=self.line_length(), body_column=body_column(node, text),
                    **kwargs)

    # -- PPA017 --
    def plan_rename(self, finding: Finding) -> Plan | None:
        owner = finding.symbol
        found = self.sources.class_node(owner)
        if found is None or found[1] != finding.path:
            return None
        node, path, _ = found
        definition = next((d for d in node.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                           and d.lineno == finding.span.line), None)
        if definition is None:
            return None
        old = definition.name
        new = intended_name(old)
        if new is None or binds(node, new):
            return None
        if other_references(self.sources.tree(path), node, definition, old):
            return None  # renaming the def alone would break those uses
        return self._base_plan(finding, owner, node, description=f"Rename `{old}` to `{new}`", safe=True,
                               rename=(old, new, finding.span.line, finding.span.column))

    # -- PPA001 --
    def plan_to_pp(self, finding: Finding) -> Plan | None:
        fqn = finding.symbol
        if self.index.lookup(fqn, TO_PP) is not None:
            return None  # bound to None or otherwise deliberately: not ours to overrule
        found = self.sources.class_node(fqn)
        constructor = self.constructors.of(fqn)
        if found is None or constructor is None or not constructor.tensors or found[1] != finding.path:
            return None
        node = found[0]
        attrs = [attr for attr, _ in constructor.tensors]
        for observer in self._observers_of(fqn):
            member = self.index.lookup(observer, FROM_PP)
            method = member.method if member is not None else None
            if method is not None and method.keys_read_exact and all(k.kind == "str" for k in method.keys_read):
                if {k.value for k in method.keys_read} != set(attrs):
                    return None  # generating these keys would only trade PPA001 for PPA015
        annotation = f"dict[str, {constructor.tensors[0][1]}]" if annotates_returns(node) else ""
        spec = MethodSpec(TO_PP, ("self",), "dict", tuple((attr, attr) for attr in attrs), returns=annotation)
        return self._base_plan(finding, fqn, node, safe=False, method=spec,
                               description=f"Add `{TO_PP}` returning {_names(attrs)}")

    # -- PPA002 --
    def plan_from_pp(self, finding: Finding) -> Plan | None:
        fqn = finding.symbol
        info = self.infos.get(fqn)
        if info is None or info.pair is None or self.index.lookup(fqn, FROM_PP) is not None:
            return None
        found = self.sources.class_node(fqn)
        if found is None or found[1] != finding.path:
            return None
        node, path, module = found
        pair = info.pair
        constructor = self.constructors.of(pair)
        keys = self.sent_keys(pair, constructor)
        if constructor is None or not keys:
            return None
        items = []
        for key, attr in keys:
            param = constructor.attr_to_param.get(attr)
            if param is None or param in constructor.positional_only:
                return None
            items.append((param, key))
        if not constructor.required <= {param for param, _ in items}:
            return None  # a required argument that does not travel: cannot rebuild
        name, add_import = self.name_in_scope(pair, module, path, self.index.classes[fqn].qualname)
        if name is None:
            return None
        annotation = name if annotates_returns(node) else ""
        spec = MethodSpec(FROM_PP, ("self", "tensors"), "construct", tuple(items), constructor=name,
                          returns=annotation)
        description = f"Add `{FROM_PP}` rebuilding `{name}` from {_names(k for k, _ in keys)}"
        if add_import is not None:
            description += f" (imports `{add_import[1]}` from `{add_import[0]}`)"
        return self._base_plan(finding, fqn, node, safe=False, method=spec, add_import=add_import,
                               description=description)

    def _observers_of(self, output: str) -> list[str]:
        return [info.fqn for info in self.infos.values() if info.is_observer and info.pair == output]

    def sent_keys(self, output: str, constructor: Constructor | None) -> list[tuple[str, str]] | None:
        """(key, attribute) pairs the output sends, or None when they are not statically known."""
        member = self.index.lookup(output, TO_PP)
        if member is None:
            if constructor is None:
                return None
            return [(attr, attr) for attr, _ in constructor.tensors] or None  # what PPA001's fix sends
        if member.method is None or member.owner not in self.index.classes or member.stub_of_protocol:
            return None
        found = self.sources.class_node(member.owner)
        if found is None:
            return None
        function = next((d for d in found[0].body if isinstance(d, ast.FunctionDef) and d.name == TO_PP), None)
        if function is None:
            return None
        shapes = [returned_mapping(r) for r in returns(function)]
        if any(shape is None for shape in shapes) or len({frozenset(shape) for shape in shapes}) != 1:
            return None
        return list(shapes[0]) or None

    def name_in_scope(self, target: str, module: str, path: str,
                      scope: str) -> tuple[str | None, tuple[str, str] | None]:
        """A name that denotes ``target`` at run time inside ``module``, or an import that would bind one."""
        summary = self.index.modules.get(module)
        if summary is None:
            return None, None
        typing_only = typing_only_names(self.sources.tree(path))
        candidates: list[str] = []
        target_module = self.index.class_module.get(target, "")
        target_qualname = self.index.classes[target].qualname if target in self.index.classes else ""
        if target_module == module and "<locals>" not in target_qualname:
            candidates.append(target_qualname)
        for imported in summary.imports:
            if imported.star or imported.nested:
                continue
            if imported.target == target:
                candidates.append(imported.local)
            elif target.startswith(imported.target + "."):
                candidates.append(imported.local + target[len(imported.target):])
        for local, _ in summary.assignments:
            candidates.append(local)
        for candidate in candidates:
            if candidate.split(".")[0] in typing_only:
                continue
            if self.index.resolve(module, candidate, scope) == target:
                return candidate, None
        if not target_module or "." in target_qualname or "<" in target_qualname or target_module == module:
            return None, None
        name = target_qualname
        if name in typing_only and self.index.resolve(module, name, scope) == target:
            return name, (target_module, name)  # imported for type checkers only: import it for real
        bound = {i.local for i in summary.imports} | {c.qualname for c in summary.classes} | set(summary.defs)
        bound |= {local for local, _ in summary.assignments}
        if name in bound or self.index.resolve(module, name, scope) is not None:
            return None, None  # the name means something else here
        return name, (target_module, name)


def _names(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)
