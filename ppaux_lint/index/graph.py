"""The lower floor of the project index: summaries joined into a graph of modules and classes, and what the
graph alone answers (names, inheritance, members, roles). The questions that need more (what a hook returns,
where an output goes, which classes have instances) are asked of it from above (``project_index.py``).

Names are resolved lazily and memoised, the way astroid infers: a base is
followed through imports, ``__all__`` re-exports, aliases and star imports
until it lands on a project class or leaves the project (then its dotted
name is what identifies it, so ``sglang....DeviceAuxiliaryOutput`` is
recognised without SGLang being installed, and a project class that merely
shares its short name is not). Every walk carries a visited set, so cycles in
imports or inheritance end the walk instead of the run.
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from ppaux_lint.contract.names import (
    AFTER_SAMPLE,
    COMPOSITE_OUTPUT,
    DYNAMIC_LOOKUP,
    FROM_PP,
    OBSERVER_HOOKS,
    TO_PP,
    is_near_miss,
)
from ppaux_lint.facts.summary import ClassSummary, FileSummary, Import, MemberAssign, MethodSummary
from ppaux_lint.index import known_bases
from ppaux_lint.index.hooks import AFTER_FORWARD_CALL, AFTER_SAMPLE_CALL, COPY_TO_HOST_CALL, HookCall
from ppaux_lint.index.model import OBSERVER, OUTPUT, Chain, ClassInfo, Reasons, Touch, Via
from ppaux_lint.index.namespaces import Namespace, Namespaces, Site
from ppaux_lint.project.config import Protocols
from ppaux_lint.support.records import dataclass

PROTOCOL_NAMES = frozenset({"typing.Protocol", "typing_extensions.Protocol"})


@dataclass(frozen=True)
class Member:
    """Where a member was found along the MRO, and what it is.

    A member the class's final namespace holds (``namespaces.py``) comes with ``origin``, how the class got it
    when its statement did not write it ("added by `pkg.decorators.pp_fields` (line 14)"), and ``site``, where
    its value is written (the file its spans are in, the module and scope its names resolve in). A project
    function bound as a member (``to_pp_tensors = _pack``, ``Out.to_pp_tensors = _pack``) is a ``method`` too,
    summarized as the method it becomes. ``unknown`` is set, and nothing else is known, when code the
    analysis cannot follow touches the namespace where the lookup passes: no rule judges such a member.
    """

    owner: str  # fqn of the class that defines it (or an outside class: a PP root, a known base)
    method: MethodSummary | None
    assign: MemberAssign | None
    stub_of_protocol: bool  # the definition is a Protocol's stub, which returns None
    origin: str = ""
    site: Site | None = None
    unknown: Touch | None = None

    @property
    def is_none(self) -> bool:
        return self.assign is not None and self.assign.value == "none"


class ProjectGraph:
    """The modules and classes of a project, joined by their imports and bases; every answer memoised."""

    def __init__(self, summaries: Iterable[FileSummary], protocols: Protocols, structural: bool = True,
                 loader: Callable[[str], FileSummary | None] | None = None,
                 known_modules: Iterable[str] = (), owners: Mapping[str, str] | None = None) -> None:
        """``summaries`` are indexed now; the other ``known_modules`` are summarized by ``loader``
        the first time a name resolves through them (the prefilter skipped them). ``owners`` maps a
        module name to the path of the file that is that module, when two files claim it: the other
        is never indexed, so the outcome does not depend on which came first."""
        self.protocols = protocols
        self.structural = structural
        self.modules: dict[str, FileSummary] = {}
        self.classes: dict[str, ClassSummary] = {}
        self.class_module: dict[str, str] = {}
        self.known: set[str] = set(known_modules)
        self._loader = loader
        self._owners = owners or {}
        self._attempted: set[str] = set()
        self.summaries: list[FileSummary] = []  # every summary given or loaded, registered under a module or not
        for summary in summaries:
            self._register(summary)
        # The edits that reach other modules' classes; it asks the graph through a proxy, so that the two make no
        # reference cycle, which only the collector would free (the server runs an analysis per edit).
        self._namespaces = Namespaces(weakref.proxy(self), list(self.summaries))
        self._hooked: dict[str, Namespace] = {}
        self._around: dict[str, tuple[Namespace, Namespace]] = {}  # (namespace, hooks) of a class, for _member
        # (class, name, seen) where ``_member`` found nothing, whichever class was asked about: every subclass's
        # lookup passes it again (in a chain of n classes, n * n / 2 calls for a name none defines)
        self._holds_nothing: set[tuple[str, str, bool]] = set()
        self._sites: dict[str, Site] = {}
        self._resolved: dict[tuple[str, str], str | None] = {}
        self._stars: dict[str, tuple[Import, ...]] = {}  # module -> its star imports (_star_binding)
        self._mro: dict[str, tuple[str, ...]] = {}
        self._jumps: dict[str, int] = {}  # class -> where its MRO's tail is another class's whole MRO (_find_jump)
        self._afters: dict[object, dict[str, object]] = {}  # what _after found, by the question's key, per class
        self._unresolved: dict[str, tuple[str, ...]] = {}  # class -> unresolved_bases
        self._paths: dict[tuple[str, str], Chain | None] = {}  # (class, ancestor) -> _path_chain
        self._bases: dict[str, list[tuple[str, str | None]]] = {}
        self._looked_up: dict[tuple[str, str, bool], Member | None] = {}  # every rule asks the same few names
        self._classified: dict[str, ClassInfo] = {}  # in the order first asked: the order infos are listed in
        # SGLang's composite is an output its subclasses inherit ``copy_to_host`` from, and no ``to_pp_tensors``
        # (``class Bundle(CompositeDeviceAuxiliaryOutput): pass``): judged as outputs, not an unknown base's
        self._roots_output = frozenset(protocols.output) | {COMPOSITE_OUTPUT}
        self._roots_observer = frozenset(protocols.observer)
        self._roots_pp = frozenset(protocols.pp_output) | frozenset(protocols.pp_observer)
        self._roots_forward = frozenset(protocols.forward_observer)

    def _register(self, summary: FileSummary) -> None:
        self.summaries.append(summary)
        if not summary.module or self._owners.get(summary.module, summary.path) != summary.path:
            return
        self.known.add(summary.module)
        self._attempted.add(summary.module)
        if summary.error is not None or summary.module in self.modules:
            return
        self.modules[summary.module] = summary
        for cls in summary.classes:
            self.classes[f"{summary.module}.{cls.qualname}"] = cls
            self.class_module[f"{summary.module}.{cls.qualname}"] = summary.module

    def load(self, module: str) -> FileSummary | None:
        """The summary of a project module, summarized now if the prefilter skipped it; None if there is none."""
        return self._load(module)

    def owner(self, module: str) -> str | None:
        """The path of the file that is the project module ``module``, summarized or not (None when not known)."""
        return self._owners.get(module)

    def _load(self, module: str) -> FileSummary | None:
        if module not in self._attempted and module in self.known and self._loader is not None:
            self._attempted.add(module)
            summary = self._loader(module)
            if summary is not None:
                self._register(summary)
        return self.modules.get(module)

    # -- names -------------------------------------------------------------------------
    def resolve(self, module: str, name: str, scope: str = "") -> str | None:
        """The fully qualified name ``name`` denotes in ``module`` (inside class/function ``scope``).

        Project classes and functions come back as ``module.qualname``; names
        that leave the project come back as the absolute dotted name they were
        imported as; names that resolve to nothing come back as None.
        """
        if not name:
            return None
        head, _, rest = name.partition(".")
        for prefix in _enclosing(scope):
            candidate = f"{module}.{prefix}.{head}"
            if candidate in self.classes:
                return _join(candidate, rest) if not rest else self._member_of(candidate, rest)
        return self._resolve_global(module, name, frozenset())

    def _resolve_global(self, module: str, name: str, seen: frozenset) -> str | None:
        key = (module, name)
        if key in self._resolved:
            return self._resolved[key]
        if key in seen:
            return None
        if len(seen) >= MAX_RESOLUTION_DEPTH:  # each step is a few frames of Python's stack: no name is that far
            return None
        self._resolved[key] = None  # provisional, breaks cycles through this very key
        result = self._resolve_uncached(module, name, seen | {key})
        self._resolved[key] = result
        return result

    def _resolve_uncached(self, module: str, name: str, seen: frozenset) -> str | None:
        summary = self._load(module)
        head, _, rest = name.partition(".")
        if summary is None:
            return None
        star = self._star_binding(summary, head, seen)
        if star is not None:
            return self._resolve_global(star.target, name, seen)
        shadow = _shadow(summary, head)
        if shadow is not None:  # bound more than once: what the module ends holding
            _, kind, target, _ = shadow
            if kind == "unknown":
                return None
            found = self._resolve_absolute(target, seen) if kind == "import" \
                else self._resolve_global(module, target, seen)
            return self._descend(found, rest, seen) if found is not None else None
        if f"{module}.{head}" in self.classes:
            return self._member_of(f"{module}.{head}", rest) if rest else f"{module}.{head}"
        if head in summary.defs:
            return _join(f"{module}.{head}", rest)
        for local, value in summary.assignments:
            if local == head:
                target = self._resolve_global(module, value, seen)
                if target is not None:
                    return self._descend(target, rest, seen)
        for candidate in self._import_targets(summary, head):
            target = self._resolve_absolute(candidate, seen)
            if target is not None:
                return self._descend(target, rest, seen)
        if summary.is_package and f"{module}.{head}" in self.known:
            return _join(f"{module}.{head}", rest)  # submodule attribute of a package
        if head in _BUILTINS:
            return _join(f"builtins.{head}", rest)
        return None

    def _star_binding(self, summary: FileSummary, head: str, seen: frozenset) -> Import | None:
        """The ``from x import *`` that binds ``head`` in a module that does not bind it itself: of the stars that
        certainly run (at the module's top level), the last that exports it (``from .legacy import *`` then ``from
        .modern import *``: the modern class); else the first of any (one in a ``try``, as its body runs). A binding
        of the module's own stands whatever star comes after it (which names a star really exports, a computed
        ``__all__`` or a name under ``if TYPE_CHECKING:`` there, is not certain enough to replace it)."""
        # Asked at each step of each resolution through the module (7,220 steps through 2,520 modules on the monorepo
        # benchmark): its imports are searched once.
        stars = self._stars.get(summary.module)
        if stars is None:
            stars = self._stars[summary.module] = tuple(i for i in summary.imports if i.star)
        if not stars or self._binds_itself(summary, head):
            return None
        for star in (*(s for s in reversed(stars) if s.certain), *stars):
            if self._load(star.target) is None:
                continue
            exported = self.modules[star.target].all_names
            if (head in exported if exported is not None else not head.startswith("_")) and \
                    self._resolve_global(star.target, head, seen) is not None:
                return star
        return None

    def _binds_itself(self, summary: FileSummary, head: str) -> bool:
        """Whether the module binds ``head`` by a statement of its own (or it is a submodule of the package)."""
        module = summary.module
        return (_shadow(summary, head) is not None or f"{module}.{head}" in self.classes or head in summary.defs
                or any(local == head for local, _ in summary.assignments)
                or any(i.local == head and not i.star and not i.nested for i in summary.imports)
                or (summary.is_package and f"{module}.{head}" in self.known))

    @staticmethod
    def _import_targets(summary: FileSummary, local: str) -> list[str]:
        """Every target ``local`` may be bound to: try/except fallbacks bind one name several times."""
        return [i.target for i in summary.imports if i.local == local and not i.star]

    def _descend(self, target: str, rest: str, seen: frozenset) -> str | None:
        if not rest:
            return target
        if target in self.known:
            return self._resolve_global(target, rest, seen)
        if target in self.classes:
            return self._member_of(target, rest)
        return f"{target}.{rest}"

    def member_class(self, cls: str, rest: str) -> str | None:
        """The nested class ``rest`` of ``cls`` (``Outer`` and ``Inner.Deeper``), or None."""
        return self._member_of(cls, rest)

    def _member_of(self, cls: str, rest: str) -> str | None:
        """A nested class reached by attribute (``Outer.Inner``)."""
        candidate = f"{cls}.{rest}"
        return candidate if candidate in self.classes else None

    def _resolve_absolute(self, dotted: str, seen: frozenset) -> str | None:
        """An absolute dotted name: find the longest prefix that is a project module, resolve the rest in it."""
        if dotted in self.known:
            return dotted
        if dotted in self.classes:
            module = self.class_module[dotted]
            qualname = dotted[len(module) + 1:]
            if "." in qualname or _shadow(self.modules[module], qualname) is None:
                return dotted
            return self._resolve_global(module, qualname, seen)
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.known:
                return self._resolve_global(module, ".".join(parts[cut:]), seen)
        return dotted  # outside the project: its dotted name is its identity

    # -- inheritance ---------------------------------------------------------------------
    def bases(self, fqn: str) -> list[tuple[str, str | None]]:
        """Each base as written, with what it resolves to; then those a decorator's replacement class adds
        (``type(cls.__name__, (cls, Mixin), {})``)."""
        found = self._bases.get(fqn)
        if found is None:  # memoised as the MRO is: classifying a class asks for its bases four times
            cls = self.classes[fqn]
            module = self.class_module[fqn]
            scope = cls.qualname.rpartition(".")[0]
            extra = [(written, target or None) for written, target in self.namespace(fqn).extra_bases] \
                if cls.decorations else []
            found = self._bases[fqn] = [(base, self._resolve_base(module, base, scope, cls)) for base in cls.bases] \
                + extra
        return list(found)

    def _resolve_base(self, module: str, base: str, scope: str, cls: ClassSummary) -> str | None:
        """What a base names when the class statement runs: at module level, a class statement of the module before
        it, even when the name is bound to something else later (``class _PP(Out)`` before ``Out = _PP``)."""
        head, _, rest = base.partition(".")
        shadow = None if scope else _shadow(self.modules[module], head)
        earlier = self.classes.get(f"{module}.{head}")
        if shadow is not None and earlier is not None and earlier.class_line < cls.class_line < shadow[3]:
            return self._member_of(f"{module}.{head}", rest) if rest else f"{module}.{head}"
        return self.resolve(module, base, scope)

    def _shadow_touch(self, fqn: str) -> Touch | None:
        """Why the project class ``fqn`` cannot be judged when its module ends with its name holding something else
        (``FileSummary.shadowed``): code that names it later gets that instead. Only the class itself: what its
        statement holds is known, and its subclasses are judged with it."""
        cls = self.classes.get(fqn)
        if cls is None or "." in cls.qualname:
            return None
        summary = self.modules[self.class_module[fqn]]
        shadow = _shadow(summary, cls.qualname)
        if shadow is None:
            return None
        name, kind, _, line = shadow
        return Touch(_SHADOWED[kind].format(name=name, line=line), summary.path, line)

    def namespace(self, fqn: str) -> Namespace:
        """What code around the class statement does to the project class ``fqn`` (``namespaces.py``)."""
        return self._namespaces.of(fqn)

    def mro(self, fqn: str) -> tuple[str, ...]:
        """C3 linearisation over what resolves; external bases appear as leaves, cycles are cut."""
        found = self._mro.get(fqn)
        return found if found is not None else self._linearize(fqn)[0]

    def _linearize(self, fqn: str) -> tuple[tuple[str, ...], bool]:
        """The MRO, and whether a cycle was cut on the way (such results depend on the entry point,
        so only uncut ones are memoised). A depth-first walk with a stack of its own, not recursion: a chain of
        10,000 classes would exceed Python's recursion limit (a crash, or a lost finding). ``on_path`` holds the
        classes being linearised, the way a frozenset passed down each call did (copied at each level, that was
        quadratic in the chain's depth too)."""
        stack: list[tuple[str, list[str], list[tuple[tuple[str, ...], bool]]]] = []  # (class, parents, done)
        on_path: set[str] = set()
        current = fqn
        while True:
            value: tuple[tuple[str, ...], bool] | None
            if current in self._mro:
                value = self._mro[current], False
            elif current not in self.classes:
                value = (current,), False
            elif current in on_path:
                value = (), True
            else:
                on_path.add(current)
                stack.append((current, [t for _, t in self.bases(current) if t is not None and t != current], []))
                value = None
            while True:
                if value is not None:
                    if not stack:
                        return value
                    stack[-1][2].append(value)
                cls, parents, done = stack[-1]
                if len(done) < len(parents):
                    current = parents[len(done)]
                    break
                stack.pop()
                on_path.discard(cls)
                value = self._merged(cls, parents, done)

    def _merged(self, fqn: str, parents: list[str], linearized: list[tuple[tuple[str, ...], bool]]) \
            -> tuple[tuple[str, ...], bool]:
        """The MRO of ``fqn`` from its parents' (and whether a cut was met), memoised when uncut, with where its
        tail is a whole class's MRO (``_jumps``)."""
        cut = any(c for _, c in linearized)
        sequences = [list(seq) for seq, _ in linearized if seq]
        single = len(sequences) == 1 and parents == sequences[0][:1]
        if single:
            merged: list[str] | None = sequences[0]  # one base: its MRO, as the merge would give it
        else:
            order = [p for p in parents if any(p == s[0] for s in sequences)]
            shared = None if cut or len(sequences) < 2 else self._shared_tail([s[0] for s in sequences])
            merged = _c3_merge([*sequences, order]) if shared is None else self._merged_before(sequences, order, shared)
        if merged is None:  # inconsistent order (Python would raise TypeError): fall back to depth-first
            merged = []
            seen: set[str] = set()
            for seq in sequences:
                merged.extend(c for c in seq if c not in seen)
                seen.update(seq)
        result = (fqn, *merged)
        if not cut:
            self._mro[fqn] = result
            jump = 1 if single and parents[0] in self._mro else self._find_jump(result)
            if jump is not None:
                self._jumps[fqn] = jump
        return result, cut

    def _shared_tail(self, heads: list[str]) -> tuple[str, ...] | None:
        """The MRO of a class that every MRO of ``heads`` ends with (each memoised), found along their ``_jumps``
        (a few steps: the classes a diamond's sides share); None when there is none within ``_SHARED_STEPS``."""
        current = list(heads)
        for _ in range(_SHARED_STEPS):
            if any(c not in self._mro for c in current):
                return None
            if all(c == current[0] for c in current):
                return self._mro[current[0]]
            longest = max(range(len(current)), key=lambda i: len(self._mro[current[i]]))
            jump = self._jumps.get(current[longest])
            if jump is None:
                return None
            current[longest] = self._mro[current[longest]][jump]
        return None

    @staticmethod
    def _merged_before(sequences: list[list[str]], order: list[str], shared: tuple[str, ...]) -> list[str] | None:
        """C3's merge of sequences that all end with ``shared``: the merge of what comes before it, then it, when
        nothing before it is in it (C3 cannot take a class of ``shared`` while a sequence still has a class before
        it, and then takes it in order). Merged whole, the sequences along a stack of n diamonds cost n * n steps."""
        before = [s[:len(s) - len(shared)] for s in sequences]
        if any(c in shared for c in order) or any(c in shared for s in before for c in s):
            return _c3_merge([*sequences, order])
        merged = _c3_merge([*(s for s in before if s), order])
        return None if merged is None else merged + list(shared)

    def _find_jump(self, mro: tuple[str, ...]) -> int | None:
        """The first position after the class itself from which its MRO is the MRO of the class there (memoised
        whole): what is found along the MRO from there on is what that class finds along its own (``_after``).
        Along a diamond (``D(L, R)``, both below ``B``) that is ``R``, whose MRO is ``R, B, ...``."""
        length = len(mro)
        for position in range(1, length):
            found = self._mro.get(mro[position])
            if found is not None and len(found) == length - position and found == mro[position:]:
                return position
        return None

    def _after(self, fqn: str, key: object, step: Callable[[str], object]) -> object:
        """The first answer ``step`` gives (not None) along the MRO of ``fqn`` after ``fqn`` itself, or None.
        ``step`` must depend on the class it is given only, never on ``fqn``; ``key`` names it. Memoised per
        class: where the MRO's tail is another class's whole MRO (``_jumps``: a single base's, always), the answer
        there is that class's own answer or its ``_after``, so a chain of n classes costs n steps, where a walk
        of every class's MRO cost n * n / 2. A loop, not recursion, for chains deeper than the recursion limit.
        A class whose MRO was cut by a cycle is walked whole and not memoised (its MRO depends on the entry)."""
        memo = self._afters.setdefault(key, {})
        pending: list[str] = []
        current = fqn
        result: object = None
        while True:
            if current in memo:
                result = memo[current]
                break
            mro = self.mro(current)
            jump = self._jumps.get(current)
            for cls in mro[1:jump]:
                result = step(cls)
                if result is not None:
                    break
            if result is not None or jump is None:
                if current in self._mro:
                    memo[current] = result
                break
            pending.append(current)
            current = mro[jump]
            result = step(current)
            if result is not None:
                break
        for cls in pending:
            memo[cls] = result
        return result

    def path_to(self, fqn: str, ancestor: str) -> list[str]:
        """The classes between ``fqn`` and ``ancestor`` along the shortest chain of bases as written (the first
        such chain in base order): the classes the inheritance really goes through, where the MRO would also
        list unrelated mixins."""
        names = []
        chain = self._path_chain(fqn, ancestor) or ()
        while chain:
            name, chain = chain
            names.append(name)
        return names

    def _path_chain(self, fqn: str, ancestor: str) -> Chain | None:
        """``path_to`` as a ``Chain`` (model.py): () where ``ancestor`` is a base of ``fqn`` or ``fqn`` itself,
        None where it is not above. A class with one base has one way up, through that base: its chain is the
        base's with the base in front, sharing it, memoised per class (a breadth-first walk from each class of a
        chain of n cost n * n / 2 steps, and each its own list). From a class with several bases on, the walk is
        breadth-first. A loop, not recursion: chains deeper than the recursion limit."""
        if fqn == ancestor:
            return ()
        memo = self._paths
        pending: list[tuple[str, str]] = []
        met: set[str] = set()
        current = fqn
        chain: Chain | None
        while True:
            key = (current, ancestor)
            if key in memo:
                chain = memo[key]
                break
            if current in met:  # a cycle of single bases: the ancestor is not above any class in it
                chain = None
                break
            met.add(current)
            base = self._single_base(current)
            if base is None:
                found = self._breadth_first(current, ancestor)
                chain = None
                if found is not None:
                    chain = ()
                    for name in reversed(found):
                        chain = (name, chain)
                memo[key] = chain
                break
            if base == ancestor:
                chain = memo[key] = ()
                break
            pending.append((current, base))
            current = base
        for cls, base in reversed(pending):
            chain = None if chain is None else (base, chain)
            memo[(cls, ancestor)] = chain
        return chain

    def _single_base(self, cls: str) -> str | None:
        """The one base of the project class ``cls`` when it has exactly one, resolved; else None."""
        if cls not in self.classes:
            return None
        found = self._bases.get(cls)
        bases = found if found is not None else self.bases(cls)
        return bases[0][1] if len(bases) == 1 else None

    def _breadth_first(self, fqn: str, ancestor: str) -> list[str] | None:
        """``path_to`` from ``fqn`` by a breadth-first walk of the bases; None where ``ancestor`` is not above."""
        parents: dict[str, str] = {fqn: ""}
        todo = [fqn]
        while todo:
            following = []
            for cls in todo:
                for _, target in (self.bases(cls) if cls in self.classes else ()):
                    if target is None or target in parents:
                        continue
                    parents[target] = cls
                    if target == ancestor:
                        chain = []
                        while cls != fqn:
                            chain.append(cls)
                            cls = parents[cls]
                        return chain[::-1]
                    following.append(target)
            todo = following
        return None

    def is_interface(self, fqn: str) -> bool:
        """A class that lists Protocol itself among its bases declares an interface, not an implementation."""
        return any(target in PROTOCOL_NAMES for _, target in self.bases(fqn))

    def unresolved_bases(self, fqn: str) -> tuple[str, ...]:
        """Bases anywhere in the MRO that could bring in methods we cannot see. Memoised along the MRO the way
        ``_after`` is: a class's own, then those of the class its MRO's tail belongs to (``_jumps``)."""
        chain: list[tuple[str, list[str]]] = []
        current: str | None = fqn
        tail: tuple[str, ...] = ()
        while current is not None:
            if current in self._unresolved:
                tail = self._unresolved[current]
                break
            mro = self.mro(current)
            jump = self._jumps.get(current)
            chain.append((current, [b for cls in mro[:jump] for b in self._own_unresolved(cls)]))
            current = mro[jump] if jump is not None else None
        for cls, own in reversed(chain):
            tail = (*own, *tail) if own else tail
            if cls in self._mro:
                self._unresolved[cls] = tail
        return tail

    def _own_unresolved(self, cls: str) -> list[str]:
        """The bases of ``cls`` itself that could bring in methods we cannot see (none for an outside class)."""
        unknown = []
        for written, target in self.bases(cls) if cls in self.classes else ():
            if target is None:
                unknown.append(written)
            elif target not in self.classes and not self._is_known(target):
                unknown.append(target)
        return unknown

    def _is_known(self, external: str) -> bool:
        """An outside class whose members are known: a protocol root, or a well-known library base."""
        roots = self._roots_output | self._roots_observer | self._roots_pp | self._roots_forward
        return external in roots or external in PROTOCOL_NAMES or known_bases.members(external) is not None

    def lookup(self, fqn: str, name: str, seen: bool = False) -> Member | None:
        """The first definition of ``name`` along the MRO of the classes' final namespaces (``namespaces.py``),
        the way attribute lookup finds it. A known outside base (known_bases.py) provides its listed members,
        with no summary to show. Where code the analysis cannot follow touches a namespace the lookup passes,
        the answer is a member that is ``unknown``; with ``seen``, what the analysis sees instead (how a class
        is recognised does not wait for certainty: what is unknown is then what its role needs)."""
        key = (fqn, name, seen)
        if key not in self._looked_up:
            self._looked_up[key] = self._lookup(fqn, name, seen)
        return self._looked_up[key]

    def set_outside(self, fqn: str, name: str) -> bool:
        """Whether code outside the class statement of the project class ``fqn`` sets or deletes ``name`` on it
        (a store or ``del`` after it, ``setattr``, a decorator, a base's ``__init_subclass__``): what its body
        defines under that name is overruled, so a fix that writes the method into the body changes nothing."""
        return fqn in self.classes and (name in self.namespace(fqn).added or name in self._hooks(fqn).added)

    def _lookup(self, fqn: str, name: str, seen: bool) -> Member | None:
        if not seen:
            touch = self._namespaces.unattributed(name) or self._shadow_touch(fqn)
            if touch is not None:
                return Member(fqn, None, None, False, unknown=touch)
        found = self._step(fqn, fqn, name, seen)
        if found is not None:
            return found
        found = self._after(fqn, ("lookup", name, seen), lambda cls: self._step("", cls, name, seen))
        assert found is None or isinstance(found, Member)
        return found

    def _step(self, fqn: str, cls: str, name: str, seen: bool) -> Member | None:
        """``name`` where the lookup from ``fqn`` meets ``cls`` on its MRO (None: look further); "" for ``fqn``
        when ``cls`` is met from below, whichever subclass asks (all of them find the same there)."""
        if cls in self._roots_pp and (
            (name == TO_PP and cls in self.protocols.pp_output)
            or (name == FROM_PP and cls in self.protocols.pp_observer)
        ) and cls not in self.classes:
            return Member(cls, None, None, stub_of_protocol=True)
        summary = self.classes.get(cls)
        if summary is None:
            if name in (known_bases.members(cls) or ()):
                return Member(cls, None, None, stub_of_protocol=False)  # a known base provides it
            return None
        if (cls, name, seen) in self._holds_nothing:
            return None
        found = self._member(fqn, cls, summary, name, seen)
        if found is None:
            self._holds_nothing.add((cls, name, seen))
        return found

    def _member(self, fqn: str, cls: str, summary: ClassSummary, name: str, seen: bool) -> Member | None:
        """``name`` in the final namespace of the project class ``cls`` itself (None: look further along the
        MRO): what decorators and later assignments set, over what a base's ``__init_subclass__`` set, over
        the statement."""
        around = self._around.get(cls)
        if around is None:
            around = self._around[cls] = (self.namespace(cls), self._hooks(cls))
        namespace, hooked = around
        if not seen:
            touch = next(iter(namespace.unknown), None) or namespace.unknown_names.get(name) or \
                next(iter(hooked.unknown), None) or hooked.unknown_names.get(name)
            if touch is not None:
                return Member(cls, None, None, False, unknown=touch)
        added = namespace.added.get(name) or hooked.added.get(name)
        if added is not None:
            return None if added.deleted else Member(cls, added.method, added.assign, False, added.origin, added.site)
        module = self.class_module[cls]
        method = summary.method(name)
        if method is not None:
            stub = method.body_is_stub and self.is_interface(cls) and cls != fqn
            return Member(cls, method, None, stub_of_protocol=stub, site=self._site(cls))
        assign = summary.assign(name)
        if assign is None:
            return None
        function = self._namespaces.function(module, assign.value, summary.qualname.rpartition(".")[0]) \
            if assign.value != "none" else None
        if function is None:
            return Member(cls, None, assign, stub_of_protocol=False, site=self._site(cls))
        method = function[0].method
        if assign.binding:  # ``staticmethod(_pack)``: the function as that decorator would make it
            method = method.bound_as(assign.binding)
        return Member(cls, method, assign, False, site=function[1])

    def _hooks(self, cls: str) -> Namespace:
        """What a base's ``__init_subclass__`` did to ``cls`` as it was made."""
        found = self._hooked.get(cls)
        if found is None:
            first = self._after(cls, "__init_subclass__", self._has_init_subclass)  # the first along the MRO runs
            found = self._hooked[cls] = self._namespaces.hooks(cls, (first,) if isinstance(first, str) else ())
        return found

    def tail_at(self, fqn: str, ancestry: tuple[str, ...]) -> int | None:
        """Where the MRO ``ancestry`` of ``fqn`` (as ``mro`` gave it) goes on as the whole MRO of the class there
        (``_jumps``), so that a walk of it can stop where one from that class has gone on already; None when it
        does not, or when ``ancestry`` is not the memoised MRO (one a cycle cut)."""
        return self._jumps.get(fqn) if self._mro.get(fqn) is ancestry else None

    def first_along(self, fqn: str, key: object, step: Callable[[str], object]) -> object:
        """The first answer ``step`` gives (not None) along the MRO of ``fqn``, the class itself first; ``step``
        depends on the class it is given only, and ``key`` names it (memoised along the MRO: ``_after``)."""
        found = step(fqn)
        return found if found is not None else self._after(fqn, key, step)

    def _has_init_subclass(self, cls: str) -> str | None:
        summary = self.classes.get(cls)
        return cls if summary is not None and summary.method("__init_subclass__") is not None else None

    def _site(self, cls: str) -> Site:
        """Where the members of the class statement ``cls`` are written: its file, module, and enclosing scope."""
        site = self._sites.get(cls)
        if site is None:
            module = self.class_module[cls]
            site = self._sites[cls] = Site(self.modules[module].path, module,
                                           self.classes[cls].qualname.rpartition(".")[0])
        return site

    def defines(self, fqn: str, name: str) -> bool:
        """Whether the class has ``name``, as far as the analysis sees (what recognises a class)."""
        member = self.lookup(fqn, name, seen=True)
        return member is not None and not member.is_none

    def fits(self, fqn: str, call: HookCall) -> bool:
        """Whether the class has a method SGLang's call of that hook binds to, as the hook means it (see hooks.py),
        as far as the analysis sees. An assignment of anything but a project function it has read
        (``copy_to_host = make()``) shows no signature, so it does not fit."""
        member = self.lookup(fqn, call.name, seen=True)
        return member is not None and member.method is not None and call.fits(member.method)

    def dynamic_attributes(self, fqn: str) -> Member | None:
        """The project ``__getattr__`` (or ``__getattribute__``) along the MRO that may answer for a name the class's
        namespace lacks; None when there is none. A known base's (``torch.nn.Module.__getattr__``, which answers
        for registered parameters and submodules only) answers for no transport method."""
        for name in DYNAMIC_LOOKUP:
            member = self.lookup(fqn, name, seen=True)
            if member is not None and member.owner in self.classes and not member.is_none:
                return member
        return None

    def near_miss(self, fqn: str, name: str) -> tuple[str, MethodSummary] | None:
        """The first method along the MRO whose name is a likely misspelling of ``name``, with its owner: one
        its statement defines, or one that code around it adds from a function in the owner's own file (where a
        finding about it can point). Memoised along the MRO (``first_along``): inventory asks it of every class
        that lacks the method, each of a chain's walking the rest of the chain."""
        found = self.first_along(fqn, ("near_miss", name), lambda owner: self._near_miss_in(owner, name))
        return found if isinstance(found, tuple) else None

    def _near_miss_in(self, owner: str, name: str) -> tuple[str, MethodSummary] | None:
        """``near_miss`` in the class ``owner`` itself."""
        cls = self.classes.get(owner)
        if cls is None:
            return None
        path = self.modules[self.class_module[owner]].path
        added = [replace(a.method, name=a.name) for a in self.namespace(owner).added.values()
                 if a.method is not None and a.site.path == path and not a.deleted]
        for candidate in (*cls.methods, *added):
            if candidate.name != name and is_near_miss(candidate.name, name):
                return owner, candidate
        return None

    # -- classification --------------------------------------------------------------------
    def classified(self, fqn: str) -> ClassInfo:
        """A project class's roles and how they were recognised, its MRO and whether it is an interface;
        memoised. What only the floor above can add (pairing, routes, instances) is left at its default."""
        info = self._classified.get(fqn)
        if info is None:
            info = self._classified[fqn] = self._classify(fqn)
        return info

    def is_output_class(self, fqn: str) -> bool:
        """Whether ``fqn`` names a project class that is an output."""
        return fqn in self.classes and self.classified(fqn).is_output

    def _classify(self, fqn: str) -> ClassInfo:
        mro = self.mro(fqn)
        interface = self.is_interface(fqn)
        recognized: dict[str, str | Via] = {}
        output_root = self._first_root(fqn, self._roots_output)
        if output_root == COMPOSITE_OUTPUT and output_root in self.classes:
            output_root = None  # SGLang's own tree: its composite is recognised by what it defines, as before
        observer_root = self._first_root(fqn, self._roots_observer)
        if output_root is not None:
            recognized[OUTPUT] = _via("subclass of", output_root, self._path_chain(fqn, output_root), fqn)
        elif self.structural and self.fits(fqn, COPY_TO_HOST_CALL):
            recognized[OUTPUT] = self._structural_reason(fqn, (COPY_TO_HOST_CALL.name,))
        if observer_root is not None:
            recognized[OBSERVER] = _via("subclass of", observer_root, self._path_chain(fqn, observer_root), fqn)
        elif self.structural and self.fits(fqn, AFTER_SAMPLE_CALL) and any(
            self.defines(fqn, hook) for hook in OBSERVER_HOOKS
        ):
            hook = next(h for h in OBSERVER_HOOKS if self.defines(fqn, h))
            recognized[OBSERVER] = self._structural_reason(fqn, (AFTER_SAMPLE, hook))
        summary = self.classes[fqn]
        needed = [TO_PP] * (OUTPUT in recognized) + [FROM_PP] * (OBSERVER in recognized)
        return ClassInfo(
            fqn=fqn,
            module=self.class_module[fqn],
            path=self.modules[self.class_module[fqn]].path,
            summary=summary,
            ancestry=mro,
            unresolved_bases=self.unresolved_bases(fqn),
            is_interface=interface,
            roles=frozenset(recognized),
            recognized=Reasons(recognized),
            forward_observer=self._forward_reason(fqn, mro),
            unknown=self.unknowns(fqn, needed),
        )

    def _first_root(self, fqn: str, roots: frozenset[str]) -> str | None:
        """The first of ``roots`` along the MRO of ``fqn``, the class itself first (memoised along it: ``_after``)."""
        if fqn in roots:
            return fqn
        found = self._after(fqn, roots, lambda cls: cls if cls in roots else None)
        return found if isinstance(found, str) else None

    def unknowns(self, fqn: str, names: Iterable[str]) -> tuple[Touch, ...]:
        """What makes the class's own namespace unknown, and what makes each of ``names`` unknown on it (a touch
        of a base the lookup passes, or of the name anywhere)."""
        touches = [*self.namespace(fqn).unknown, *self._hooks(fqn).unknown]
        shadow = self._shadow_touch(fqn)
        if shadow is not None:
            touches.append(shadow)
        for name in names:
            member = self.lookup(fqn, name)
            if member is not None and member.unknown is not None and member.unknown not in touches:
                touches.append(member.unknown)
        return tuple(touches)

    def _forward_reason(self, fqn: str, mro: tuple[str, ...]) -> str | None:
        """How the class is a forward observer, or None. Not a role: forward observers never meet the PP helpers."""
        root = self._first_root(fqn, self._roots_forward)
        if root is not None:
            reason = _via("subclass of", root, self._path_chain(fqn, root), fqn)
            return reason.text() if isinstance(reason, Via) else reason  # a field of its own, not a Reasons
        if self.structural and self.fits(fqn, AFTER_FORWARD_CALL):
            return self._structural_reason(fqn, (AFTER_FORWARD_CALL.name,))
        return None

    def _structural_reason(self, fqn: str, names: tuple[str, ...]) -> str:
        """What the class defines itself and what it inherits, from whom: "structural: defines `after_sample`,
        inherits `is_active` from pkg.Base". The names keep their order within each group."""
        by_owner: dict[str, list[str]] = {}
        for name in names:
            member = self.lookup(fqn, name, seen=True)
            assert member is not None
            by_owner.setdefault(member.owner, []).append(f"`{name}` ({member.origin})" if member.origin
                                                          else f"`{name}`")
        parts = [f"defines {' and '.join(by_owner.pop(fqn))}"] if fqn in by_owner else []
        if by_owner:
            inherited = (f"{' and '.join(own)} from {owner}" for owner, own in by_owner.items())
            parts.append(f"inherits {', '.join(inherited)}")
        return "structural: " + ", ".join(parts)


class Below:
    """The classes of a list (``infos``, in its order) below each class: those whose MRO holds it after
    themselves, what ``ProjectIndex.subclasses`` answers. Listed by walking every class's MRO, that was
    n * n / 2 entries for a chain of n classes. Here each class is filed under the class its MRO's tail belongs
    to (``ProjectGraph._jumps``: its single base, mostly) and under the classes before that point only, so the
    classes below a class are those filed under it, and everything filed under them, transitively: each class
    is filed a few times, and a question costs what it answers."""

    def __init__(self, graph: ProjectGraph, infos: Iterable[ClassInfo]) -> None:
        self._order: dict[str, int] = {}
        self._tails: dict[str, list[str]] = {}  # class -> the classes whose MRO's tail is its MRO
        self._direct: dict[str, list[str]] = {}  # class -> the classes that hold it before their tail
        self._of: dict[str, tuple[str, ...]] = {}
        self._firsts: dict[str, tuple[str, ...]] = {}  # class -> _FIRST least names in its tail's tree (itself in)
        todo: list[tuple[str, tuple[str, ...]]] = []
        for info in infos:
            self._order.setdefault(info.fqn, len(self._order))
            todo.append((info.fqn, info.ancestry))
        filed = {fqn for fqn, _ in todo}
        while todo:
            fqn, ancestry = todo.pop()
            jump = graph._jumps.get(fqn) if graph._mro.get(fqn) is ancestry else None
            for cls in ancestry[1:jump]:
                self._direct.setdefault(cls, []).append(fqn)
            if jump is not None:
                tail = ancestry[jump]
                self._tails.setdefault(tail, []).append(fqn)
                if tail not in filed:  # not in the list, but what is below it may be
                    filed.add(tail)
                    todo.append((tail, graph._mro[tail]))

    def of(self, fqn: str) -> tuple[str, ...]:
        """The classes of the list that have ``fqn`` in their MRO after themselves, in the list's order."""
        found = self._of.get(fqn)
        if found is None:
            met: set[str] = set()
            todo = [*self._tails.get(fqn, ()), *self._direct.get(fqn, ())]
            while todo:
                cls = todo.pop()
                if cls not in met:
                    met.add(cls)
                    todo.extend(self._tails.get(cls, ()))
            order = self._order
            found = self._of[fqn] = tuple(sorted((c for c in met if c in order), key=order.__getitem__))
        return found

    def least(self, fqn: str) -> tuple[str, ...]:
        """The first four names, sorted, of ``of(fqn)`` (all of them where there are fewer): what tells whether a
        class has subclasses, names three and says whether there are more, without listing them all. Each class
        of a tree under ``fqn`` keeps its own tree's four least, made once from those of the trees under it."""
        names = set(self._direct.get(fqn, ()))  # a class filed here directly, and its tree
        parts = [self._first(cls) for cls in (*self._tails.get(fqn, ()), *names)]
        return tuple(sorted({n for part in parts for n in part})[:_FIRST])

    def _first(self, fqn: str) -> tuple[str, ...]:
        """The ``_FIRST`` least names of the list in the tree of ``fqn`` (itself, what is filed under it as its
        tail, and so on), each tree's made once from its children's; a loop, for trees deeper than the recursion
        limit."""
        stack = [(fqn, False)]
        while stack:
            cls, ready = stack.pop()
            if cls in self._firsts:
                continue
            children = self._tails.get(cls, ())
            if not ready:
                stack.append((cls, True))
                stack.extend((c, False) for c in children if c not in self._firsts)
                continue
            names = {n for c in children for n in self._firsts[c]}
            if cls in self._order:
                names.add(cls)
            self._firsts[cls] = tuple(sorted(names)[:_FIRST])
        return self._firsts[fqn]


_SHARED_STEPS = 32  # steps _shared_tail takes along the MROs' tails before it gives up (a plain merge then)
_FIRST = 4  # names Below.least keeps: three to show, and one to tell there are more


_SHADOWED = {  # by ``FileSummary.shadowed`` kind: why a class statement's name does not reach it
    "import": "its name `{name}` is bound by an import at line {line}, which the rest of the project gets instead",
    "alias": "its name `{name}` is bound to another class at line {line}, which the rest of the project gets instead",
    "unknown": "its name `{name}` is bound again at line {line}, so which object the project gets by that name is "
               "known only at run time",
}


def _shadow(summary: FileSummary, name: str) -> tuple[str, str, str, int] | None:
    """The module's ``shadowed`` entry for the class name ``name``, or None (nearly every module has none)."""
    for entry in summary.shadowed:
        if entry[0] == name:
            return entry
    return None


def _enclosing(scope: str) -> list[str]:
    """``a.<locals>.B`` -> ["a.<locals>.B", "a.<locals>"]: inner scopes first (module level excluded)."""
    if not scope:
        return []
    parts = scope.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1) if parts[i - 1] != "" and parts[:i]]


def _join(base: str, rest: str) -> str:
    return f"{base}.{rest}" if rest else base


def _via(prefix: str, root: str, chain: Chain | None, fqn: str) -> str | Via:
    if root == fqn:
        return "the protocol root itself"
    return Via(prefix, root, chain) if chain else f"{prefix} {root}"  # a path: made into text only if read


MAX_RESOLUTION_DEPTH = 100
"""The most names one resolution follows (an alias of an alias, a re-export of a re-export, a star import of a star
import): a chain a repository holds of a thousand such steps exceeded Python's recursion limit, an internal error
that ended the run; a name further than this resolves to nothing, as one the analysis cannot follow."""


def _c3_merge(sequences: list[list[str]]) -> list[str] | None:
    """C3's merge, None where no order is consistent. Each sequence is read from a cursor, and a count says how
    many sequences hold a name past their cursor, so a step costs the number of sequences: rebuilt at every step,
    with a scan of every tail for each candidate, a chain of 800 classes took 8 seconds to linearise."""
    pending = [s for s in sequences if s]
    cursors = [0] * len(pending)
    in_tails: dict[str, int] = {}
    for sequence in pending:
        for name in sequence[1:]:
            in_tails[name] = in_tails.get(name, 0) + 1
    result: list[str] = []
    while True:
        active = [i for i, sequence in enumerate(pending) if cursors[i] < len(sequence)]
        if not active:
            return result
        head = next((pending[i][cursors[i]] for i in active if not in_tails.get(pending[i][cursors[i]])), None)
        if head is None:
            return None
        result.append(head)
        for i in active:  # a head in no tail can stand only at heads: each one moves its sequence on
            sequence = pending[i]
            if sequence[cursors[i]] == head:
                cursors[i] += 1
                if cursors[i] < len(sequence):
                    in_tails[sequence[cursors[i]]] -= 1


_BUILTINS = frozenset(name for name, value in vars(builtins).items() if isinstance(value, type) and name[0] != "_")
