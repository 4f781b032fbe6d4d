"""The index's answers along deep and tangled hierarchies: memoised along the MRO (a class's answer reused by every
class whose MRO's tail is its MRO), they must be what a walk of each class's own MRO gives, whichever class is
asked first; and a chain deeper than Python's recursion limit must be answered, not crash.

The reference for each answer is a fresh index asked about that class alone, so nothing another question
memoised can leak into it; lookups are also checked against the interpreter's own attribute lookup."""

from __future__ import annotations

import random
import sys

import pytest

from ppaux_lint.contract.names import is_near_miss
from ppaux_lint.facts.summarize.source import summarize_source
from ppaux_lint.index import instances
from ppaux_lint.index.model import ClassInfo
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.project.config import Config
from ppaux_lint.rules import base as base_rules
from ppaux_lint.rules import ppa012_non_tensor_pp_value as ppa012
from ppaux_lint.rules.base import CheckContext

OUTPUT = "sglang.srt.managers.auxiliary_output.DeviceAuxiliaryOutput"
OPENING = "from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n\n"
NAMES = ("to_pp_tensors", "copy_to_host", "helper")
NEAR = ("to_pp_tensor", "from_pp_tensor")  # likely misspellings of the transport methods


def _index(source: str) -> ProjectIndex:
    return ProjectIndex([summarize_source(source.encode(), "/p/m.py", "m", False)], Config().protocols)


def _random_source(seed: int, size: int = 14) -> tuple[str, dict[str, type]]:
    """Classes ``C0``...: each with up to three earlier classes (or the output base) as bases, and some of
    ``NAMES`` defined, kept where Python accepts the order; with the namespace Python made of them."""
    rng = random.Random(seed)
    statements: list[str] = []
    namespace: dict[str, type] = {"DeviceAuxiliaryOutput": type("DeviceAuxiliaryOutput", (), {})}
    namespace.update((f"Mystery{k}", type(f"Mystery{k}", (), {})) for k in range(2))  # not in the source: unresolved
    for i in range(size):
        pool = sorted(n for n in namespace if n.startswith("C")) + ["DeviceAuxiliaryOutput"] * (i % 4 == 0) \
            + [f"Mystery{i % 2}"] * (i % 5 == 2)
        bases = rng.sample(pool, min(len(pool), rng.choice((0, 1, 1, 1, 2, 2, 3))))
        body = "".join(f"    def {name}(self, copy_tensor):\n        return {{}}\n"
                       for name in (*NAMES, *NEAR) if rng.random() < 0.2) or "    pass\n"
        statement = f"class C{i}({', '.join(bases)}):\n{body}"
        try:
            exec(statement, namespace)  # the test's own generated class statements
        except TypeError:  # no consistent order: Python refuses the class, so the test leaves it out
            continue
        statements.append(statement)
    return OPENING + "\n".join(statements), namespace


def _owner(cls: type, name: str) -> str | None:
    return next((f"m.{c.__name__}" for c in cls.__mro__ if name in vars(c)), None)


def _answers(index: ProjectIndex, fqn: str) -> tuple:
    members = tuple((m.owner, m.stub_of_protocol) if (m := index.lookup(fqn, name)) else None for name in NAMES)
    info = index.classified(fqn)
    return (members, index.mro(fqn), index.unresolved_bases(fqn), dict(info.recognized), info.forward_observer,
            tuple(index.path_to(fqn, c) for c in index.mro(fqn)))


def _unresolved(index: ProjectIndex, fqn: str) -> tuple[str, ...]:
    """Each class's unknown bases along the MRO, walked whole."""
    return tuple(written if target is None else target for cls in index.mro(fqn) if cls in index.classes
                 for written, target in index.bases(cls) if target is None or target.startswith("m.Mystery")
                 or (target not in index.classes and target != OUTPUT))


def _near_miss(index: ProjectIndex, fqn: str, name: str) -> tuple[str, str] | None:
    """The first likely misspelling of ``name`` along the MRO, walked whole."""
    return next(((cls, m.name) for cls in index.mro(fqn) if cls in index.classes
                 for m in index.classes[cls].methods if m.name != name and is_near_miss(m.name, name)), None)


@pytest.mark.parametrize("seed", range(30))
def test_answers_asked_in_any_order_are_those_of_a_fresh_index(seed: int) -> None:
    source, namespace = _random_source(seed)
    classes = [f"m.{n}" for n, v in namespace.items() if isinstance(v, type) and n.startswith("C")]
    random.Random(seed).shuffle(classes)
    shared = _index(source)
    for fqn in classes:
        assert _answers(shared, fqn) == _answers(_index(source), fqn), fqn
        assert shared.unresolved_bases(fqn) == _unresolved(shared, fqn), fqn
        for name in ("to_pp_tensors", "from_pp_tensors"):
            found = shared.near_miss(fqn, name)
            assert ((found[0], found[1].name) if found else None) == _near_miss(shared, fqn, name), (fqn, name)
        for name in NAMES:
            member = shared.lookup(fqn, name)
            assert (member.owner if member else None) == _owner(namespace[fqn[2:]], name), (fqn, name)


@pytest.mark.parametrize("seed", range(10))
def test_a_base_only_names_its_least_subclasses(seed: int) -> None:
    source, _ = _random_source(seed, size=30)
    index = _index(source)
    constructions = instances.Constructions(index.summaries)
    judged = [info for info in index.infos().values() if info.roles and not info.is_interface]
    assert any(info.not_instantiated.endswith("and never constructs it") for info in judged)
    for info in judged:
        assert info.not_instantiated == instances.not_instantiated(index, info, index.subclasses(info.fqn),
                                                                   constructions), info.fqn


def test_unresolved_bases_gather_along_the_whole_chain() -> None:
    source = OPENING + "class C0(DeviceAuxiliaryOutput, Mystery0):\n    pass\n" + "".join(
        f"class C{i}(C{i - 1}, Mystery{i}):\n    pass\n" for i in range(1, 6))
    index = _index(source)
    assert index.unresolved_bases("m.C2") == ("Mystery2", "Mystery1", "Mystery0")  # memoised below C5's
    assert index.unresolved_bases("m.C5") == tuple(f"Mystery{i}" for i in range(5, -1, -1))


def test_a_protocols_stub_is_a_stub_to_its_subclasses_only() -> None:
    source = "from typing import Protocol\n\n" + (
        "class Iface(Protocol):\n    def helper(self):\n        ...\n"
        "class Impl(Iface):\n    pass\n"
        "class Leaf(Impl):\n    pass\n")
    for order in (("m.Iface", "m.Leaf", "m.Impl"), ("m.Leaf", "m.Impl", "m.Iface")):
        index = _index(source)
        stubs = {fqn: index.lookup(fqn, "helper").stub_of_protocol for fqn in order}
        assert stubs == {"m.Iface": False, "m.Impl": True, "m.Leaf": True}, order


def test_a_method_midway_up_a_chain_is_found_below_it_and_not_above() -> None:
    source = OPENING + "class C0(DeviceAuxiliaryOutput):\n    pass\n" + "".join(
        f"class C{i}(C{i - 1}):\n" + ("    def to_pp_tensors(self):\n        return {}\n" if i == 50 else "    pass\n")
        for i in range(1, 100))
    index = _index(source)
    for i in (99, 0, 49, 50, 51, 75, 25):  # the top first, the root, then around the middle
        member = index.lookup(f"m.C{i}", "to_pp_tensors")
        assert (member.owner if member else None) == ("m.C50" if i >= 50 else None), i


def test_a_diamond_finds_the_right_sides_method_before_the_shared_base() -> None:
    source = OPENING + (
        "class B(DeviceAuxiliaryOutput):\n    def to_pp_tensors(self):\n        return {}\n"
        "class L(B):\n    pass\n"
        "class R(B):\n    def to_pp_tensors(self):\n        return {'r': 1}\n"
        "class D(L, R):\n    pass\n"
        "class E(D):\n    pass\n")
    index = _index(source)
    assert index.lookup("m.L", "to_pp_tensors").owner == "m.B"  # asked first: L's answer must not become D's
    assert index.lookup("m.E", "to_pp_tensors").owner == "m.R"
    assert index.lookup("m.D", "to_pp_tensors").owner == "m.R"
    assert index.mro("m.E") == ("m.E", "m.D", "m.L", "m.R", "m.B", OUTPUT)
    assert index.path_to("m.E", OUTPUT) == ["m.D", "m.L", "m.B"]


def test_a_cycle_of_bases_gives_each_class_the_answer_it_gives_alone() -> None:
    source = OPENING + (
        "class A(B):\n    pass\n"
        "class B(C):\n    def helper(self):\n        pass\n"
        "class C(A, DeviceAuxiliaryOutput):\n    pass\n"
        "class D(C):\n    pass\n")
    shared = _index(source)
    for fqn in ("m.D", "m.A", "m.C", "m.B"):
        assert _answers(shared, fqn) == _answers(_index(source), fqn), fqn


def test_classes_below_a_class_are_those_whose_mro_holds_it() -> None:
    source, _ = _random_source(7, size=30)
    index = _index(source)
    infos = index.infos()
    for fqn in [*infos, OUTPUT]:
        assert index.subclasses(fqn) == tuple(f for f, info in infos.items() if fqn in info.ancestry[1:]), fqn


def test_a_chain_deeper_than_the_recursion_limit_is_judged_whole() -> None:
    depth = sys.getrecursionlimit() + 500
    source = OPENING + "class C0(DeviceAuxiliaryOutput):\n    pass\n" + "".join(
        f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, depth))
    index = _index(source)
    top = f"m.C{depth - 1}"
    assert len(index.mro(top)) == depth + 1  # the top first: nothing below it is linearised yet
    assert index.lookup(top, "to_pp_tensors") is None
    info = index.info(top)
    assert info.ancestry == (*(f"m.C{i}" for i in range(depth - 1, -1, -1)), OUTPUT)
    assert info.is_output and info.unresolved_bases == ()
    assert info.recognized["output"] == f"subclass of {OUTPUT} via " + " -> ".join(
        f"m.C{i}" for i in range(depth - 2, -1, -1))
    assert len(index.subclasses("m.C0")) == depth - 1
    assert info.not_instantiated == "" and index.info("m.C0").not_instantiated.startswith("a base only")


def _fielded_source(seed: int, size: int = 24) -> str:
    """Outputs in a random hierarchy, every one constructed: some declare ``ids`` (a field, an ``__init__`` store,
    a method of that name), some store to it in a method, some define ``to_pp_tensors`` (calling up or not)."""
    rng = random.Random(seed)
    lines = [OPENING, "import torch\n\n"]
    names: list[str] = []
    namespace: dict[str, type] = {}
    for i in range(size):
        bases = rng.sample(names, min(len(names), rng.choice((1, 1, 1, 2)))) if names else ["DeviceAuxiliaryOutput"]
        try:
            namespace[f"C{i}"] = type(f"C{i}", tuple(namespace[b] for b in bases if b in namespace) or (object,), {})
        except TypeError:  # no consistent order
            continue
        body = []
        kind = rng.random()
        if kind < 0.15:
            body.append("    ids: list[int]\n")
        elif kind < 0.25:
            body.append("    def __init__(self, ids: list[int]):\n        self.ids = ids\n")
        elif kind < 0.3:
            body.append("    def ids(self):\n        return 1\n")
        if rng.random() < 0.15:
            body.append("    def refresh(self):\n        self.ids = torch.zeros(1)\n")
        if rng.random() < 0.2:
            call = rng.choice(("{**super().to_pp_tensors(), 'x': self.x}", "{'ids': self.ids}",
                               "super().to_pp_tensors()"))
            body.append(f"    def to_pp_tensors(self):\n        return {call}\n")
        lines.append(f"class C{i}({', '.join(bases)}):\n" + ("".join(body) or "    pass\n") + "\n\n")
        names.append(f"C{i}")
    lines.append("def make():\n    return [" + ", ".join(f"{n}()" for n in names) + "]\n")
    return "".join(lines)


def _declared_walked(context: CheckContext, info: ClassInfo, attribute: str) -> str:
    """``ppa012._declared`` as a walk of the whole MRO, the way it was written before it was memoised."""
    if not attribute or info.unresolved_bases:
        return ""
    stored = False
    for owner in info.ancestry:
        cls = context.index.classes.get(owner)
        if cls is None:
            continue
        stored = stored or attribute in cls.stores
        declared = next((f for f in cls.fields if f.name == attribute), None)
        if declared is not None:
            return "" if stored else ppa012._described(context, info.fqn, owner, declared.annotation,
                                                       f"field `{attribute}: {{}}`")
        if cls.method(attribute) is not None or cls.assign(attribute) is not None:
            return ""
        initialised = next((f for f in cls.init_fields if f.name == attribute), None)
        if initialised is not None:
            return ppa012._described(context, info.fqn, owner, initialised.annotation,
                                     f"`__init__` stores `self.{attribute}` as `{{}}`")
    return ""


def _runs_walked(context: CheckContext) -> dict[str, base_rules.Run]:
    """``CheckContext._runs`` with each class's walk whole, the way it was written before it was memoised."""
    found: dict[str, set[base_rules.Run]] = {}
    passed: set[str] = set()
    for info in context.sending():
        run = base_rules._own_run(info)
        for position, cls in enumerate(info.ancestry):
            found.setdefault(cls, set()).add(run)
            run = context._above(cls, run)
            if run is None:
                passed.update(info.ancestry[position + 1:])
                break
    for info in context.index.iter_infos():
        if info.fqn not in found and info.fqn not in passed and not info.is_interface and info.not_instantiated:
            found[info.fqn] = {base_rules.Run(alone=True)}
    return {cls: next(iter(runs)) if len(runs) == 1 else base_rules.Run(
        any(r.alone for r in runs), base_rules._joined(r.merged_into for r in runs),
        base_rules._joined(r.renamed_by for r in runs)) for cls, runs in found.items()}


@pytest.mark.parametrize("seed", range(25))
def test_what_classes_declare_and_how_their_methods_run_are_those_of_whole_walks(seed: int) -> None:
    source = _fielded_source(seed)
    index = _index(source)
    context = CheckContext(index=index, summaries=tuple(index.summaries))
    infos = list(index.infos().values())
    random.Random(seed).shuffle(infos)
    for info in infos:
        assert ppa012._declared(context, info, "ids") == _declared_walked(context, info, "ids"), info.fqn
    assert context._runs == _runs_walked(context)


def test_a_stack_of_diamonds_has_pythons_mro_asked_from_the_top() -> None:
    """Each level's sides share the level below, whose MRO every side's ends with: the merge of what comes before
    it, then it (``_merged_before``). Mixins that a side lists again, and one listed in the shared part, too."""
    lines = ["class D0:\n    pass\n", "class M:\n    pass\n"]
    for i in range(1, 120):
        mixin = ", M" if i % 7 == 0 else ""
        lines.append(f"class L{i}(D{i - 1}{mixin}):\n    pass\nclass R{i}(D{i - 1}):\n    pass\n"
                     f"class D{i}(L{i}, R{i}):\n    pass\n")
    source = "".join(lines)
    namespace: dict[str, type] = {}
    exec(source, namespace)  # the test's own class statements
    index = _index(source)
    for name in ("D119", "R60", "D60", "L119", "D1"):
        assert index.mro(f"m.{name}") == tuple(f"m.{c.__name__}" for c in namespace[name].__mro__ if c is not object)
