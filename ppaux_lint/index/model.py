"""What the project index knows about a class, shared by rules, inventory and verify."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from ppaux_lint.facts.summary import ClassSummary
from ppaux_lint.support.records import dataclass

OUTPUT = "output"
OBSERVER = "observer"


@dataclass(frozen=True)
class Touch:
    """Code the analysis cannot follow that touches a class (``namespaces.py``): ``what`` it does, in words that
    follow "could not be judged:" ("decorated by `magic.auto`, which the analysis cannot follow"), and where."""

    what: str
    path: str
    line: int


Chain = tuple  # () or (name, Chain): the classes of an inheritance path, each path sharing the rest of its base's


class Via:
    """A reason that names the path up to a root ("subclass of <root> via a -> b"), made into text only when
    read. The path of a class with one base is its base's, one class longer, and shares it (``Chain``): the text
    of every class's path, made for each class of a chain of n, was n * n / 2 names (a gigabyte of text for
    10,000 classes, of which a check reads one finding's). Never compared or hashed itself (``Reasons`` compares
    the text): a ``Chain`` thousands deep is too deep for the recursion those would take."""

    __slots__ = ("chain", "prefix", "root")

    def __init__(self, prefix: str, root: str, chain: Chain) -> None:
        self.prefix, self.root, self.chain = prefix, root, chain

    def text(self) -> str:
        names = []
        chain = self.chain
        while chain:
            name, chain = chain
            names.append(name)
        return f"{self.prefix} {self.root} via {' -> '.join(names)}"


class Reasons(Mapping[str, str]):
    """``ClassInfo.recognized``: role -> how the class was recognised, in words; a ``Via`` becomes its text the
    first time it is read. Equal to any mapping with the same texts (a dict in a test)."""

    __slots__ = ("_reasons",)

    def __init__(self, reasons: Mapping[str, str | Via]) -> None:
        self._reasons = dict(reasons)

    def __getitem__(self, role: str) -> str:
        reason = self._reasons[role]
        if isinstance(reason, Via):
            reason = self._reasons[role] = reason.text()
        return reason

    def __iter__(self) -> Iterator[str]:
        return iter(self._reasons)

    def __len__(self) -> int:
        return len(self._reasons)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


@dataclass(frozen=True)
class ClassInfo:
    """A class of the project, joined with its resolved inheritance.

    ``roles`` holds OUTPUT and/or OBSERVER; ``recognized`` says how, in words
    ("subclass of sglang...DeviceAuxiliaryOutput via pkg.base.Base",
    "structural: defines copy_to_host"); ``pair`` is, for an observer, the
    fully qualified name of the output class its ``from_pp_tensors`` rebuilds
    (else None).

    Forward observers (``after_forward``) are not a role: they take no part in
    pipeline-parallel transport, because SGLang refuses to install one when
    ``pp_size > 1``. ``forward_observer`` says how a class was recognised as
    one; ``forward_only_by``, for an output, names what routes it to forward
    observers (the observers, or ``<callee>.forward_auxiliary_output``) when no
    sampling observer returns it: such an output never crosses a stage.
    ``forward_by`` and ``returned_by`` name every forward route and every
    sampling observer that returns the output (``routes.py``), whichever wins.

    ``not_instantiated`` says why the class has no instance of its own
    (abstract, a base only) and ``no_output``, for an observer, why its
    ``after_sample`` never returns an output: such classes are not judged for
    what only an instance on the PP path needs (``instances.py``). Both are ""
    otherwise.

    ``unknown`` holds what makes the class's namespace unknowable where its role's transport method is looked
    up (an unknown decorator, metaclass or ``setattr``; on it or a base the lookup passes): no rule judges
    what it would find there, and ``inventory`` and ``check``'s summary say so.
    ``part_of`` names, for a part (``parts.py``), the containers whose ``to_pp_tensors`` send what it holds:
    SGLang never meets it alone, so it needs no ``to_pp_tensors``. ``part_calls`` holds (container, how) for
    each container on the PP path that calls the part's own ``to_pp_tensors`` ("returned", "merged",
    "renamed"), which then runs inside the container's. ``part_uses`` holds (container, how, line) for every use, for
    ``inventory`` to cite. All are empty for a class that is no part.
    """

    fqn: str
    module: str
    path: str
    summary: ClassSummary
    ancestry: tuple[str, ...]  # the MRO: resolved fully qualified names, self first; unresolved bases are absent
    unresolved_bases: tuple[str, ...]  # bases that could not be resolved to a known class
    is_interface: bool  # lists Protocol among its own bases
    roles: frozenset[str]
    recognized: Mapping[str, str]  # role -> how it was recognised (``Reasons``, or a dict)
    pair: str | None = None
    forward_observer: str | None = None  # how it was recognised as a forward observer
    forward_only_by: tuple[str, ...] = ()
    forward_by: tuple[str, ...] = ()
    returned_by: tuple[str, ...] = ()
    not_instantiated: str = ""
    no_output: str = ""
    unknown: tuple[Touch, ...] = ()  # why what the rules would judge of it cannot be known (namespaces.py)

    @property
    def could_not_be_judged(self) -> bool:
        """An output or observer that the rules would judge, had code the analysis cannot follow not touched its
        namespace (``unknown``): what ``check``'s summary counts."""
        judged_as_output = self.is_output and not self.forward_only_by
        judged_as_observer = self.is_observer and not self.no_output
        return bool(self.unknown) and not self.is_interface and not self.not_instantiated and (
            judged_as_output or judged_as_observer)
    part_of: tuple[str, ...] = ()
    part_calls: tuple[tuple[str, str], ...] = ()
    part_uses: tuple[tuple[str, str, int], ...] = ()

    @property
    def is_output(self) -> bool:
        return OUTPUT in self.roles

    def amended(self, **changes: object) -> ClassInfo:
        """``dataclasses.replace(self, **changes)``, made by copying the fields: the class has no ``__post_init__``
        and no field made from another, so that is the object ``replace`` makes, without its 9 us of looking the
        fields up and running the frozen ``__init__`` (the index amends every class it focuses on two or three
        times: 28 ms of a cold check of the monorepo benchmark)."""
        if not changes.keys() <= _FIELDS:
            raise TypeError(f"ClassInfo has no field {sorted(changes.keys() - _FIELDS)[0]!r}")
        amended = object.__new__(ClassInfo)
        fields = amended.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return amended

    @property
    def is_observer(self) -> bool:
        return OBSERVER in self.roles


_FIELDS = frozenset(field.name for field in dataclasses.fields(ClassInfo))
