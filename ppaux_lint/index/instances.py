"""Which classes can have an instance that meets SGLang's helpers, and which observers ever hand one over.

A finding says that the helpers raise for a class at run time, which takes an instance of it on the path
(``add_auxiliary_output_to_pp_tensors(tensors, output)``, ``pop_auxiliary_output_from_pp_tensors(tensors,
observer)``). So a class is not judged itself, only through its subclasses (which inherit its methods and
are judged with them), when the project shows it has no instance:

- an ``abc.ABC`` (or any class whose metaclass is ``abc.ABCMeta``) with abstract methods left: Python
  refuses to instantiate it;
- an output that the project subclasses and never names anywhere that could construct it (see
  ``summarize.uses``): only its subclasses are ever built.

And an observer whose ``after_sample`` never returns an output (None on every path, the Protocol's stub, or
no definition at all) never makes output tensors cross a stage: ``pop_auxiliary_output_from_pp_tensors``
returns before it looks at the observer, so whatever its ``from_pp_tensors`` is, nothing raises.

Where the tool cannot tell (a base it cannot see might define the hook, a name that is not class-like might
be an alias of the class), it keeps the class judged. ``inventory`` shows each reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ppaux_lint.contract.names import AFTER_SAMPLE, is_class_like
from ppaux_lint.facts.summary import FileSummary, MethodSummary
from ppaux_lint.index.inference import NONE, Inference
from ppaux_lint.index.model import ClassInfo

if TYPE_CHECKING:
    from ppaux_lint.index.graph import ProjectGraph

ABC_BASES = frozenset({"abc.ABC"})
ABC_META = "abc.ABCMeta"
_ABSTRACT = frozenset({"abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"})


def is_abstract(method: MethodSummary) -> bool:
    return any(d.rsplit(".", 1)[-1] in _ABSTRACT for d in method.decorators)


def abstract_left(index: ProjectGraph, fqn: str) -> tuple[str, ...]:
    """The abstract methods a class leaves unimplemented, when its metaclass enforces them; else ()."""
    if index.first_along(fqn, abstract_left, lambda cls: True if cls in ABC_BASES or _has_abc_meta(index, cls)
                         else None) is None:  # memoised along the MRO: a chain's classes each walked all of it
        return ()
    mro = index.mro(fqn)
    declared = {m.name for cls in mro if cls in index.classes for m in index.classes[cls].methods if is_abstract(m)}
    left = []
    for name in sorted(declared):
        member = index.lookup(fqn, name)
        if member is not None and member.method is not None and is_abstract(member.method):
            left.append(name)
    return tuple(left)


def _has_abc_meta(index: ProjectGraph, cls: str) -> bool:
    summary = index.classes.get(cls)
    if summary is None or not summary.metaclass:
        return False
    meta = index.resolve(index.class_module[cls], summary.metaclass, summary.qualname.rpartition(".")[0])
    return meta is not None and (meta == ABC_META or ABC_META in index.mro(meta))


class Constructions:
    """Whether a class may be constructed anywhere in the project, judged by name (``summarize.uses``): the
    class's own name and every alias an import or assignment binds to it, in any module."""

    def __init__(self, summaries: Iterable[FileSummary]) -> None:
        self._summaries = summaries
        self._used: set[str] | None = None  # read on the first question: most projects never ask one
        self._aliases: dict[str, set[str]] = {}  # a name -> the names bound to it

    def _read(self) -> set[str]:
        if self._used is not None:
            return self._used
        self._used = set()
        for summary in self._summaries:
            self._used.update(summary.value_names)
            for imported in summary.imports:
                if not imported.star:
                    self._alias(imported.target.rsplit(".", 1)[-1], imported.local)
            for local, value in summary.assignments:
                self._alias(value.rsplit(".", 1)[-1], local)
        return self._used

    def _alias(self, name: str, local: str) -> None:
        if local != name:
            self._aliases.setdefault(name, set()).add(local)

    def possibly_constructed(self, name: str) -> bool:
        used = self._read()
        names, todo = {name}, [name]
        while todo:
            for alias in self._aliases.get(todo.pop(), ()):
                if alias not in names:
                    names.add(alias)
                    todo.append(alias)
        return any(not is_class_like(n) for n in names) or not names.isdisjoint(used)


def not_instantiated(index: ProjectGraph, info: ClassInfo, subclasses: Iterable[str],
                     constructions: Constructions) -> str:
    """Why the class has no instance of its own, in words; "" when it may have one."""
    left = abstract_left(index, info.fqn)
    if left:
        return f"abstract: {', '.join(f'`{n}`' for n in left)} left abstract, so it cannot be instantiated"
    subclasses = sorted(subclasses)
    if info.is_output and subclasses and not constructions.possibly_constructed(info.summary.name):
        return (f"a base only: the project subclasses it ({', '.join(subclasses[:3])}"
                f"{', ...' if len(subclasses) > 3 else ''}) and never constructs it")
    return ""


def no_output(index: ProjectGraph, inference: Inference, info: ClassInfo) -> str:
    """Why an observer never returns an output from ``after_sample``, in words; "" when it may. ``inference``
    is the one about ``index``."""
    values = inference.hook_returns(info.fqn, AFTER_SAMPLE)
    if values is None:
        if info.unresolved_bases:
            return ""  # a base we cannot see may define it
        return f"never returns an output: it does not define `{AFTER_SAMPLE}`, and the Protocol's returns None"
    if values <= {NONE}:
        member = index.lookup(info.fqn, AFTER_SAMPLE)
        where = f" (defined in `{member.owner}`)" if member is not None and member.owner != info.fqn else ""
        return f"never returns an output: its `{AFTER_SAMPLE}`{where} returns None on every path"
    return ""
