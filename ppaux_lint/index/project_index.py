"""The project index: the graph of modules and classes (``graph.py``) with the questions that need more than the
graph answered on top of it, and each class's :class:`~.model.ClassInfo` made whole.

The graph classifies a class by what it inherits and defines; what an observer's hooks return needs the
inference (``inference.py``), and so do the answers built on it: which output an observer rebuilds (its pair),
where each output goes (``routes.py``), which classes have no instance of their own and which observers never
hand an output over (``instances.py``), which outputs only ever travel inside another's mapping (``parts.py``).
Those modules ask the graph only, so they sit between it and this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from ppaux_lint.contract.names import AFTER_SAMPLE, FROM_PP
from ppaux_lint.facts.summary import FileSummary
from ppaux_lint.index import instances
from ppaux_lint.index.constants import Constants
from ppaux_lint.index.empty_returns import EmptyReturns
from ppaux_lint.index.generics import TypeArguments
from ppaux_lint.index.graph import Below, Member, ProjectGraph
from ppaux_lint.index.inference import NONE, UNKNOWN, Inference
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.parts import find_parts
from ppaux_lint.index.routes import find_routes
from ppaux_lint.project.config import Protocols

__all__ = ["Member", "ProjectIndex"]  # Member: what lookup answers


class ProjectIndex(ProjectGraph):
    def __init__(self, summaries: Iterable[FileSummary], protocols: Protocols, structural: bool = True,
                 loader: Callable[[str], FileSummary | None] | None = None,
                 known_modules: Iterable[str] = (), focus: Iterable[str] | None = None,
                 owners: Mapping[str, str] | None = None) -> None:
        """The graph's arguments (``graph.py``), and ``focus``: the classes worth classifying (all indexed ones
        when None); others are classified on request."""
        super().__init__(summaries, protocols, structural, loader=loader, known_modules=known_modules,
                         owners=owners)
        self._focus = list(self.classes) if focus is None else [c for c in focus if c in self.classes]
        self._infos: dict[str, ClassInfo] | None = None  # the focused classes, whole
        self._below: Below | None = None  # the focused classes below each class, made with _infos
        self._listing: tuple[int, dict[str, ClassInfo]] | None = None  # (classes classified then, listing())
        self._inference: Inference | None = None
        self._constants: Constants | None = None
        self._type_arguments: TypeArguments | None = None
        self._empty_returns: EmptyReturns | None = None

    @property
    def inference(self) -> Inference:
        """What expressions of the project can be instances of (``inference.py``), memoised with the index."""
        if self._inference is None:
            self._inference = Inference(self)
        return self._inference

    @property
    def constants(self) -> Constants:
        """What names bound to constants hold, across files (``constants.py``), memoised with the index."""
        if self._constants is None:
            self._constants = Constants(self)
        return self._constants

    @property
    def type_arguments(self) -> TypeArguments:
        """What type variables stand for in classes that specialise generic bases (``generics.py``)."""
        if self._type_arguments is None:
            self._type_arguments = TypeArguments(self, self.constants)
        return self._type_arguments

    @property
    def empty_returns(self) -> EmptyReturns:
        """The paths on which a call of a project function returns nothing (``empty_returns.py``)."""
        if self._empty_returns is None:
            self._empty_returns = EmptyReturns(self, self.inference)
        return self._empty_returns

    def infos(self) -> dict[str, ClassInfo]:
        """Every class classified so far: the focused ones first, with their pairing, routes and whether they have
        instances (computed once), then any other a question was asked about, in the order asked, as classified."""
        return dict(self.listing())

    def iter_infos(self) -> Iterator[ClassInfo]:
        return iter(self.listing().values())

    def listing(self) -> Mapping[str, ClassInfo]:
        """``infos()`` itself, not a copy to keep: the same mapping until a question classifies another class. The
        rules ask for the list a dozen times, and each was made again (2,600 classes on the monorepo benchmark)."""
        whole = self._whole()
        if self._listing is None or self._listing[0] != len(self._classified):  # classified grows, never changes
            infos = dict(whole)
            infos.update((fqn, info) for fqn, info in self._classified.items() if fqn not in whole)
            self._listing = (len(self._classified), infos)
        return self._listing[1]

    def info(self, fqn: str) -> ClassInfo:
        """The classification of any indexed class, focused (whole) or not (as classified)."""
        whole = self._whole()
        return whole[fqn] if fqn in whole else self.classified(fqn)

    def _whole(self) -> dict[str, ClassInfo]:
        """The focused classes, classified, then paired, then given their routes and instances, in that order:
        each step asks questions of all the classes the step before made."""
        if self._infos is None:
            infos = {fqn: self.classified(fqn) for fqn in self._focus}
            for fqn, info in infos.items():
                infos[fqn] = self._with_pair(info)
            focused = [infos[fqn] for fqn in self._focus]
            no_output = {info.fqn: instances.no_output(self, self.inference, info)
                         for info in focused if info.is_observer}
            routes = find_routes(self, self.inference, focused, {fqn for fqn, reason in no_output.items() if reason})
            below = Below(self, focused)
            constructions = instances.Constructions(self.summaries)
            for info in focused:
                infos[info.fqn] = info.amended(
                    forward_by=routes.forward.get(info.fqn, ()), returned_by=routes.sampled.get(info.fqn, ()),
                    forward_only_by=routes.forward_only(info.fqn),
                    not_instantiated=instances.not_instantiated(self, info, below.least(info.fqn), constructions)
                    if info.roles and not info.is_interface else "",
                    no_output=no_output.get(info.fqn, ""))
            for fqn, part in find_parts(self, self.inference, [infos[fqn] for fqn in self._focus]).items():
                infos[fqn] = infos[fqn].amended(part_of=part.containers, part_calls=part.calls, part_uses=part.uses)
            self._infos, self._below = infos, below
        return self._infos

    def subclasses(self, fqn: str) -> tuple[str, ...]:
        """The focused classes that have ``fqn`` among their ancestors, in the order they are focused."""
        self._whole()
        assert self._below is not None
        return self._below.of(fqn)

    def _with_pair(self, info: ClassInfo) -> ClassInfo:
        if not info.is_observer:
            return info
        pair = self.pair_of(info.fqn)
        if pair is None:
            return info
        return info.amended(pair=pair)

    def pair_of(self, observer: str) -> str | None:
        """The output class an observer rebuilds."""
        found = self.pairing(observer)
        return found[0] if found is not None else None

    def pairing(self, observer: str) -> tuple[str, str] | None:
        """(output, hook): what ``from_pp_tensors`` constructs or declares, else what ``after_sample``
        constructs or declares, with the hook that told. One class only: the one it certainly constructs, else the
        one its annotation declares. A hook that can give several output classes (``SampledOut`` or ``GreedyOut``)
        pairs the observer with none: which one a batch carries is known only at run time, and judging the
        observer against either one would be wrong for the other."""
        candidates, hook = self.rebuild_candidates(observer)
        return (candidates[0], hook) if len(candidates) == 1 else None

    def rebuild_candidates(self, observer: str) -> tuple[tuple[str, ...], str]:
        """The output classes the first hook that gives any (``from_pp_tensors``, else ``after_sample``) certainly
        constructs, else those it declares, sorted, and that hook; ((), "") when neither gives one."""
        for hook in (FROM_PP, AFTER_SAMPLE):
            found = self._hook_output_classes(observer, hook)
            candidates = sorted({t for t, declared in found if not declared}) or \
                sorted({t for t, declared in found if declared})
            if candidates:
                return tuple(candidates), hook
        return (), ""

    def sent_by(self, observer: str) -> str | None:
        """The output class that the observer's ``after_sample`` certainly constructs, when it is one class only:
        what crosses the stage for this observer, whichever class its ``from_pp_tensors`` rebuilds (a subclass
        that returns another output and inherits the base's ``from_pp_tensors`` reads that one's keys)."""
        values = self.inference.hook_returns(observer, AFTER_SAMPLE)
        if not values or UNKNOWN in values:  # a path that returns what the inference cannot follow: not certain
            return None
        instances = [v for v in values if v != NONE]
        found = {target for target, _ in self.inference.classes(instances)}
        certain = {target for target in found if self.is_output_class(target)}
        return next(iter(certain)) if len(certain) == 1 and len(found) == len(instances) == 1 else None

    def hook_outputs(self, cls: str, hook: str) -> Iterator[str]:
        """The project output classes that the class's ``hook`` can return (``inference.py``), in a stable order:
        those it certainly constructs first, then those a declared base stands for."""
        for target, _ in sorted(self._hook_output_classes(cls, hook), key=lambda item: (item[1], item[0])):
            yield target

    def _hook_output_classes(self, cls: str, hook: str) -> list[tuple[str, bool]]:
        """(output class, only declared) for each project output class the class's ``hook`` can return."""
        found = self.inference.classes(self.inference.hook_returns(cls, hook, declared=True) or ())
        return [(target, declared) for target, declared in found if self.is_output_class(target)]
