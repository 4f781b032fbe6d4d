"""What a fix will do (:class:`Plan`), and what every fix builder shares to decide it (:class:`Planner`).

Planning runs on every ``check`` with findings (``Finding.fix`` tells the reports which findings are
fixable), so it uses only the stdlib ``ast`` and the analysis already made; a plan names its edit without
materializing it. A fix is offered only when the planner can see that the result will be right: anything it
cannot see means no plan. The builders, one per kind of fix, are in :mod:`.builders`; :mod:`.planning` runs
the one each finding's rule declares.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import TO_PP, is_near_miss
from ppaux_lint.facts.findings import Finding, Fix
from ppaux_lint.fixes.constructors import TENSOR, Constructor, Constructors
from ppaux_lint.fixes.import_cycles import ImportCycles
from ppaux_lint.fixes.render import (
    DEFAULT_LINE_LENGTH,
    MethodSpec,
    body_column,
    configured_line_length,
)
from ppaux_lint.fixes.sources import Sources
from ppaux_lint.fixes.syntax import bound_names, returned_mapping, returns, typing_only_names
from ppaux_lint.rules import by_code
from ppaux_lint.rules.base import SAFE_FIX
from ppaux_lint.support.records import dataclass

if TYPE_CHECKING:
    from ppaux_lint.check.engine import Analysis


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
    line_length: int = DEFAULT_LINE_LENGTH
    body_column: int = 4  # absolute indentation of the class body, in characters

    @property
    def fix(self) -> Fix:
        return Fix(self.description, self.safe, self.path)


class Planner:
    """What every fix builder shares: the analysis, the source trees, the constructors of classes, the
    project's style, and the questions several fixes ask (who rebuilds an output, which keys it sends,
    which name denotes a class in a module)."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.index = analysis.index
        self.infos = analysis.classes
        self.sources = Sources(analysis.index, analysis.overlays)
        self.constructors = Constructors(analysis.index, analysis.classes)
        self._line_length: int | None = None
        self._observers: dict[str | None, list[str]] | None = None
        self.import_cycles = ImportCycles(analysis.index, analysis.discovery.files, analysis.overlays)

    def line_length(self) -> int:
        if self._line_length is None:
            self._line_length = configured_line_length(self.analysis.project.root)
        return self._line_length

    def base_plan(self, finding: Finding, fqn: str, node: ast.ClassDef, **kwargs) -> Plan:
        """A plan for ``finding`` on class ``fqn``, carrying the file's style facts and the safety its rule
        declares (``Rule.fix``); ``kwargs`` say what to do."""
        summary = self.index.classes[fqn]
        text = self.sources.text(finding.path)
        return Plan(finding=finding, path=finding.path, class_name=summary.name, class_line=summary.span.line,
                    safe=by_code(finding.code).fix == SAFE_FIX, line_length=self.line_length(),
                    body_column=body_column(node, text), **kwargs)

    def observers_of(self, output: str) -> list[str]:
        if self._observers is None:  # once: asked for every PPA001, it would visit every class each time
            self._observers = {}
            for info in self.infos.values():
                if info.is_observer:
                    self._observers.setdefault(info.pair, []).append(info.fqn)
        return list(self._observers.get(output, ()))

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
        function = _last_binding(found[0], TO_PP)  # Python keeps the last: a second ``def`` replaces the first
        if not isinstance(function, ast.FunctionDef):
            return None
        shapes = [returned_mapping(r) for r in returns(function)]
        if any(shape is None for shape in shapes) or len({frozenset(shape) for shape in shapes}) != 1:
            return None
        return list(shapes[0]) or None

    def defaults_passed(self, fqn: str, constructor: Constructor, rebuilt: Iterable[str] | None = None) -> bool:
        """Whether a construction site the index knows may pass ``fqn`` a parameter that stays home
        (``Constructor.stays_home``: ``Out(lp, temperature=self.temperature)``): rebuilt with its default, the
        output would lose that value. Only the files that could name the class are read (its own module, those
        importing it or its module, those using its name as a value); there a call of the class (by any name they
        import it as, ``module.Out``, ``cls``, ``type(self)``, ``self.__class__`` in its own module, through
        ``functools.partial``, or ``replace``) passing one by keyword, by position, or through ``*``/``**``
        counts; a file that cannot be read counts too. ``rebuilt``: the parameters a rebuild passes, when not
        those ``to_pp_tensors`` would send as generated."""
        home = set(constructor.stays_home) if rebuilt is None else \
            {p for p in constructor.params if p not in constructor.required} - set(rebuilt)
        summary = self.index.classes.get(fqn)
        if not home or summary is None:
            return False
        name, own = summary.name, self.index.class_module.get(fqn, "")
        for module, file in list(self.index.modules.items()):
            aliases = {i.local for i in file.imports if i.target == fqn}
            if module != own and not aliases and name not in file.value_names \
                    and not any(i.target == own for i in file.imports):
                continue
            try:
                tree = self.sources.tree(file.path)
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                return True
            names = aliases | {name} | ({"cls"} if module == own else set())
            if any(_passes(call, names, module == own, constructor.params, home) for call in ast.walk(tree)
                   if isinstance(call, ast.Call)):
                return True
        return False

    def near_miss(self, fqn: str | None, method: str) -> bool:
        """Whether the class ``fqn``, or a class along its MRO, defines a near miss of ``method``
        (``to_pp_tensor``): a rename may give it that name, with whatever it sends or reads."""
        if fqn is None or fqn not in self.infos:
            return True  # nothing known of it
        return any(member.name != method and is_near_miss(member.name, method) for cls in self.infos[fqn].ancestry
                   if cls in self.index.classes for member in self.index.classes[cls].methods)

    def tensor_name(self, module: str, scope: str) -> str:
        """A name that denotes ``torch.Tensor`` in ``scope`` of ``module`` (``torch.Tensor``, ``Tensor``,
        ``th.Tensor``), "" when the module binds none."""
        summary = self.index.modules.get(module)
        candidates = ["torch.Tensor", "Tensor"]
        for imported in summary.imports if summary is not None else ():
            if imported.target == TENSOR:
                candidates.append(imported.local)
            elif imported.target == "torch":
                candidates.append(f"{imported.local}.Tensor")
        return next((c for c in candidates if self.index.resolve(module, c, scope) == TENSOR), "")

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
        if self.import_cycles.closes_a_cycle(target_module, module):
            return None, None  # a module-level import here would close an import cycle
        name = target_qualname
        if name in typing_only and self.index.resolve(module, name, scope) == target:
            return name, (target_module, name)  # imported for type checkers only: import it for real
        bound = {i.local for i in summary.imports} | {c.qualname for c in summary.classes} | set(summary.defs)
        bound |= {local for local, _ in summary.assignments}
        if name in bound or self.index.resolve(module, name, scope) is not None:
            return None, None  # the name means something else here
        return name, (target_module, name)


def _last_binding(node: ast.ClassDef, name: str) -> ast.stmt | None:
    """The last statement of the class body that binds ``name`` (a ``def``, a class, an assignment, an import), or
    None; one under an ``if``, ``try``, ``with`` or loop at class level makes it unknown (None)."""
    last = None
    for statement in node.body:
        if isinstance(statement, (ast.If, ast.Try, ast.With, ast.For, ast.While, ast.AsyncWith, ast.AsyncFor)) \
                and name in bound_names([statement]):
            return None
        if name in bound_names([statement]):
            last = statement
    return last


def _passes(call: ast.Call, names: set[str], own: bool, params: tuple[str, ...], home: set[str]) -> bool:
    """Whether ``call`` constructs a class called one of ``names`` (see ``Planner.defaults_passed``) and passes one
    of the parameters in ``home``."""
    func, args, keywords = call.func, list(call.args), list(call.keywords)
    last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if last == "partial" and args:
        func, args = args[0], args[1:]
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    elif last == "replace":
        return any(k.arg is None or k.arg in home for k in keywords)  # ``dataclasses.replace(out, scale=2.0)``
    constructs = last in names or (own and (last == "__class__" or (
        isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "type")))
    if not constructs:
        return False
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
        return True
    return any(k.arg in home for k in keywords) or any(params[i] in home for i in range(min(len(args), len(params))))


def names_list(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)
