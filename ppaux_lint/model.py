"""What the project index knows about a class, shared by rules, inventory and verify."""

from __future__ import annotations

from dataclasses import dataclass

from ppaux_lint.summary import ClassSummary

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

    @property
    def is_output(self) -> bool:
        return OUTPUT in self.roles

    @property
    def is_observer(self) -> bool:
        return OBSERVER in self.roles
