"""What the project index knows about a class, shared by rules, inventory and verify."""

from __future__ import annotations

from dataclasses import dataclass

from ppaux_lint.facts.summary import ClassSummary

OUTPUT = "output"
OBSERVER = "observer"


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
    recognized: dict[str, str]  # role -> how it was recognised
    pair: str | None = None
    forward_observer: str | None = None  # how it was recognised as a forward observer
    forward_only_by: tuple[str, ...] = ()
    forward_by: tuple[str, ...] = ()
    returned_by: tuple[str, ...] = ()
    not_instantiated: str = ""
    no_output: str = ""
    part_of: tuple[str, ...] = ()
    part_calls: tuple[tuple[str, str], ...] = ()
    part_uses: tuple[tuple[str, str, int], ...] = ()

    @property
    def is_output(self) -> bool:
        return OUTPUT in self.roles

    @property
    def is_observer(self) -> bool:
        return OBSERVER in self.roles
