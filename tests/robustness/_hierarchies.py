"""Random class hierarchies spread over the modules of a package, and an oracle for what ppaux-lint must report.

A ``Structure`` is drawn by hypothesis: classes C0..Cn-1, each in one module,
each listing bases among earlier classes (so the graph is a DAG) and among
external roots (SGLang's Protocols, known bases such as ``abc.ABC`` and
``typing.Generic[T]``, and an unknown third-party base), each defining or not
the methods that make a class an output or an observer, and constructed or not
at module level. Every reference to a class of another module goes through a
randomly chosen import style.

The oracle never reads the generated files and never imports them: it builds
stand-in classes in memory with ``type()`` from the structure, lets Python
compute the MRO (skipping structures Python itself rejects), and applies the
documented rules to that MRO.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

TO_PP, FROM_PP = "to_pp_tensors", "from_pp_tensors"
METHODS = ("copy_to_host", "after_sample", "is_active", "before_grammar", TO_PP, FROM_PP)
# The hooks classes are recognised by take what SGLang passes them (hooks.py); the rest take anything.
PARAMS = {"copy_to_host": "self, copy_tensor", "after_sample": "self, state, token_ids"}

# key -> (module, name) of the external bases a class may list
ROOTS = {
    "DAO": ("sglang.srt.managers.auxiliary_output", "DeviceAuxiliaryOutput"),
    "OLD_DAO": ("sglang.srt.sampling.sampling_observer", "DeviceAuxiliaryOutput"),
    "SO": ("sglang.srt.sampling.sampling_observer", "SamplingObserver"),
    "PPOUT": ("sglang.srt.sampling.sampling_observer_pp", "PipelineParallelAuxiliaryOutput"),
    "PPOBS": ("sglang.srt.sampling.sampling_observer_pp", "PipelineParallelSamplingObserver"),
    "ABC": ("abc", "ABC"),
    "GEN": ("typing", "Generic"),
    "EXT": ("thirdparty.plugins", "PluginBase"),  # unknown: it may define anything
}
OUTPUT_ROOTS, OBSERVER_ROOTS = {"DAO", "OLD_DAO"}, {"SO"}
CLASS_STYLES = ("from", "from_alias", "from_abs", "module", "abs_alias", "abs_dotted", "reexport", "assign", "star")
ROOT_STYLES = ("from", "from_alias", "module", "dotted", "try_fallback", "via_package")


@dataclass
class ClassSpec:
    index: int
    module: int
    placement: str  # "top", "nested" (in holder class H<i>), "function" (in def f<i>)
    protocol: bool
    bases: list[tuple[str, object, str]]  # ("cls", j, style) or ("root", key, style)
    members: dict[str, str]  # method name -> "method" | "stubbody" | "stub" | "none" | "helper"
    decorated: bool = False
    constructed: bool = False  # a module-level ``SAMPLE_<i> = C<i>()`` follows the class
    name: str = ""  # C<i> unless drawn (``structures(extending=True)``)

    def __post_init__(self) -> None:
        self.name = self.name or f"C{self.index}"


@dataclass
class Structure:
    modules: list[str]  # dotted names, e.g. "pkg.m0", "pkg.sub.m1"
    classes: list[ClassSpec]
    src_layout: bool
    init_all: bool  # pkg/__init__.py declares __all__
    files: dict[str, str] = field(default_factory=dict)

    def symbol(self, spec: ClassSpec) -> str:
        module = self.modules[spec.module]
        if spec.placement == "nested":
            return f"{module}.H{spec.index}.{spec.name}"
        if spec.placement == "function":
            return f"{module}.f{spec.index}.<locals>.{spec.name}"
        return f"{module}.{spec.name}"

    def used_as_value(self, spec: ClassSpec) -> bool:
        """Whether the project may construct the class, as ``summarize.uses`` judges it: the name ``C<i>`` is
        written as a value somewhere. Its module-level construction, the ``return C<i>`` of the function that
        holds it, or an ``assign``-style reference (``Alias = C<i>``; for a nested class that binds ``H<i>``,
        and ``C<i>`` itself stays in base lists only)."""
        assigned = spec.placement == "top" and any(
            kind == "cls" and target == spec.index and style == "assign"
            for other in self.classes for kind, target, style in other.bases)
        return spec.constructed or spec.placement == "function" or assigned


# Pieces of class names that extend each other (TopK, TopKMasked, MaskedTopK, L1, L10, ...): the prefilter searches
# for names as substrings, so a name that holds another is where its shortcuts must still be exact.
NAME_PIECES = ("TopK", "Masked", "K", "L", "1", "0")


def _extending_name(draw, parents: list[ClassSpec], used: set[str]) -> str:
    """A new class name that is its latest base's name, if it has one, with pieces added before or after it: a chain
    of subclasses whose names extend each other."""
    name = max(parents, key=lambda p: p.index).name if parents else ""
    while not name.isidentifier() or name in used:
        piece = draw(st.sampled_from(NAME_PIECES))
        name = name + piece if draw(st.booleans()) else piece + name
    return name


@st.composite
def structures(draw, max_classes: int = 7, extending: bool = False) -> Structure:
    """With ``extending``, class names extend each other (``_extending_name``) instead of being C0, C1, ..."""
    n_modules = draw(st.integers(1, 4))
    modules = [f"pkg.sub.m{k}" if k and draw(st.booleans()) else f"pkg.m{k}" for k in range(n_modules)]
    classes: list[ClassSpec] = []
    for i in range(draw(st.integers(1, max_classes))):
        protocol = draw(st.integers(0, 5)) == 0
        placement = "top" if protocol else draw(st.sampled_from(["top", "top", "top", "nested", "function"]))
        usable = [c for c in classes if c.placement != "function" and (c.protocol or not protocol)]
        parents = draw(st.lists(st.sampled_from(usable), unique_by=lambda c: c.index, max_size=3)) if usable else []
        if protocol:
            roots = ["PROTO"]
        else:
            roots = draw(st.lists(st.sampled_from(sorted(ROOTS)), unique=True, max_size=2))
        # Subclasses before their bases and Generic last is what Python accepts; a shuffle, now and then,
        # probes orders it may reject (those structures are skipped) or accept in surprising ways.
        entries = [("cls", c.index) for c in sorted(parents, key=lambda c: -c.index)]
        entries += [("root", r) for r in sorted(roots, key=lambda r: r == "GEN")]
        if len(entries) > 1 and draw(st.integers(0, 3)) == 0:
            entries = draw(st.permutations(entries))
        bases = []
        for kind, target in entries:
            if kind == "root":
                style = "from" if target == "PROTO" else draw(st.sampled_from(ROOT_STYLES))
            else:
                style = draw(st.sampled_from(CLASS_STYLES))  # "local" instead when the modules turn out equal
            bases.append((kind, target, style))
        kinds = ["stub", "none"] if protocol else ["method", "stubbody", "none", "helper"]
        members = {}
        for name in METHODS:
            choice = draw(st.sampled_from([None, None, *kinds]))
            if choice is not None:
                members[name] = choice
        name = _extending_name(draw, parents, {c.name for c in classes}) if extending else ""
        classes.append(ClassSpec(i, 0, placement, protocol, bases, members, decorated=draw(st.booleans()),
                                 constructed=not protocol and draw(st.booleans()), name=name))
    return _placed(draw, modules, classes)


@st.composite
def chains(draw, max_depth: int = 30) -> Structure:
    """One line of subclasses under ``DeviceAuxiliaryOutput`` whose names extend each other (``TopK``,
    ``TopKMasked``, ``LTopKMasked``, ...), spread over modules: the deep hierarchy that ``structures`` draws
    too rarely to find where the prefilter's fixpoint stops early. Only the root defines ``copy_to_host``."""
    modules = [f"pkg.m{k}" for k in range(draw(st.integers(1, 4)))]
    classes: list[ClassSpec] = []
    for i in range(draw(st.integers(2, max_depth))):
        bases = ([("cls", i - 1, draw(st.sampled_from(CLASS_STYLES)))] if classes
                 else [("root", "DAO", draw(st.sampled_from(ROOT_STYLES)))])
        classes.append(ClassSpec(i, 0, "top", False, bases, {} if classes else {"copy_to_host": "method"},
                                 constructed=draw(st.booleans()),
                                 name=_extending_name(draw, classes[-1:], {c.name for c in classes})))
    return _placed(draw, modules, classes)


def _placed(draw, modules: list[str], classes: list[ClassSpec]) -> Structure:
    """The structure of ``classes`` spread over ``modules``, rendered."""
    for spec in classes:
        spec.module = draw(st.integers(0, len(modules) - 1))
    for spec in classes:  # a base defined in the same module is named directly
        spec.bases = [(kind, target, "local" if kind == "cls" and classes[target].module == spec.module else style)
                      for kind, target, style in spec.bases]
    structure = Structure(modules, classes, draw(st.booleans()), draw(st.booleans()))
    structure.files = render(structure)
    return structure


# -- rendering ---------------------------------------------------------------------------------------

def _package(module: str) -> str:
    return module.rpartition(".")[0]


def _relative(from_module: str, to_package: str) -> str:
    """The relative-import prefix naming ``to_package`` from inside ``from_module``'s package."""
    here = _package(from_module).split(".")
    there = to_package.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    dots = "." * (len(here) - common + 1)
    rest = ".".join(there[common:])
    return dots + rest


class _Module:
    def __init__(self, name: str) -> None:
        self.name = name
        self.star: list[str] = []
        self.imports: list[str] = []
        self.after_imports: list[str] = []
        self.body: list[str] = []

    def add(self, line: str) -> None:
        if line not in self.imports:
            self.imports.append(line)

    def text(self) -> str:
        parts = [*self.star, *self.imports, *self.after_imports, "", *self.body]
        return "\n".join(parts) + "\n"


def render(structure: Structure) -> dict[str, str]:
    modules = {name: _Module(name) for name in structure.modules}
    init_lines: list[str] = []
    sub_init_lines: list[str] = []
    exported: list[str] = []

    def top_name(spec: ClassSpec) -> str:  # the module-level name that reaches the class
        return f"H{spec.index}" if spec.placement == "nested" else spec.name

    def inner(spec: ClassSpec) -> str:
        return f".{spec.name}" if spec.placement == "nested" else ""

    def class_ref(user: _Module, spec: ClassSpec, style: str, ref_id: str) -> str:
        target_module = structure.modules[spec.module]
        head, tail = top_name(spec), inner(spec)
        short = target_module.rpartition(".")[2]
        if style == "local":
            return head + tail
        if style == "from":
            package = _relative(user.name, _package(target_module))
            user.add(f"from {package}{'' if package.endswith('.') else '.'}{short} import {head}")
            return head + tail
        if style == "from_alias":
            alias = f"Al_{ref_id}"
            user.add(f"from {target_module} import {head} as {alias}")
            return alias + tail
        if style == "from_abs":
            user.add(f"from {target_module} import {head}")
            return head + tail
        if style == "module":
            user.add(f"from {_relative(user.name, _package(target_module))} import {short}")
            return f"{short}.{head}{tail}"
        if style == "abs_alias":
            alias = f"mod_{ref_id}"
            user.add(f"import {target_module} as {alias}")
            return f"{alias}.{head}{tail}"
        if style == "abs_dotted":
            user.add(f"import {target_module}")
            return f"{target_module}.{head}{tail}"
        if style == "reexport":
            if _package(target_module) == "pkg.sub":
                line = f"from .{short} import {head}"
                if line not in sub_init_lines:
                    sub_init_lines.append(line)
                line = f"from .sub import {head}"
            else:
                line = f"from .{short} import {head}"
            if line not in init_lines:
                init_lines.append(line)
                exported.append(head)
            user.add(f"from pkg import {head}")
            return head + tail
        if style == "assign":
            user.add(f"from {target_module} import {head}")
            alias = f"Alias_{ref_id}"
            user.after_imports.append(f"{alias} = {head}")
            return alias + tail
        if style == "star":
            line = f"from {target_module} import *"
            if line not in user.star:
                user.star.append(line)
            return head + tail
        raise AssertionError(style)

    def root_ref(user: _Module, key: str, style: str, ref_id: str) -> str:
        if key == "PROTO":
            user.add("from typing import Protocol")
            return "Protocol"
        module, name = ROOTS[key]
        if key == "GEN":
            user.add("from typing import Generic, TypeVar")
            if "T = TypeVar('T')" not in user.after_imports:
                user.after_imports.append("T = TypeVar('T')")
            return "Generic[T]"
        if style == "from" and key not in ("DAO", "OLD_DAO"):  # the two DeviceAuxiliaryOutputs share a name
            user.add(f"from {module} import {name}")
            return name
        if style in ("from", "from_alias"):
            alias = f"R_{key}"
            user.add(f"from {module} import {name} as {alias}")
            return alias
        if style == "module":
            alias = f"rm_{key}"
            user.add(f"import {module} as {alias}")
            return f"{alias}.{name}"
        if style == "dotted":
            user.add(f"import {module}")
            return f"{module}.{name}"
        if style == "try_fallback":
            alias = f"Try_{key}"
            fallback = "raise" if key not in ("DAO", "OLD_DAO") else (
                f"from {ROOTS['OLD_DAO'][0] if key == 'DAO' else ROOTS['DAO'][0]} import DeviceAuxiliaryOutput as {alias}")
            user.add(f"try:\n    from {module} import {name} as {alias}\nexcept ImportError:\n    {fallback}")
            return alias
        if style == "via_package":
            line = f"from {module} import {name} as Pkg_{key}"
            if line not in init_lines:
                init_lines.append(line)
                exported.append(f"Pkg_{key}")
            user.add(f"from pkg import Pkg_{key}")
            return f"Pkg_{key}"
        raise AssertionError(style)

    for spec in structure.classes:
        user = modules[structure.modules[spec.module]]
        refs = []
        for position, (kind, target, style) in enumerate(spec.bases):
            ref_id = f"{spec.index}_{position}"
            if kind == "cls":
                refs.append(class_ref(user, structure.classes[target], style, ref_id))
            else:
                refs.append(root_ref(user, target, style, ref_id))
        body = []
        for name, kind in spec.members.items():
            params = PARAMS.get(name, "self, *args")
            if kind == "stub":
                body.append(f"def {name}({params}):\n    ...")
            elif kind == "stubbody":
                body.append(f"def {name}({params}):\n    pass")
            elif kind == "method":
                # what after_sample returns is invisible to the inference (a parameter): it may be an output
                value = "{}" if name == TO_PP else "token_ids" if name == "after_sample" else "None"
                decorator = "@classmethod\n" if name == FROM_PP else ""
                body.append(f"{decorator}def {name}({params}):\n    return {value}")
            elif kind == "none":
                body.append(f"{name} = None")
            elif kind == "helper":
                helper = f"_helper_{spec.index}_{name}"
                user.body.append(f"def {helper}(self, *args):\n    return None\n")
                body.append(f"{name} = {helper}")
        lines = []
        if spec.decorated and not spec.protocol:
            user.add("import dataclasses")
            lines.append("@dataclasses.dataclass")
        lines.append(f"class {spec.name}({', '.join(refs)}):" if refs else f"class {spec.name}:")
        lines.extend("    " + line for chunk in (body or ["pass"]) for line in chunk.split("\n"))
        if spec.placement == "nested":
            lines = [f"class H{spec.index}:"] + ["    " + line for line in lines]
        elif spec.placement == "function":
            lines = [f"def f{spec.index}():"] + ["    " + line for line in lines] + [f"    return {spec.name}"]
        user.body.append("\n".join(lines) + "\n")
        if spec.constructed and spec.placement != "function":
            user.body.append(f"SAMPLE_{spec.index} = {top_name(spec)}{inner(spec)}()\n")

    prefix = "src/" if structure.src_layout else ""
    files = {f"{prefix}{name.replace('.', '/')}.py": module.text() for name, module in modules.items()}
    init = init_lines + ([f"__all__ = {sorted(set(exported))!r}"] if structure.init_all and exported else [])
    files[f"{prefix}pkg/__init__.py"] = "\n".join(init) + "\n"
    files[f"{prefix}pkg/sub/__init__.py"] = "\n".join(sub_init_lines) + "\n"
    return files


# -- the oracle --------------------------------------------------------------------------------------

def oracle(structure: Structure) -> set[tuple[str, str]] | None:
    """{(symbol, code)} for PPA001, PPA002 and PPA018, or None when Python would reject the hierarchy.

    Only a class that can have an instance is judged (``instances.py``): an output that the project subclasses
    and never uses as a value is a base only, judged through its subclasses. And an observer whose
    ``after_sample`` never returns an output (the Protocol's stub, ``pass``, ``= None``, or none at all with
    every base known) gets nothing about ``from_pp_tensors``: neither PPA002 nor PPA018."""
    stand_ins = {key: type(f"Ext_{key}", (), {}) for key in [*ROOTS, "PROTO"]}
    built: dict[int, type] = {}
    spec_of: dict[type, ClassSpec] = {}
    for spec in structure.classes:
        bases = tuple(built[t] if kind == "cls" else stand_ins[t] for kind, t, _ in spec.bases)
        try:
            cls = type(spec.name, bases, {})
        except TypeError:  # inconsistent MRO, or a base listed twice: Python refuses it, so skip
            return None
        built[spec.index] = cls
        spec_of[cls] = spec
    expected: set[tuple[str, str]] = set()
    for spec in structure.classes:
        if spec.protocol:
            continue  # lists Protocol among its bases: an interface, never reported
        cls = built[spec.index]
        mro = [k for k in cls.__mro__ if k is not object]

        def lookup(name: str, mro: list = mro, spec=spec) -> str | None:
            for k in mro:
                if (k is stand_ins["PPOUT"] and name == TO_PP) or (k is stand_ins["PPOBS"] and name == FROM_PP):
                    return "stub"
                owner = spec_of.get(k)
                if owner is not None and name in owner.members:
                    kind = owner.members[name]
                    if kind == "stub":
                        return "stub" if owner.protocol and owner is not spec else "method"
                    return kind if kind in ("none", "helper") else "method"
            return None

        def defines(name: str) -> bool:
            return lookup(name) not in (None, "none")

        def fits(name: str) -> bool:  # structural recognition reads a signature, which an assignment lacks
            return lookup(name) in ("method", "stub")

        unresolved = any(stand_ins["EXT"] in k.__bases__ for k in mro if k in spec_of)

        def never_returns_an_output(mro: list = mro, unresolved: bool = unresolved) -> bool:
            for k in mro:
                owner = spec_of.get(k)
                if owner is not None and "after_sample" in owner.members:
                    # "stub" is `...` in a Protocol (its stub, returning None), "stubbody" is `pass`, a "helper"
                    # a module function returning None that the class binds (the index reads what the final
                    # namespace's after_sample returns); a "method" returns its parameter
                    return owner.members["after_sample"] in ("stub", "stubbody", "none", "helper")
            return not unresolved  # none anywhere, unless a base we cannot see defines it

        output = any(stand_ins[r] in mro for r in OUTPUT_ROOTS) or fits("copy_to_host")
        observer = any(stand_ins[r] in mro for r in OBSERVER_ROOTS) or (
            fits("after_sample") and (defines("is_active") or defines("before_grammar")))
        subclassed = any(cls in built[other.index].__mro__[1:] for other in structure.classes)
        if output and subclassed and not structure.used_as_value(spec):
            continue  # a base only: no instance of its own meets the helpers
        no_output = observer and never_returns_an_output()
        for role, method, code in ((output, TO_PP, "PPA001"), (observer, FROM_PP, "PPA002")):
            if method == FROM_PP and no_output:
                continue  # no output tensors cross: the helper returns before it looks at the observer
            found = lookup(method)
            if found == "stub":
                expected.add((structure.symbol(spec), "PPA018"))
                continue
            if not role or found in ("method", "helper") or (found is None and unresolved):
                continue
            expected.add((structure.symbol(spec), code))
    return expected
