"""A class is what its module leaves it (issue 33, items 1, 2 and 5): decorators, methods attached after the class,
``type(...)``, classes made in factories; certainty before a finding; and ``__getattr__`` across Python versions.

Each form gets its own small project, with a class that must be reported beside the ones that must not, so the
expected set of findings says both. Messages are checked where they must say how the class got (or failed to
get) its method.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintkit import IMPORT_AUX, IMPORT_OBS, lint, locate, only, reported, run_analysis, run_console

from ppaux_lint.cli.inventory import build

COPY = "\n    def copy_to_host(self, copy_tensor):\n        return self\n"
"""The body that makes a class an output by its own statement."""

DECORATORS = """
def pp_fields(*names):
    def decorate(cls):
        def to_pp_tensors(self):
            return {name: getattr(self, name) for name in names}
        cls.to_pp_tensors = to_pp_tensors
        return cls
    return decorate


def rebuilds(output_cls):
    def decorate(cls):
        def from_pp_tensors(self, tensors):
            return output_cls(**tensors)
        setattr(cls, "from_pp_tensors", from_pp_tensors)
        return cls
    return decorate


def copies_only(cls):
    def copy_to_host(self, copy_tensor):
        return self
    cls.copy_to_host = copy_to_host
    return cls


def sends_nothing(cls):
    cls.to_pp_tensors = lambda self: {}
    return cls
"""
"""``pkg/decorators.py``: project decorators, plain and factories, that add methods to the class they get."""


def _symbols(findings, code: str) -> set[str]:
    return {f.symbol for f in findings if f.code == code}


# -- decorators -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use, name", [
    ("from pkg.decorators import pp_fields, rebuilds", "pp_fields"),
    ("import pkg.decorators as deco", "deco.pp_fields"),
    ("from pkg import pp_fields, rebuilds", "pp_fields"),
], ids=["from-import", "module-alias", "re-export"])
def test_a_project_decorator_that_adds_the_methods_gives_the_class_them(lint_project, use, name):
    lint_project({
        "pkg/__init__.py": "from pkg.decorators import pp_fields, rebuilds\n",
        "pkg/decorators.py": DECORATORS,
        "pkg/outputs.py": IMPORT_AUX + f"{use}\n\n\n@{name}(\"scores\")\nclass Scores(DeviceAuxiliaryOutput):"
                          f"{COPY}\n\nclass Plain(DeviceAuxiliaryOutput):{COPY}",
        "pkg/observers.py": IMPORT_OBS + f"{use.replace('pp_fields', 'rebuilds')}\nfrom pkg.outputs import Scores\n"
                            f"\n\n@{name.replace('pp_fields', 'rebuilds')}(Scores)\nclass Obs(SamplingObserver):\n"
                            "    def after_sample(self, state, token_ids):\n        return Scores()\n\n\n"
                            "class Bare(SamplingObserver):\n    def after_sample(self, state, token_ids):\n"
                            "        return Scores()\n",
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Plain", "PPA001"), ("pkg.observers.Bare", "PPA002")}
    assert analysis.unjudged() == []  # each decorator was read, a factory taking only ``*names`` too


def test_what_a_decorator_adds_is_judged_where_it_is_written_and_says_who_added_it(lint_project):
    root = lint_project({
        "pkg/decorators.py": DECORATORS,
        "pkg/outputs.py": IMPORT_AUX + "from pkg.decorators import sends_nothing\n\n\n@sends_nothing\n"
                          f"class Empty(DeviceAuxiliaryOutput):{COPY}",
    })
    finding = only(lint())
    assert (finding.code, finding.symbol) == ("PPA010", "pkg.outputs.Empty")
    line, _ = locate(DECORATORS, "lambda self: {}")
    assert finding.path == str(root / "pkg" / "decorators.py") and finding.span.line == line
    assert f"`pkg.outputs.Empty.to_pp_tensors` (added by `pkg.decorators.sends_nothing` (line {line}))" \
        in finding.message


def test_a_decorator_that_adds_no_transport_method_is_named_in_the_finding(lint_project):
    lint_project({
        "pkg/decorators.py": DECORATORS,
        "pkg/outputs.py": IMPORT_AUX + "from pkg.decorators import copies_only\n\n\n@copies_only\n"
                          "class Copied(DeviceAuxiliaryOutput):\n    pass\n\n\n@copies_only\nclass Structural:\n"
                          "    pass\n",
    })
    findings = lint()
    assert reported(findings) == {("pkg.outputs.Copied", "PPA001"), ("pkg.outputs.Structural", "PPA001")}
    structural = next(f for f in findings if f.symbol == "pkg.outputs.Structural")
    assert "nor does `pkg.decorators.copies_only` add one" in structural.message
    assert "`copy_to_host` (added by `pkg.decorators.copies_only`" in structural.message  # how it is an output


REBOUND = IMPORT_AUX + f"""from magic import wrap
from pkg.decorators import pp_fields, sends_nothing

USE_PP = True


class Empty(DeviceAuxiliaryOutput):{COPY}

Empty = sends_nothing(Empty)


class Fields(DeviceAuxiliaryOutput):{COPY}

Fields = pp_fields("a")(Fields)


class Wrapped(DeviceAuxiliaryOutput):{COPY}

Wrapped = wrap(Wrapped)


class Maybe(DeviceAuxiliaryOutput):{COPY}

if USE_PP:
    Maybe = pp_fields("a")(Maybe)


class Plain(DeviceAuxiliaryOutput):{COPY}

Plain = Plain
"""


def test_a_class_rebound_to_what_a_decorator_returns_is_decorated(lint_project):
    lint_project({"pkg/decorators.py": DECORATORS, "pkg/outputs.py": REBOUND})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Empty", "PPA010"), ("pkg.outputs.Plain", "PPA001")}
    unknown = {r["fqn"]: r["unknown"] for r in build(analysis)["outputs"] if r["unknown"]}
    wrapped, maybe = locate(REBOUND, "Wrapped = wrap")[0], locate(REBOUND, "    Maybe = ")[0]
    assert unknown == {
        "pkg.outputs.Wrapped": [{"what": f"decorated by `magic.wrap` (line {wrapped}), which the analysis cannot "
                                         "follow", "path": "pkg/outputs.py", "line": wrapped}],
        "pkg.outputs.Maybe": [{"what": f"rebound to `pp_fields()(...)` under a condition (line {maybe})",
                               "path": "pkg/outputs.py", "line": maybe}]}


def test_a_class_a_rebinding_decorator_makes_an_output_is_read_by_the_prefilter(lint_project):
    lint_project({"pkg/decorators.py": DECORATORS,
                  "pkg/outputs.py": "from pkg.decorators import copies_only\n\n\nclass Host:\n    pass\n\n\n"
                                    "Host = copies_only(Host)\n"})
    finding = only(lint())
    assert (finding.code, finding.symbol) == ("PPA001", "pkg.outputs.Host")
    assert "defines `copy_to_host` (added by `pkg.decorators.copies_only`" in finding.message


def test_a_misspelt_method_a_decorator_adds_is_a_near_miss_that_says_who_added_it(lint_project):
    source = IMPORT_AUX + f"""

def misspells(cls):
    def to_pp_tensor(self):
        return {{"a": self.a}}
    cls.to_pp_tensor = to_pp_tensor
    return cls


@misspells
class Out(DeviceAuxiliaryOutput):{COPY}"""
    lint_project({"pkg/outputs.py": source})
    finding = only(lint())
    line = locate(source, "cls.to_pp_tensor = ")[0]
    assert (finding.code, finding.span.line) == ("PPA017", locate(source, "def to_pp_tensor")[0])
    assert finding.message.startswith(f"`pkg.outputs.Out.to_pp_tensor` (added by `pkg.outputs.misspells` (line {line}))"
                                      " looks like a misspelling of `to_pp_tensors`")


def test_a_decorator_that_returns_a_class_built_on_the_one_it_gets(lint_project):
    lint_project({"pkg/outputs.py": IMPORT_AUX + f"""

class PPMixin:
    def to_pp_tensors(self):
        return {{"a": self.a}}


def with_mixin(cls):
    return type(cls.__name__, (cls, PPMixin), {{}})


def wrapped(cls):
    class Wrapped(cls):
        def to_pp_tensors(self):
            return {{"a": self.a}}
    return Wrapped


def renamed(cls):
    return type("Renamed" + cls.__name__, (cls,), {{"note": None}})


@with_mixin
class Mixed(DeviceAuxiliaryOutput):{COPY}

@wrapped
class Wrapped(DeviceAuxiliaryOutput):{COPY}

@renamed
class Renamed(DeviceAuxiliaryOutput):{COPY}
"""})
    assert reported(lint()) == {("pkg.outputs.Renamed", "PPA001")}


def test_a_registry_decorator_is_followed(lint_project):
    """``REGISTRY.append(cls)``, a method of a module-level instance as decorator: bookkeeping that changes no
    namespace, so what the class lacks is still reported."""
    lint_project({"pkg/outputs.py": IMPORT_AUX + f"""
REGISTRY = []


class Registry:
    def __init__(self):
        self._classes = {{}}

    def register(self, name):
        def add(cls):
            self._classes[name] = cls
            return cls
        return add


registry = Registry()


def remember(cls):
    REGISTRY.append(cls)
    return cls


@remember
class Listed(DeviceAuxiliaryOutput):{COPY}

@registry.register("named")
class Named(DeviceAuxiliaryOutput):{COPY}
"""})
    assert reported(lint()) == {("pkg.outputs.Listed", "PPA001"), ("pkg.outputs.Named", "PPA001")}


# -- assignments after the class ---------------------------------------------------------------------------


PATCHED = IMPORT_AUX + f"""
HAS_PP = True


def _to_pp(self):
    return {{"a": self.a}}


class ByName(DeviceAuxiliaryOutput):{COPY}

ByName.to_pp_tensors = _to_pp


class ByLambda(DeviceAuxiliaryOutput):{COPY}

ByLambda.to_pp_tensors = lambda self: {{}}


class BySetattr(DeviceAuxiliaryOutput):{COPY}

setattr(BySetattr, "to_pp_tensors", _to_pp)


class First(DeviceAuxiliaryOutput):{COPY}

class Second(DeviceAuxiliaryOutput):{COPY}

for cls in (First, Second):
    cls.to_pp_tensors = _to_pp


class Guarded(DeviceAuxiliaryOutput):{COPY}

if HAS_PP:
    Guarded.to_pp_tensors = _to_pp


class Tried(DeviceAuxiliaryOutput):{COPY}

try:
    Tried.to_pp_tensors = _to_pp
except AttributeError:
    pass


class SetNone(DeviceAuxiliaryOutput):{COPY}
    def to_pp_tensors(self):
        return {{"a": self.a}}

SetNone.to_pp_tensors = None


class Deleted(DeviceAuxiliaryOutput):{COPY}
    def to_pp_tensors(self):
        return {{"a": self.a}}

del Deleted.to_pp_tensors
"""


def test_methods_attached_after_the_class(lint_project):
    lint_project({"pkg/outputs.py": PATCHED})
    findings = lint()
    assert reported(findings) == {("pkg.outputs.ByLambda", "PPA010"), ("pkg.outputs.SetNone", "PPA001"),
                                  ("pkg.outputs.Deleted", "PPA001")}
    by_symbol = {f.symbol: f for f in findings}
    line = locate(PATCHED, "ByLambda.to_pp_tensors")[0]
    assert f"(set at line {line} after the class)" in by_symbol["pkg.outputs.ByLambda"].message
    assert by_symbol["pkg.outputs.ByLambda"].span.line == line
    line = locate(PATCHED, "SetNone.to_pp_tensors = None")[0]
    assert f"gets `to_pp_tensors = None` (set at line {line} after the class)" in by_symbol["pkg.outputs.SetNone"].message
    line = locate(PATCHED, "del Deleted")[0]
    assert f"it is deleted at line {line} after the class" in by_symbol["pkg.outputs.Deleted"].message


WRAPPED_AFTER = IMPORT_AUX + f"""
IDS = object()


def _pack(self):
    return {{"ids": self.ids}}


def _constant():
    return {{"ids": IDS}}


def _of_class(cls):
    return {{"ids": IDS}}


class Static(DeviceAuxiliaryOutput):{COPY}

class StaticLambda(DeviceAuxiliaryOutput):{COPY}

class NoSelf(DeviceAuxiliaryOutput):{COPY}

class ByClass(DeviceAuxiliaryOutput):{COPY}

Static.to_pp_tensors = staticmethod(_pack)
StaticLambda.to_pp_tensors = staticmethod(lambda self: {{"ids": self.ids}})
NoSelf.to_pp_tensors = staticmethod(_constant)
ByClass.to_pp_tensors = classmethod(_of_class)
Typed = type("Typed", (DeviceAuxiliaryOutput,), {{"copy_to_host": _of_class,
                                               "to_pp_tensors": staticmethod(lambda self: {{"ids": self.ids}})}})
"""


def test_a_method_wrapped_by_staticmethod_or_classmethod_after_the_class_binds_as_in_the_body(lint_project):
    """``Out.to_pp_tensors = staticmethod(_pack)`` gets no ``self``: the helper's call raises TypeError (at run time
    through SGLang's helpers), as ``to_pp_tensors = staticmethod(_pack)`` in the body does; a function that takes
    nothing, or a classmethod, is called as it should be."""
    lint_project({"pkg/outputs.py": WRAPPED_AFTER})
    findings = lint()
    assert reported(findings) == {("pkg.outputs.Static", "PPA016"), ("pkg.outputs.StaticLambda", "PPA016"),
                                  ("pkg.outputs.Typed", "PPA016")}
    static = next(f for f in findings if f.symbol == "pkg.outputs.Static")
    line = locate(WRAPPED_AFTER, "Static.to_pp_tensors = staticmethod")[0]
    assert f"`pkg.outputs.Static.to_pp_tensors` (set at line {line} after the class) requires 1 argument(s)" \
        in static.message


HOOK_AFTER = IMPORT_AUX + IMPORT_OBS + """

class Out(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"ids": self.ids}


class Obs(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return None


def _after(state, token_ids):
    return Out(token_ids)


Obs.after_sample = staticmethod(_after)
"""


def test_an_after_sample_set_after_the_class_is_what_the_observer_returns(lint_project):
    """The body's ``after_sample`` returns None, but the one set after the class returns an ``Out``: the observer
    has an output after all, and no ``from_pp_tensors`` (SGLang 0.5.23's pop helper raises: sampling observer does
    not support pipeline-parallel transport, confirmed with the real helpers). It is paired with ``Out``."""
    lint_project({"pkg/obs.py": HOOK_AFTER})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.obs.Obs", "PPA002")}
    assert analysis.classes["pkg.obs.Obs"].pair == "pkg.obs.Out"


HANDED = IMPORT_AUX + f"""
REGISTRY = []


def install(cls):
    def to_pp_tensors(self):
        return {{}}
    cls.to_pp_tensors = to_pp_tensors


def register(cls):
    REGISTRY.append(cls)


class Installed(DeviceAuxiliaryOutput):{COPY}

class Registered(DeviceAuxiliaryOutput):{COPY}

install(Installed)
register(Registered)
"""


def test_a_class_handed_to_a_project_function_after_the_class_gets_what_it_sets(lint_project):
    lint_project({"pkg/outputs.py": HANDED})
    findings = lint()
    assert reported(findings) == {("pkg.outputs.Installed", "PPA010"), ("pkg.outputs.Registered", "PPA001")}
    line = locate(HANDED, "cls.to_pp_tensors = to_pp_tensors")[0]
    installed = next(f for f in findings if f.code == "PPA010")
    assert f"`pkg.outputs.Installed.to_pp_tensors` (added by `pkg.outputs.install` (line {line}))" in installed.message


HANDED_OTHERWISE = IMPORT_AUX + f"""

def _pack(self):
    return {{"ids": self.ids}}


def enable_pp(cls):
    cls.to_pp_tensors = _pack
    return cls


def enable_all(*classes):
    for c in classes:
        c.to_pp_tensors = _pack


def enable_each(classes):
    for c in classes:
        setattr(c, "to_pp_tensors", _pack)


def install(fn, cls):
    cls.to_pp_tensors = fn


class Installer:
    @staticmethod
    def install(cls):
        cls.to_pp_tensors = lambda self: {{}}


class Registry:
    def install(self, cls):
        cls.to_pp_tensors = lambda self: {{}}


REGISTRY = Registry()


class Varargs(DeviceAuxiliaryOutput):{COPY}

class Second(DeviceAuxiliaryOutput):{COPY}

class InTuple(DeviceAuxiliaryOutput):{COPY}

class Mapped(DeviceAuxiliaryOutput):{COPY}

class Static(DeviceAuxiliaryOutput):{COPY}

class ByInstance(DeviceAuxiliaryOutput):{COPY}

class InFunction(DeviceAuxiliaryOutput):{COPY}

class Never(DeviceAuxiliaryOutput):{COPY}

enable_all(Varargs)
install(_pack, Second)
enable_each((InTuple,))
list(map(enable_pp, (Mapped,)))
Installer.install(Static)
REGISTRY.install(ByInstance)


def _setup():
    enable_pp(InFunction)


_setup()
"""


def test_a_class_handed_to_a_project_function_by_any_route_is_not_taken_for_unchanged(lint_project):
    """Each of these classes gets ``to_pp_tensors`` at run time (the sampling harness confirmed it through SGLang's
    helpers): a function that sets it on each of its ``*classes``, on its second parameter, on each of a tuple; a
    ``map``; a static method and a registry instance's method; a function that may run at any time. Where the
    analysis can read what is done it judges the result (``Static`` and ``ByInstance`` send nothing: PPA010), else
    the class is unknown and says why; ``Never`` is handed to nothing and keeps its PPA001."""
    lint_project({"pkg/outputs.py": HANDED_OTHERWISE})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Never", "PPA001"), ("pkg.outputs.Static", "PPA010"),
                                           ("pkg.outputs.ByInstance", "PPA010")}
    data = build(analysis)
    unknown = {record["fqn"].rsplit(".", 1)[1]: [t["what"] for t in record["unknown"]]
               for record in data["outputs"] if record["unknown"]}
    assert set(unknown) == {"Varargs", "Second", "InTuple", "InFunction"}
    loop = locate(HANDED_OTHERWISE, "        c.to_pp_tensors = _pack")[0]
    assert unknown["Varargs"] == [
        f"handed to `pkg.outputs.enable_all` (line {locate(HANDED_OTHERWISE, 'enable_all(Varargs)')[0]})",
        f"setting `c.to_pp_tensors` on what may be any class it is handed (line {loop}) changes its namespace in a "
        "way the analysis cannot follow"]
    assert unknown["Second"] == [f"handed to `pkg.outputs.install` (line {locate(HANDED_OTHERWISE, 'install(_pack')[0]})"
                                 " other than as its first argument, which the analysis cannot follow"]
    assert unknown["InFunction"] == [
        f"handed to `pkg.outputs.enable_pp` in `pkg.outputs._setup` (line "
        f"{locate(HANDED_OTHERWISE, '    enable_pp(InFunction)')[0]}), which may run at any time"]
    mapped = next(r for r in data["outputs"] if r["fqn"] == "pkg.outputs.Mapped")
    assert not mapped["unknown"] and mapped["findings"] == []


def test_a_class_whose_bases_are_assigned_is_unknown(lint_project):
    """``Out.__bases__ = (PPMixin, Plain)`` (or ``+=``) gives the class a new MRO, with the mixin's methods: at run
    time it sends its tensors, so it is no PPA001 but a class the analysis cannot judge."""
    source = IMPORT_AUX + f"""

class PPMixin:
    def to_pp_tensors(self):
        return {{"ids": self.ids}}


class Plain:
    pass


class Rebased(Plain):{COPY}

class Extended(Plain):{COPY}

class Never(Plain):{COPY}

Rebased.__bases__ = (PPMixin, Plain)
Extended.__bases__ += (PPMixin,)
"""
    lint_project({"pkg/outputs.py": source})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Never", "PPA001")}
    unknown = {record["fqn"]: record["unknown"][0]["what"] for record in build(analysis)["outputs"]
               if record["unknown"]}
    assert unknown == {f"pkg.outputs.{name}": f"`{name}.__bases__` assigned (line {locate(source, name + '.__bases__')[0]})"
                                              " changes its namespace in a way the analysis cannot follow"
                       for name in ("Rebased", "Extended")}


HANDED_INSIDE = IMPORT_AUX + "from pkg.decorators import pp_fields\n" + f"""

def enable_pp(cls):
    cls.to_pp_tensors = lambda self: {{"ids": self.ids}}
    return cls


class Listed(DeviceAuxiliaryOutput):{COPY}

class Factory(DeviceAuxiliaryOutput):{COPY}

class Aliased(DeviceAuxiliaryOutput):{COPY}

class Borrowed(DeviceAuxiliaryOutput):{COPY}

class Other(DeviceAuxiliaryOutput):{COPY}

class Later(DeviceAuxiliaryOutput):{COPY}

class Looped(DeviceAuxiliaryOutput):{COPY}

OUTPUTS = [enable_pp(Listed), pp_fields("ids")(Factory)]
ENABLED = list(enable_pp(cls) for cls in (Looped,))
Renamed = enable_pp(Aliased)
Other.to_pp_tensors = pp_fields("ids")(Borrowed).to_pp_tensors
enable = lambda: enable_pp(Later)
"""


def test_a_class_handed_to_a_project_decorator_inside_an_expression_gets_what_it_sets(lint_project):
    """The decorator runs wherever its call stands: in a list, bound to another name, or read through for an
    attribute, it changes the class all the same; in a ``lambda``'s body it does not run."""
    lint_project({"pkg/outputs.py": HANDED_INSIDE, "pkg/decorators.py": DECORATORS})
    assert reported(lint()) == {("pkg.outputs.Later", "PPA001")}


SET_THROUGH_TYPE = IMPORT_AUX + f"""

def _pack(self):
    return {{"ids": self.ids}}


class ByType(DeviceAuxiliaryOutput):{COPY}

class InComprehension(DeviceAuxiliaryOutput):{COPY}

class ByDict(DeviceAuxiliaryOutput):{COPY}

class ByObject(DeviceAuxiliaryOutput):{COPY}

try:  # ``object.__setattr__`` refuses a class (TypeError): it sets nothing
    object.__setattr__(ByObject, "to_pp_tensors", _pack)
except TypeError:
    pass
type.__setattr__(ByType, "to_pp_tensors", _pack)
[setattr(c, "to_pp_tensors", _pack) for c in (InComprehension,)]
{{c: setattr(c, "to_pp_tensors", _pack) for c in [ByDict] if c}}
"""


def test_setattr_through_type_or_inside_a_comprehension_is_an_edit(lint_project):
    """``type.__setattr__`` is ``setattr``, and a comprehension over a literal tuple of classes sets the name on
    each; one over anything else sets it on what the analysis cannot name, so that name is unknown on every class
    rather than missing on one."""
    lint_project({"pkg/outputs.py": SET_THROUGH_TYPE.replace("[setattr", "# [setattr")})
    assert reported(lint()) == {("pkg.outputs.InComprehension", "PPA001"), ("pkg.outputs.ByObject", "PPA001")}
    lint_project({"pkg/outputs.py": SET_THROUGH_TYPE})
    assert reported(lint()) == {("pkg.outputs.ByObject", "PPA001")}
    lint_project({"pkg/outputs.py": SET_THROUGH_TYPE.replace("for c in (InComprehension,)", "for c in REGISTRY")})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert {info.fqn for info in analysis.unjudged()} == {"pkg.outputs.ByType", "pkg.outputs.InComprehension",
                                                          "pkg.outputs.ByDict", "pkg.outputs.ByObject"}


MAYBE_HANDED = IMPORT_AUX + f"""
import os


def without_pp(cls):
    cls.to_pp_tensors = None
    return cls


def _pack(self):
    return {{"ids": self.ids}}


class Flagged(DeviceAuxiliaryOutput):{COPY}
    to_pp_tensors = _pack

class Guarded(DeviceAuxiliaryOutput):{COPY}
    to_pp_tensors = _pack

class Filtered(DeviceAuxiliaryOutput):{COPY}
    to_pp_tensors = _pack

class Shadowed(DeviceAuxiliaryOutput):{COPY}
    to_pp_tensors = _pack

class Looped(DeviceAuxiliaryOutput):{COPY}
    to_pp_tensors = _pack

class Compared(DeviceAuxiliaryOutput):{COPY}
    to_pp_tensors = _pack


def debug_outputs():
    return []


OUTPUT_CLS = without_pp(Flagged) if os.environ.get("NO_PP") else Flagged
if os.environ.get("NO_PP"):
    without_pp(Guarded)
DEBUG = [without_pp(c) for c in (Filtered,) if c.__name__.startswith("Debug")]
LOCAL = [without_pp(Shadowed) for Shadowed in debug_outputs()]
for _ in ():
    NEVER = without_pp(Looped)
SHORT = 1 < 0 < without_pp(Compared)
_ = os.environ.get("NO_PP") and setattr(Flagged, "to_pp_tensors", None)
"""


def test_what_a_call_does_under_a_condition_is_not_taken_for_certain(lint_project):
    """A project editor called in a branch of ``a if c else b``, after ``and``, under an ``if``, past a
    comprehension's filter may not run: what it sets to None is unknown, not missing; and a comprehension's own
    variable (``for Shadowed in ...``) is not the module's class."""
    lint_project({"pkg/outputs.py": MAYBE_HANDED})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert {info.fqn for info in analysis.unjudged()} == {"pkg.outputs.Flagged", "pkg.outputs.Guarded",
                                                          "pkg.outputs.Filtered", "pkg.outputs.Looped",
                                                          "pkg.outputs.Compared"}


GLOBALS_LOOKUP = IMPORT_AUX + f"""

def _to_pp(self):
    return {{"window": self.window}}


class WindowOutput(DeviceAuxiliaryOutput):{COPY}

def _enable(name):
    target = globals()[f"{{name.title()}}Output"]
    target.to_pp_tensors = _to_pp


_enable("window")
"""


def test_a_method_set_on_a_class_looked_up_in_globals_is_unknown_on_the_classes_of_that_module(lint_project):
    lint_project({"pkg/window.py": GLOBALS_LOOKUP,
                  "pkg/plain.py": IMPORT_AUX + f"\n\nclass Plain(DeviceAuxiliaryOutput):{COPY}"})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.plain.Plain", "PPA001")}  # another module's globals are its own
    line = locate(GLOBALS_LOOKUP, "target.to_pp_tensors")[0]
    record = next(r for r in build(analysis)["outputs"] if r["fqn"] == "pkg.window.WindowOutput")
    assert record["unknown"] == [{"what": f"`to_pp_tensors` is set on a class `globals()` looks up in "
                                          f"`pkg.window._enable` (line {line}), which may run at any time",
                                  "path": "pkg/window.py", "line": line}]


def test_an_assignment_before_the_class_does_not_reach_it(lint_project):
    lint_project({"pkg/outputs.py": IMPORT_AUX + f"""
from pkg.earlier import Late


def _to_pp(self):
    return {{"a": self.a}}


Late.to_pp_tensors = _to_pp


class Late(DeviceAuxiliaryOutput):{COPY}
""", "pkg/earlier.py": "class Late:\n    pass\n"})
    assert reported(lint()) == {("pkg.outputs.Late", "PPA001")}


def test_an_assignment_in_another_module_reaches_the_class_and_its_method_is_judged(lint_project):
    root = lint_project({
        "pkg/outputs.py": IMPORT_AUX + f"\n\nclass Out(DeviceAuxiliaryOutput):{COPY}\n\nclass Other(DeviceAuxiliaryOutput):"
                          f"{COPY}",
        "pkg/patches.py": "from pkg.outputs import Out, Other\n\n\ndef _to_pp(self):\n    return {\"n\": len(self.ids)}\n"
                          "\n\nOut.to_pp_tensors = _to_pp\n",
    })
    findings = lint()
    assert reported(findings) == {("pkg.outputs.Other", "PPA001"), ("pkg.outputs.Out", "PPA012")}
    wrong = next(f for f in findings if f.code == "PPA012")
    assert wrong.path == str(root / "pkg" / "patches.py")
    assert "(set in `pkg.patches` at line 8)" in wrong.message
    assert reported(lint(["pkg/outputs.py"])) == {("pkg.outputs.Other", "PPA001")}  # the finding is in patches.py


def test_a_function_bound_in_the_class_body_is_judged_as_the_method(lint_project):
    lint_project({
        "pkg/helpers.py": "def pack(self):\n    return {\"a\": self.a, \"a\": self.b}\n",
        "pkg/outputs.py": IMPORT_AUX + f"from pkg.helpers import pack\n\n\nclass Out(DeviceAuxiliaryOutput):{COPY}"
                          "    to_pp_tensors = pack\n",
    })
    assert reported(lint()) == {("pkg.outputs.Out", "PPA013")}


def test_the_contract_of_methods_given_by_a_decorator_and_by_an_assignment(lint_project):
    """PPA015 and PPA016 read the final namespace too: an observer whose ``from_pp_tensors`` a decorator adds
    reads a key the patched ``to_pp_tensors`` never sends; an ``async`` function attached as the method."""
    lint_project({
        "pkg/decorators.py": "def reads_b(cls):\n    def from_pp_tensors(self, tensors):\n"
                             "        return Out(tensors[\"b\"])\n    cls.from_pp_tensors = from_pp_tensors\n"
                             "    return cls\n\n\nfrom pkg.outputs import Out  # noqa: E402\n",
        "pkg/outputs.py": IMPORT_AUX + f"\n\nclass Out(DeviceAuxiliaryOutput):{COPY}\n\ndef _send(self):\n"
                          "    return {\"a\": self.a}\n\n\nOut.to_pp_tensors = _send\n\n\n"
                          f"class Late(DeviceAuxiliaryOutput):{COPY}\n\nasync def _late(self):\n    return {{}}\n\n\n"
                          "Late.to_pp_tensors = _late\n",
        "pkg/observers.py": IMPORT_OBS + "from pkg.decorators import reads_b\nfrom pkg.outputs import Out\n\n\n"
                            "@reads_b\nclass Obs(SamplingObserver):\n    def after_sample(self, state, token_ids):\n"
                            "        return Out(state)\n",
    })
    findings = lint()
    assert reported(findings) == {("pkg.observers.Obs", "PPA015"), ("pkg.outputs.Out", "PPA015"),
                                  ("pkg.outputs.Late", "PPA016")}
    reads = next(f for f in findings if f.code == "PPA015" and f.symbol == "pkg.observers.Obs")
    assert "(added by `pkg.decorators.reads_b`" in reads.message and "(set at line" in reads.message


# -- type(...) and factories -------------------------------------------------------------------------------


TYPES = IMPORT_AUX + f"""

def _copy(self, copy_tensor):
    return self


class Base(DeviceAuxiliaryOutput):{COPY}

Fast = type("Fast", (Base,), {{"note": None}})
Good = type("Good", (Base,), {{"to_pp_tensors": lambda self: {{"a": self.a}}}})
Bad = type("Bad", (DeviceAuxiliaryOutput,), {{"copy_to_host": _copy, "to_pp_tensors": lambda self: None}})
Loose = type("Loose", (), {{"copy_to_host": _copy}})
"""


def test_a_class_made_by_type_is_a_class_like_any_other_reported_at_the_call(lint_project):
    lint_project({"pkg/outputs.py": TYPES})
    analysis = run_analysis()
    findings = analysis.findings
    assert reported(findings) == {("pkg.outputs.Fast", "PPA001"), ("pkg.outputs.Bad", "PPA010"),
                                  ("pkg.outputs.Loose", "PPA001")}
    fast = next(f for f in findings if f.symbol == "pkg.outputs.Fast")
    assert (fast.span.line, fast.span.column) == locate(TYPES, 'type("Fast"')
    outputs = {record["fqn"] for record in build(analysis)["outputs"]}
    assert {"pkg.outputs.Fast", "pkg.outputs.Good", "pkg.outputs.Bad", "pkg.outputs.Loose"} <= outputs
    # A base used only to make other classes through type(...) has no instance of its own: not judged itself.
    assert "pkg.outputs.Base" not in _symbols(findings, "PPA001")


MADE = IMPORT_AUX + IMPORT_OBS + """import dataclasses
import types
from dataclasses import make_dataclass

from sglang.srt.model_executor.forward_observer import ForwardObserver


def _copy(self, copy_tensor):
    return self


def _pack(self):
    return {"ids": self.ids}


def _body(namespace):
    namespace.update(copy_to_host=_copy, to_pp_tensors=_pack)


Missing = dataclasses.make_dataclass("Missing", [("ids", object)], namespace={"copy_to_host": _copy})
Sent = make_dataclass("Sent", ["ids"], bases=(DeviceAuxiliaryOutput,), namespace={"to_pp_tensors": _pack})
Filled = types.new_class("Filled", (DeviceAuxiliaryOutput,), {}, _body)
Forwarded = type("Forwarded", (DeviceAuxiliaryOutput,), {"copy_to_host": _copy})


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        if state is None:
            return Missing(token_ids)
        if token_ids is None:
            return Filled()
        return Sent(token_ids)

    def from_pp_tensors(self, tensors):
        return Sent(tensors["ids"])


class Forward(ForwardObserver):
    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):
        return Forwarded()
"""


def test_classes_made_by_make_dataclass_and_new_class_are_classes_and_their_calls_construct_them(lint_project):
    """``make_dataclass`` reads its ``bases`` and ``namespace`` as ``type(...)`` does (``Missing`` lacks
    ``to_pp_tensors``: the helper refuses it at run time); a ``new_class`` whose ``exec_body`` fills the namespace is
    unknown, and says so. Calling the name such a call is bound to constructs that class: ``Obs`` rebuilds ``Sent``,
    and ``Forwarded``, which only a forward observer returns, never crosses a stage (no PPA001)."""
    lint_project({"pkg/outputs.py": MADE})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Missing", "PPA001")}
    missing = next(f for f in analysis.findings if f.symbol == "pkg.outputs.Missing")
    assert (missing.span.line, missing.span.column) == locate(MADE, "dataclasses.make_dataclass(\"Missing\"")
    data = build(analysis)
    unknown = {r["fqn"]: [t["what"] for t in r["unknown"]] for r in data["outputs"] if r["unknown"]}
    assert unknown == {"pkg.outputs.Filled": ["made by `new_class(...)`, and `_body` fills its namespace"]}
    [observer] = [r for r in data["observers"] if r["fqn"] == "pkg.outputs.Obs"]
    assert observer["rebuilds"] == "pkg.outputs.Sent"


def test_a_class_made_in_a_factory_is_judged_once_named_where_it_is_defined(lint_project):
    src = IMPORT_AUX + f"""

def make(scale):
    class Scaled(DeviceAuxiliaryOutput):{COPY.replace(chr(10), chr(10) + '    ')}
    return Scaled


def make_typed(name):
    return type(name, (DeviceAuxiliaryOutput,), {{"copy_to_host": lambda self, copy_tensor: self}})


Half = make(0.5)
Double = make(2.0)
Typed = make_typed("Typed")
"""
    lint_project({"pkg/outputs.py": src})
    line = locate(src, "return type(")[0]
    assert reported(lint()) == {("pkg.outputs.make.<locals>.Scaled", "PPA001"),
                                (f"pkg.outputs.make_typed.<locals>.<type@{line}>", "PPA001")}


# -- certainty before a finding -----------------------------------------------------------------------------


UNKNOWN = IMPORT_AUX + f"""import dataclasses
import functools

import attrs
from magic import auto_pp, install

METHODS = {{}}


class Meta(type):
    def __new__(mcs, name, bases, namespace):
        return super().__new__(mcs, name, bases, namespace)


class Quiet(type):
    def describe(cls):
        return cls.__name__


def passes_on(cls):
    install(cls)
    return cls


@auto_pp
class ByUnknownDecorator(DeviceAuxiliaryOutput):{COPY}

class ByMetaclass(DeviceAuxiliaryOutput, metaclass=Meta):{COPY}

class ByComputedSetattr(DeviceAuxiliaryOutput):{COPY}

for name, method in METHODS.items():
    setattr(ByComputedSetattr, name, method)


class ByVars(DeviceAuxiliaryOutput):{COPY}

vars(ByVars).update(METHODS)


@passes_on
class ByHandOff(DeviceAuxiliaryOutput):{COPY}

class ByBodyVars(DeviceAuxiliaryOutput):{COPY}    vars().update(METHODS)


def install_transport(cls, direction, fn):
    setattr(cls, f"{{direction}}_pp_tensors", fn)


class ByInstaller(DeviceAuxiliaryOutput):{COPY}

install_transport(ByInstaller, "to", None)

class Inherits(ByUnknownDecorator):
    pass


class InheritsButDefines(ByUnknownDecorator):
    def to_pp_tensors(self):
        return {{}}


@dataclasses.dataclass
@functools.total_ordering
@attrs.define
class KnownDecorators(DeviceAuxiliaryOutput):{COPY}

class KnownMeta(DeviceAuxiliaryOutput, metaclass=Quiet):{COPY}

DEFAULT = ByUnknownDecorator()
"""
UNJUDGED = {"ByUnknownDecorator", "ByMetaclass", "ByComputedSetattr", "ByVars", "ByHandOff", "ByBodyVars",
            "ByInstaller", "Inherits"}


def test_code_the_analysis_cannot_follow_makes_a_class_unknown_and_judged_by_no_rule(lint_project):
    lint_project({"pkg/outputs.py": UNKNOWN})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.KnownDecorators", "PPA001"),
                                           ("pkg.outputs.KnownMeta", "PPA001"),
                                           ("pkg.outputs.InheritsButDefines", "PPA010")}
    data = build(analysis)
    unknown = {record["fqn"].rsplit(".", 1)[1]: record["unknown"] for record in data["outputs"] if record["unknown"]}
    assert set(unknown) == UNJUDGED
    assert data["summary"]["unknown"] == len(UNJUDGED)
    line = locate(UNKNOWN, "@auto_pp")[0]
    assert unknown["ByUnknownDecorator"] == [{
        "what": f"decorated by `magic.auto_pp` (line {line}), which the analysis cannot follow",
        "path": "pkg/outputs.py", "line": line}]
    assert unknown["Inherits"] == unknown["ByUnknownDecorator"]  # what it inherits could have been added there
    assert "`magic.install`" in unknown["ByHandOff"][0]["what"]
    assert "metaclass `pkg.outputs.Meta`" in unknown["ByMetaclass"][0]["what"]
    line = locate(UNKNOWN, "vars().update")[0]
    assert unknown["ByBodyVars"] == [{"what": f"`vars()` in its body (line {line}) hands out its namespace, which "
                                              "code the analysis cannot follow may fill",
                                      "path": "pkg/outputs.py", "line": line}]
    call, computed = locate(UNKNOWN, "install_transport(ByInstaller")[0], locate(UNKNOWN, "    setattr(cls")[0]
    assert [(t["what"], t["line"]) for t in unknown["ByInstaller"]] == [
        (f"handed to `pkg.outputs.install_transport` (line {call})", call),
        (f"`setattr` with a computed name (line {computed}) changes its namespace in a way the analysis cannot "
         "follow", computed)]


def test_a_name_set_on_something_that_may_be_any_class_is_unknown_on_every_class(lint_project):
    lint_project({
        "pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"\n\nclass Out(DeviceAuxiliaryOutput):{COPY}\n\n"
                          "class Obs(SamplingObserver):\n    def after_sample(self, state, token_ids):\n"
                          "        return Out()\n",
        "pkg/setup.py": "from pkg.outputs import Obs\n\n\ndef _rebuild(self, tensors):\n    return None\n\n\n"
                        "observer = Obs()\nobserver.from_pp_tensors = _rebuild\n",
    })
    assert reported(lint()) == {("pkg.outputs.Out", "PPA001")}


@pytest.mark.parametrize("loop", [
    "for cls in OUTPUTS:\n    cls.to_pp_tensors = _pack\n",
    "def enable_all():\n    for cls in OUTPUTS:\n        cls.to_pp_tensors = _pack\n\n\nenable_all()\n",
    "def enable_all():\n    for cls in OUTPUTS.copy():\n        cls.to_pp_tensors = _pack\n\n\nenable_all()\n",
], ids=["module", "function", "function-call"])
def test_a_loop_over_a_list_a_decorator_fills_sets_the_name_on_what_may_be_any_class(lint_project, loop):
    """``OUTPUTS = []`` is filled by ``@register`` before the loop reads it: at run time ``Out`` gets
    ``to_pp_tensors`` (through SGLang's helpers its tensors cross), so a list bound to a name is no literal whose
    items are known (a tuple is), and a function's loop over the module's name sets the name on what may be any
    class, as the module's own loop does."""
    source = IMPORT_AUX + f"""
OUTPUTS = []


def register(cls):
    OUTPUTS.append(cls)
    return cls


def _pack(self):
    return {{"ids": self.ids}}


@register
class Out(DeviceAuxiliaryOutput):{COPY}

""" + loop
    lint_project({"pkg/outputs.py": source})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    [info] = analysis.unjudged()
    line = locate(source, "cls.to_pp_tensors")[0]
    assert info.fqn == "pkg.outputs.Out" and info.unknown[0].what == (
        f"`to_pp_tensors` is set on `{'cls' if loop.startswith('for') else loop.split(' in ')[1].split(':')[0] + '[...]'}`"
        f" (line {line}), which may be any class")


@pytest.mark.parametrize("binding", ["PATCHED = [A]", "PATCHED: list = [A]", "PATCHED = {A}"])
def test_a_list_the_module_only_loops_over_holds_its_items(lint_project, binding):
    """``PATCHED = [A]`` that the module names nowhere else than in ``for cls in PATCHED:`` is filled by nothing:
    the loop sets the name on ``A`` alone, and an output elsewhere that lacks it is still a PPA001 (through SGLang
    0.5.23's helpers: add raises for it). Taken for a list that may hold anything, it made every output of the
    project unknown."""
    lint_project({
        "pkg/reg.py": IMPORT_AUX + f"""
def _pack(self):
    return {{"ids": self.ids}}


class A(DeviceAuxiliaryOutput):{COPY}


{binding}
for cls in PATCHED:
    cls.to_pp_tensors = _pack
""",
        "pkg/other.py": IMPORT_AUX + f"""

class Lonely(DeviceAuxiliaryOutput):{COPY}
""",
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.other.Lonely", "PPA001")}
    assert analysis.unjudged() == []


def test_a_class_patched_in_a_function_is_unknown_for_that_name(lint_project):
    lint_project({"pkg/outputs.py": IMPORT_AUX + f"""

def _to_pp(self):
    return {{"a": self.a}}


class Enabled(DeviceAuxiliaryOutput):{COPY}

class Never(DeviceAuxiliaryOutput):{COPY}

def enable_pp():
    Enabled.to_pp_tensors = _to_pp
"""})
    assert reported(lint()) == {("pkg.outputs.Never", "PPA001")}


def test_a_function_written_before_the_class_that_patches_it_may_still_run_after_it(lint_project):
    lint_project({"pkg/outputs.py": IMPORT_AUX + f"""

def enable_pp():
    Enabled.to_pp_tensors = lambda self: {{"a": self.a}}


class Enabled(DeviceAuxiliaryOutput):{COPY}

class Never(DeviceAuxiliaryOutput):{COPY}
"""})
    assert reported(lint()) == {("pkg.outputs.Never", "PPA001")}


def test_the_summary_line_counts_the_classes_that_could_not_be_judged(lint_project):
    root = lint_project({"pkg/outputs.py": UNKNOWN})
    for output_format in ("full", "concise"):
        result = run_console(["check", ".", "--output-format", output_format, "--no-cache"], root)
        assert result.returncode == 1
        assert f"Found 3 errors; {len(UNJUDGED)} unknown classes (see `ppaux-lint inventory`)." in result.stdout
    result = run_console(["check", "."], root)  # recorded, then replayed: the count survives the replay
    replayed = run_console(["check", "."], root)
    assert result.stdout == replayed.stdout and f"{len(UNJUDGED)} unknown classes" in replayed.stdout
    tree = run_console(["inventory", "."], root)
    assert "could not be judged: decorated by `magic.auto_pp`" in tree.stdout
    assert f"{len(UNJUDGED)} could not be judged" in tree.stdout
    data = json.loads(run_console(["inventory", ".", "--output-format", "json"], root).stdout)
    assert data["summary"]["unknown"] == len(UNJUDGED)


def test_a_run_with_nothing_to_report_still_counts_the_unknown_classes(lint_project):
    root = lint_project({"pkg/outputs.py": IMPORT_AUX + f"import magic\n\n\n@magic.auto_pp\nclass Out("
                                           f"DeviceAuxiliaryOutput):{COPY}"})
    result = run_console(["check", ".", "--output-format", "concise", "--no-cache"], root)
    assert result.returncode == 0
    assert result.stdout.strip().splitlines()[-1] == \
        "All checks passed! (2 files checked; 1 unknown class: see `ppaux-lint inventory`)"  # with __init__.py


# -- __getattr__ and the Python version ---------------------------------------------------------------------


DYNAMIC = IMPORT_AUX + f"""

class Lazy(DeviceAuxiliaryOutput):{COPY}
    def __getattr__(self, name):
        if name == "to_pp_tensors":
            return lambda: {{"a": self.a}}
        raise AttributeError(name)
"""


@pytest.mark.parametrize("requires, reported_on", [
    ('requires-python = ">=3.9,<3.12"', None),
    ('requires-python = "~=3.10.2"', None),
    ('requires-python = ">=3.10"', "on Python 3.12 and newer"),
    ("", "on Python 3.12 and newer"),
    ('requires-python = ">=3.12"', "on every Python it allows"),
], ids=["below-3.12", "compatible-3.10", "from-3.10", "undeclared", "from-3.12"])
def test_a_method_offered_only_through_getattr_depends_on_the_python_version(lint_project, requires, reported_on):
    lint_project({"pkg/outputs.py": DYNAMIC}, config=requires)  # in pyproject.toml's [project] table
    findings = lint()
    if reported_on is None:
        assert findings == []
        return
    finding = only(findings)
    assert finding.code == "PPA001" and reported_on in finding.message
    assert "only through `pkg.outputs.Lazy.__getattr__`" in finding.message
    assert ("declares no `requires-python`" if not requires else "the project allows") in finding.message


# -- names a class gets in forms its summary does not read ------------------------------------------------------------

PACK = IMPORT_AUX + IMPORT_OBS + """
import contextlib


def _pack(self):
    return {"a": self.a}


def _rebuild(self, tensors):
    return Out(tensors["a"])

"""
OBSERVER_OF_OUT = """

class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out(token_ids)

    def from_pp_tensors(self, tensors):
        return Out(tensors["a"])
"""


@pytest.mark.parametrize("binding, what", [
    ("to_pp_tensors, _spare = _pack, None", "an unpacking assignment"),
    ("(to_pp_tensors := _pack)", "an assignment expression (`:=`)"),
    ("from pkg.helpers import to_pp_tensors", "an import"),
    ("for to_pp_tensors in (_pack,):\n        pass", "a `for` loop"),
    ("with contextlib.nullcontext(_pack) as to_pp_tensors:\n        pass", "a `with` statement"),
], ids=["unpacking", "walrus", "import", "for", "with"])
def test_a_transport_method_bound_by_another_form_in_the_body_is_unknown(lint_project, binding, what):
    """Python binds the name in the class namespace by each of these forms: the class has the method, so no
    PPA001; the analysis does not read what it is, so the class is not judged, and inventory says how it is bound."""
    lint_project({"pkg/helpers.py": "def to_pp_tensors(self):\n    return {'a': self.a}\n",
                  "pkg/outputs.py": PACK + f"""
class Out(DeviceAuxiliaryOutput):{COPY}
    {binding}
""" + OBSERVER_OF_OUT})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    line = locate(Path("pkg/outputs.py").read_text(), binding.splitlines()[0])[0]
    assert {info.fqn: [t.what for t in info.unknown] for info in analysis.unjudged()} == {
        "pkg.outputs.Out": [f"its body binds `to_pp_tensors` by {what} (line {line})"]}


def test_exec_in_the_class_body_makes_its_namespace_unknown(lint_project):
    lint_project({"pkg/outputs.py": PACK + f"""
class Out(DeviceAuxiliaryOutput):{COPY}
    exec("def to_pp_tensors(self): return {{'a': self.a}}")
""" + OBSERVER_OF_OUT})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    [info] = analysis.unjudged()
    assert info.fqn == "pkg.outputs.Out" and "`exec()` in its body" in info.unknown[0].what


@pytest.mark.parametrize("store", [
    "self.to_pp_tensors = lambda: {'a': self.a}",
    "setattr(self, 'to_pp_tensors', lambda: {'a': self.a})",
    "self.to_pp_tensors, self.b = (lambda: {'a': self.a}), None",
], ids=["assignment", "setattr", "unpacking"])
def test_a_transport_method_set_on_instances_is_unknown(lint_project, store):
    """``isinstance`` against SGLang's runtime-checkable Protocols sees instance attributes: an instance that gets
    ``to_pp_tensors`` (or an observer that gets ``from_pp_tensors``) in a method is no finding, and inventory
    says which method sets it."""
    lint_project({"pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"""

class Out(DeviceAuxiliaryOutput):{COPY}
    def __init__(self, a):
        self.a = a
        {store}


class Obs(SamplingObserver):
    def __init__(self):
        self.from_pp_tensors = self._rebuild

    def _rebuild(self, tensors):
        return Out(tensors["a"])

    def after_sample(self, state, token_ids):
        return Out(token_ids)
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    whats = {info.fqn: info.unknown[0].what for info in analysis.unjudged()}
    assert whats == {
        "pkg.outputs.Out": "`__init__` sets `to_pp_tensors` on its instances (line 11), which the helpers' "
                           "isinstance check sees",
        "pkg.outputs.Obs": "`__init__` sets `from_pp_tensors` on its instances (line 16), which the helpers' "
                           "isinstance check sees",
    }


@pytest.mark.parametrize("decorator, field", [
    ("dataclasses.dataclass", "to_pp_tensors: Optional[Callable] = None"),
    ("dataclasses.dataclass(frozen=True)", "to_pp_tensors: Callable = _pack"),
    ("attrs.define", "to_pp_tensors: Optional[Callable] = None"),
], ids=["dataclass-none", "dataclass-function", "attrs"])
def test_a_transport_method_that_is_a_dataclass_field_is_unknown(lint_project, decorator, field):
    """A field is stored on each instance by the generated ``__init__``: ``Out(ids, to_pp_tensors=fn)`` sends its
    tensors although the class binds None (at run time, through SGLang's helpers), and a function bound as the
    default is called without ``self``. What the class binds is not what the helpers see: no PPA001, and inventory
    says why. A ``ClassVar`` is no field, and keeps its finding."""
    source = IMPORT_AUX + f"""import dataclasses
from typing import Callable, ClassVar, Optional

import attrs


def _pack(self):
    return {{"ids": self.ids}}


@{decorator}
class Out(DeviceAuxiliaryOutput):{COPY}
    ids: object
    {field}


@{decorator}
class Shared(DeviceAuxiliaryOutput):{COPY}
    ids: object
    to_pp_tensors: ClassVar[Optional[Callable]] = None
"""
    lint_project({"pkg/outputs.py": source})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Shared", "PPA001")}
    line = locate(source, field)[0]
    resolved = decorator.partition("(")[0]
    assert {info.fqn: [t.what for t in info.unknown] for info in analysis.unjudged()} == {
        "pkg.outputs.Out": [f"`to_pp_tensors` is a field (`{resolved}`), which `__init__` stores on each instance "
                            f"(line {line})"]}


def test_other_attributes_set_on_instances_leave_the_class_judged(lint_project):
    """Only the looked-up names count: an instance that gets ``to_pp_tensor`` (a misspelling) or any other
    attribute still lacks the method, and the finding stands."""
    lint_project({"pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"""

class Out(DeviceAuxiliaryOutput):{COPY}
    def __init__(self, a):
        self.a = a
        self.to_pp_tensor = lambda: {{'a': self.a}}
""" + OBSERVER_OF_OUT})
    assert reported(lint()) == {("pkg.outputs.Out", "PPA001")}


def test_what_init_subclass_sets_reaches_subclasses_not_the_class_itself(lint_project):
    """Python runs ``__init_subclass__`` on the subclasses only: the base returned itself lacks the method (SGLang
    raises), its subclass has it."""
    lint_project({"pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"""

class Base(DeviceAuxiliaryOutput):{COPY}
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.to_pp_tensors = lambda self: {{"a": self.a}}


class Sub(Base):
    pass


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Base() if state is None else Sub()
"""})
    assert {(code, fqn) for fqn, code in reported(lint())} >= {("PPA001", "pkg.outputs.Base")}
    assert ("pkg.outputs.Sub", "PPA001") not in reported(lint())


def test_what_a_members_set_name_sets_on_its_owner_is_the_class_s(lint_project):
    """Python calls ``__set_name__`` on each value of a new class's namespace: a descriptor from another module that
    sets ``owner.to_pp_tensors`` gives the class the method, one that only records its name gives nothing, and one
    that sets a computed name makes the class unknown rather than judged."""
    lint_project({
        "pkg/fields.py": """
class PPField:
    def __set_name__(self, owner, name):
        self.name = name
        def to_pp_tensors(inst):
            return {name: getattr(inst, "_" + name)}
        owner.to_pp_tensors = to_pp_tensors


class Named:
    def __set_name__(self, owner, name):
        self.name = name


class Child(PPField):
    pass


class Anything:
    def __set_name__(self, owner, name):
        setattr(owner, "get_" + name, lambda self: None)
""",
        "pkg/outputs.py": IMPORT_AUX + f"""
from pkg.fields import Anything, Child, Named, PPField


class Given(DeviceAuxiliaryOutput):{COPY}
    ids = PPField()


class Inherited(DeviceAuxiliaryOutput):{COPY}
    ids: object = Child()


class Missing(DeviceAuxiliaryOutput):{COPY}
    ids = Named()


class Unknown(DeviceAuxiliaryOutput):{COPY}
    ids = Anything()
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Missing", "PPA001")}
    [info] = analysis.unjudged()
    assert info.fqn == "pkg.outputs.Unknown"
    assert info.unknown[0].what.startswith("`setattr` with a computed name (line 20)")
    assert Path(info.unknown[0].path).name == "fields.py"


def test_set_name_runs_only_for_the_members_the_class_keeps(lint_project):
    """A member deleted later in the body is not in the class Python makes: its ``__set_name__`` never runs (the
    class lacks the method); one bound under a condition adds it under that condition."""
    lint_project({
        "pkg/fields.py": """
class PPField:
    def __set_name__(self, owner, name):
        def to_pp_tensors(inst):
            return {name: getattr(inst, "_" + name)}
        owner.to_pp_tensors = to_pp_tensors
""",
        "pkg/outputs.py": IMPORT_AUX + f"""
import os
from pkg.fields import PPField


class Deleted(DeviceAuxiliaryOutput):{COPY}
    ids = PPField()
    del ids


class Maybe(DeviceAuxiliaryOutput):{COPY}
    if os.environ.get("PP_FIELDS"):
        ids = PPField()


class Rebound(DeviceAuxiliaryOutput):{COPY}
    ids = 1
    del ids
    ids = PPField()


class MaybeDeleted(DeviceAuxiliaryOutput):{COPY}
    ids = PPField()
    if os.environ.get("NO_PP"):
        del ids
"""})
    assert reported(lint()) == {("pkg.outputs.Deleted", "PPA001")}


def test_a_classmethod_that_sets_a_transport_method_makes_it_unknown(lint_project):
    lint_project({"pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"""

class Out(DeviceAuxiliaryOutput):{COPY}
    @classmethod
    def enable_pp(cls):
        cls.to_pp_tensors = lambda self: {{"a": self.a}}
""" + OBSERVER_OF_OUT})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    [info] = analysis.unjudged()
    assert info.unknown[0].what.startswith("`enable_pp` sets `to_pp_tensors` on the class it is called on (line ")



def test_a_name_defined_twice_in_a_class_body_is_its_last_definition(lint_project):
    """Python keeps the last binding of a name in a class body: the first ``def`` of ``Good`` (empty) is replaced,
    the second of ``Bad`` (empty) replaces a good one, and ``to_pp_tensors = None`` after a ``def`` removes it."""
    lint_project({"pkg/outputs.py": PACK + f"""
class Good(DeviceAuxiliaryOutput):{COPY}
    def to_pp_tensors(self):
        return {{}}

    def to_pp_tensors(self):
        return {{"a": self.a}}


class Bad(DeviceAuxiliaryOutput):{COPY}
    def to_pp_tensors(self):
        return {{"a": self.a}}

    def to_pp_tensors(self):
        return {{}}


class Gone(DeviceAuxiliaryOutput):{COPY}
    def to_pp_tensors(self):
        return {{"a": self.a}}

    to_pp_tensors = None
"""})
    assert reported(lint()) == {("pkg.outputs.Bad", "PPA010"), ("pkg.outputs.Gone", "PPA001")}


def test_overload_stubs_before_the_real_method_are_replaced_by_it(lint_project):
    lint_project({"pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"""
from typing import overload


class Out(DeviceAuxiliaryOutput):{COPY}
    def __init__(self, a):
        self.a = a

    def to_pp_tensors(self):
        return {{"a": self.a}}


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out(token_ids)

    @overload
    def from_pp_tensors(self, tensors: dict) -> Out: ...

    @overload
    def from_pp_tensors(self, tensors: None) -> None: ...

    def from_pp_tensors(self, tensors):
        return Out(tensors["a"])
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == set() and analysis.unjudged() == []


@pytest.mark.parametrize("test", ["TYPE_CHECKING", "typing.TYPE_CHECKING"])
def test_a_method_under_type_checking_in_a_class_body_does_not_exist(lint_project, test):
    """The body of ``if TYPE_CHECKING:`` never runs: the mixin has no ``to_pp_tensors`` (SGLang raises), and what
    its ``else`` defines is the class's own."""
    lint_project({"pkg/outputs.py": PACK + f"""
import typing
from typing import TYPE_CHECKING


class SendMixin:
    if {test}:
        def to_pp_tensors(self):
            return {{"a": self.a}}


class Out(SendMixin, DeviceAuxiliaryOutput):{COPY}


class Other(DeviceAuxiliaryOutput):{COPY}
    if not {test}:
        def to_pp_tensors(self):
            return {{"a": self.a}}
    else:
        def to_pp_tensors(self):
            return {{}}
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Out", "PPA001")} and analysis.unjudged() == []


@pytest.mark.parametrize("body", [
    "if sys.version_info >= (3, 12):\n        def to_pp_tensors(self):\n            return {'a': self.a}",
    "def to_pp_tensors(self):\n        return {'a': self.a}\n    if sys.version_info >= (3, 12):\n"
    "        def to_pp_tensors(self):\n            return {'a': self.a.tolist()}",
    "try:\n        to_pp_tensors = _pack\n    except NameError:\n        to_pp_tensors = None",
], ids=["only-under-if", "rebound-under-if", "rebound-in-handler"])
def test_a_transport_method_bound_under_a_condition_is_unknown(lint_project, body):
    """Which binding holds depends on a condition the analysis does not decide (a version, a flag, an exception):
    the class is not judged (SGLang raises on some runs and not on others), and inventory says why."""
    lint_project({"pkg/outputs.py": PACK + f"""
import sys


class Out(DeviceAuxiliaryOutput):{COPY}
    {body}
""" + OBSERVER_OF_OUT})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    [info] = analysis.unjudged()
    assert info.fqn == "pkg.outputs.Out"
    assert info.unknown[0].what.startswith("its body binds `to_pp_tensors` under a condition (line ")


def test_a_decorator_stubbed_for_type_checkers_is_the_one_imported_for_real(lint_project):
    """``if TYPE_CHECKING: def pp_transport(cls): return cls`` / ``else: from ._impl import pp_transport``: at run
    time the name is the import, whose decorator adds the method (no PPA001 from the stub)."""
    lint_project({
        "pkg/_impl.py": "def pp_transport(cls):\n    cls.to_pp_tensors = lambda self: {'a': self.a}\n    return cls\n",
        "pkg/outputs.py": IMPORT_AUX + f"""
from typing import TYPE_CHECKING, TypeVar

T = TypeVar("T")

if TYPE_CHECKING:
    def pp_transport(cls: T) -> T:
        return cls
else:
    from pkg._impl import pp_transport


@pp_transport
class Out(DeviceAuxiliaryOutput):{COPY}
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == set() and analysis.unjudged() == []


@pytest.mark.parametrize("applied", ['pp_fields("scores")(Scores)',
                                     'for _cls in (Scores,):\n    pp_fields("scores")(_cls)'],
                         ids=["call", "loop"])
def test_a_factory_decorator_applied_by_a_call_standing_alone_is_followed(lint_project, applied):
    """``pp_fields("scores")(Scores)`` as a statement changes the class in place as ``@pp_fields("scores")``
    would: it has the method (no PPA001); ``Plain`` beside it, handed to nothing, still lacks it."""
    lint_project({
        "pkg/decorators.py": DECORATORS,
        "pkg/outputs.py": IMPORT_AUX + "from pkg.decorators import pp_fields\n\n\n"
                          f"class Scores(DeviceAuxiliaryOutput):{COPY}\n\nclass Plain(DeviceAuxiliaryOutput):{COPY}\n\n"
                          f"{applied}\n",
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Plain", "PPA001")} and analysis.unjudged() == []


def test_an_outside_registry_applied_by_a_call_standing_alone_leaves_the_class_judged(lint_project):
    """``registry.register("x")(Out)`` from a library discards what it returns, and the analysis cannot read it:
    as the call form ``registry.register("x", Out)``, it is taken to leave the class as it is (its PPA001 stands)."""
    lint_project({"pkg/outputs.py": IMPORT_AUX + "from elsewhere import registry\n\n\n"
                                     f"class Scores(DeviceAuxiliaryOutput):{COPY}\n\nregistry.register('x')(Scores)\n"})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Scores", "PPA001")} and analysis.unjudged() == []


def test_a_constant_bound_under_a_condition_is_no_constant(lint_project):
    """``KEY`` is "a" on one Python and "b" on another: keys computed from it are not known, so no key mismatch is
    reported either way."""
    lint_project({"pkg/outputs.py": IMPORT_AUX + IMPORT_OBS + f"""
import sys


class Out(DeviceAuxiliaryOutput):{COPY}
    if sys.version_info >= (3, 12):
        KEY = "a"
    else:
        KEY = "b"

    def __init__(self, x):
        self.x = x

    def to_pp_tensors(self):
        return {{self.KEY: self.x}}


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out(token_ids)

    def from_pp_tensors(self, tensors):
        return Out(tensors["a"])
"""})
    assert reported(lint()) == set()


def test_a_factory_s_decorator_bound_to_a_name_then_called_on_the_class_is_followed(lint_project):
    """``_deco = pp_fields("scores")`` then ``_deco(Scores)``: the module binds the decorator the factory returns,
    which then changes the class in place (no PPA001); ``Plain`` still lacks the method."""
    lint_project({
        "pkg/decorators.py": DECORATORS,
        "pkg/outputs.py": IMPORT_AUX + "from pkg.decorators import pp_fields\n\n\n"
                          f"class Scores(DeviceAuxiliaryOutput):{COPY}\n\nclass Plain(DeviceAuxiliaryOutput):{COPY}\n\n"
                          "_deco = pp_fields('scores')\n_deco(Scores)\n",
    })
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Plain", "PPA001")} and analysis.unjudged() == []
