"""Contract forms beyond the helpers' literal checks (issue 4, items 4 and 5): conditional returns, NumPy
values, returns that are not mappings, keyword and swapped helper arguments, constants that flow into a call
or a key, classes passed for instances, stub observers, and field annotations.

Each form has its positive cases, located exactly with ``locate``, and its silent counterparts. Positions
follow ``test_rules``: the ``return`` (or the branch of a conditional), the value, the call, the key.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from lintkit import lint, locate, positions
from test_rules import HEAD, at, check_module, observer_src, output_src

from ppaux_lint.facts.summarize.source import summarize_source

PP = "sglang.srt.sampling.sampling_observer_pp"
HELPERS = f"from {PP} import add_auxiliary_output_to_pp_tensors as add, pop_auxiliary_output_from_pp_tensors as pop\n"


def codes_at(findings: set[tuple[str, int, int, str]], code: str) -> set[tuple[str, int, int, str]]:
    return {f for f in findings if f[3] == code}


# -- conditional returns (PPA010-PPA013, PPA015) ------------------------------------------------------


def test_ppa010_points_at_the_empty_branch_of_a_conditional(lint_project):
    src = output_src('return {"a": self.a} if self.a is not None else {}')
    assert check_module(lint_project, src) == {at(src, "{}", "PPA010")}


def test_ppa010_nested_conditionals_give_a_fact_per_branch(lint_project):
    src = output_src('return {"a": self.a} if self.a is not None else (None if self.quiet else dict())')
    assert check_module(lint_project, src) == {at(src, "None if", "PPA010"), at(src, "dict()", "PPA010")}


def test_conditional_branches_are_judged_like_returns(lint_project):
    src = output_src('return {"": self.a} if self.flag else {"b": self.b.tolist(), "c": self.c, "c": self.d}')
    assert check_module(lint_project, src) == {
        at(src, '"": self.a', "PPA011"), at(src, "self.b.tolist()", "PPA012"), at(src, '"c"', "PPA013", nth=2)}


def test_ppa015_a_conditional_of_two_dicts_sends_both_key_sets(lint_project):
    to_pp = 'return {"a": self.a} if self.flag else {"b": self.b}'
    exact = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['b'])", to_pp=to_pp)
    assert check_module(lint_project, exact) == set()
    src = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['z'])", to_pp=to_pp)
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {at(src, "'z'", "PPA015"), at(src, '"b"', "PPA015")}
    assert any("it sends 'a', 'b'" in f.message for f in findings)


SUBCLASS_SENDS_ANOTHER = HEAD + """

class Out1(DeviceAuxiliaryOutput):
    def __init__(self, a):
        self.a = a

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"a": self.a}


class Out2(Out1):
    def to_pp_tensors(self):
        return {"b": self.a}


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out1(token_ids)

    def from_pp_tensors(self, tensors):
        return Out1(tensors["a"])


class Same(Obs):
    def after_sample(self, state, token_ids):
        return Out1(state)


class Sub(Obs):
    def after_sample(self, state, token_ids):
        return Out2(token_ids)
"""


def test_ppa015_an_observer_that_inherits_from_pp_tensors_is_judged_by_the_output_it_sends(lint_project):
    """``Sub`` inherits the ``from_pp_tensors`` that reads ``Out1``'s key but sends ``Out2``, whose key differs:
    SGLang's pop raises KeyError('a') on the first stage. The base and a subclass that sends ``Out1`` are right."""
    lint_project({"pkg/mod.py": SUBCLASS_SENDS_ANOTHER})
    findings = [f for f in lint() if f.code == "PPA015"]
    src = SUBCLASS_SENDS_ANOTHER
    assert positions(findings, Path.cwd()) == {at(src, '"a"]', "PPA015"), at(src, '"b"', "PPA015")}
    assert {f.symbol for f in findings} == {"pkg.mod.Sub", "pkg.mod.Out2"}
    assert all("for the `pkg.mod.Out2` that `pkg.mod.Sub.after_sample` returns" in f.message for f in findings)


WIDENED = SUBCLASS_SENDS_ANOTHER.replace(
    "        return Out2(token_ids)",
    "        out = Out2(token_ids)\n"
    "        if self.widen is not None:\n"
    "            out = self.widen(out)\n"
    "        return out\n\n"
    "    widen = staticmethod(lambda out: Out1(out.a))")


def test_ppa015_an_after_sample_that_may_return_something_else_is_not_judged_by_what_it_builds(lint_project):
    """``after_sample`` builds ``Out2`` but may hand it to a callable that returns what the inference cannot
    follow (here ``Out1``, as the observer expects): no path is certain, so the pairing stands."""
    assert WIDENED != SUBCLASS_SENDS_ANOTHER
    lint_project({"pkg/mod.py": WIDENED})
    assert [f for f in lint() if f.code == "PPA015"] == []


def test_ppa014_reports_the_none_branch_of_a_conditional(lint_project):
    src = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['b']) if tensors else None")
    assert check_module(lint_project, src) == {at(src, "None\n", "PPA014")}


# -- returns that are not mappings (PPA010 when empty, PPA019 otherwise) ---------------------------------


@pytest.mark.parametrize("empty, type_name", [
    ("[]", "list"), ("()", "tuple"), ("set()", "set"), ("list()", "list"), ("tuple()", "tuple"),
])
def test_ppa010_empty_sequences_fail_the_emptiness_check_first(lint_project, empty, type_name):
    src = output_src(f'if self.a is None:\n    return {empty}\nreturn {{"a": self.a}}')
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA010", *locate(src, f"return {empty}"))
    assert f"returns an empty {type_name}" in finding.message
    assert "auxiliary PP output must contain at least one tensor" in finding.message


@pytest.mark.parametrize("body, type_name, may_be_empty", [
    ('return [("a", self.a), ("b", self.b)]', "list", False),
    ('return ("a", self.a)', "tuple", False),
    ('return "a", self.a', "tuple", False),
    ('return {("a", self.a)}', "set", False),
    ("return [*self.pairs]", "list", True),
    ("return [(name, t) for name, t in self.parts]", "list", True),
    ("return {(name, t) for name, t in self.parts}", "set", True),
    ("return ((name, t) for name, t in self.parts)", "generator", False),
    ("return list(self.parts.items())", "list", True),
    ("return tuple(self.pairs)", "tuple", True),
    ("return sorted(self.parts.items())", "list", True),
    ("return zip(self.names, self.values)", "zip", False),
    ("return zip()", "zip", False),
    ("return map(self.pair, self.names)", "map", False),
    ("return enumerate(self.values)", "enumerate", False),
], ids=["list-of-pairs", "tuple", "bare-tuple", "set", "starred", "list-comprehension", "set-comprehension",
        "generator", "list-call", "tuple-call", "sorted", "zip", "empty-zip", "map", "enumerate"])
def test_ppa019_not_a_mapping_points_at_the_return(lint_project, body, type_name, may_be_empty):
    src = output_src(body)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA019", *locate(src, body))
    assert f"AttributeError: '{type_name}' object has no attribute 'items'" in finding.message
    assert ("auxiliary PP output must contain at least one tensor" in finding.message) == may_be_empty


def test_ppa019_points_at_the_branch_of_a_conditional(lint_project):
    src = output_src('return {"a": self.a} if self.a is not None else [("b", self.b)]')
    assert check_module(lint_project, src) == {at(src, '[("b"', "PPA019")}


@pytest.mark.parametrize("body", [
    "return dict(zip(self.names, self.values))",
    "return dict(self.pairs)",
    "return {name: t for name, t in self.parts}",
    "return self.pairs",
    "return self.as_mapping()",
    "return zip(self.names, self.values)",
    "return list(self.pairs)",
    "return sorted()",
], ids=["dict-of-zip", "dict-of-pairs", "dict-comprehension", "attribute", "method", "shadowed-zip",
        "shadowed-list", "sorted-without-argument"])
def test_ppa019_silent_on_mappings_and_unknown_returns(lint_project, body):
    head = HEAD + "from pkg.util import list, zip\n"
    util = "def zip(*parts):\n    return dict(parts)\n\n\ndef list(pairs):\n    return dict(pairs)\n"
    root = lint_project({"pkg/mod.py": output_src(body, head=head), "pkg/util.py": util})
    assert positions(lint(), root) == set()


# -- NumPy values (PPA012) ------------------------------------------------------------------------------


@pytest.mark.parametrize("head, value, constructor", [
    ("import numpy as np\n", "np.zeros(3)", "numpy.zeros"),
    ("import numpy as np\n", "np.asarray(self.a)", "numpy.asarray"),
    ("import numpy as np\n", "np.array(self.values)", "numpy.array"),
    ("import numpy\n", "numpy.ones_like(self.a)", "numpy.ones_like"),
    ("from numpy import arange\n", "arange(4)", "numpy.arange"),
], ids=["np-zeros", "np-asarray", "np-array", "numpy-ones-like", "from-import"])
def test_ppa012_numpy_constructors_are_not_tensors(lint_project, head, value, constructor):
    src = output_src(f'return {{"a": self.a, "np": {value}}}', head=HEAD + head)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA012", *locate(src, value))
    assert f"a NumPy array ({constructor}())" in finding.message


@pytest.mark.parametrize("head, value", [
    ("", "np.zeros(3)"),
    ("import numpy as np\n", "torch.from_numpy(np.zeros(3))"),
    ("import jax.numpy as np\n", "np.zeros(3)"),
    ("import numpy as np\n", "np.random.default_rng().random(3)"),
], ids=["unresolved-np", "from-numpy", "jax-numpy", "unknown-numpy-call"])
def test_ppa012_silent_on_calls_that_are_not_numpy_arrays(lint_project, head, value):
    src = output_src(f'return {{"np": {value}}}', head=HEAD + head)
    assert check_module(lint_project, src) == set()


# -- field annotations (PPA012) -------------------------------------------------------------------------

FIELD_HEAD = HEAD + "from dataclasses import dataclass\nfrom typing import List, Optional, Sequence\n\nimport numpy as np\n"


def dataclass_output(annotation: str, *, base: str = "DeviceAuxiliaryOutput", head: str = FIELD_HEAD,
                     extra: str = "") -> str:
    return (f"{head}\n\n@dataclass\nclass Out({base}):\n    ids: torch.Tensor\n    lengths: {annotation}\n\n"
            "    def copy_to_host(self, copy_tensor):\n        return self\n\n    def to_pp_tensors(self):\n"
            '        return {"ids": self.ids, "lengths": self.lengths}\n' + extra)


@pytest.mark.parametrize("annotation, kind", [
    ("list[torch.Tensor]", "a list"), ("List[torch.Tensor]", "a list"), ("tuple[int, ...]", "a tuple"),
    ("dict[str, torch.Tensor]", "a dict"), ("Sequence[torch.Tensor]", "a sequence"), ("int", "an int"),
    ("float", "a float"), ("str", "a str"), ("bool", "a bool"), ("np.ndarray", "a NumPy array"),
])
def test_ppa012_a_field_annotated_as_a_non_tensor(lint_project, annotation, kind):
    src = dataclass_output(annotation)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA012", *locate(src, "self.lengths}"))
    assert f"returns {kind} (field `lengths: {annotation}`) under 'lengths'" in finding.message


def test_ppa012_a_field_declared_in_a_base_class(lint_project):
    base = dataclass_output("list[torch.Tensor]").replace("class Out(", "class Base(")
    src = base + "\n\nclass Out(Base):\n    pass\n"
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert finding.code == "PPA012" and finding.symbol == "pkg.mod.Base"


@pytest.mark.parametrize("annotation", [
    "torch.Tensor", "Optional[torch.Tensor]", "torch.Tensor | None", "'list[int]'", "Mystery", "list[int] | None",
])
def test_ppa012_silent_on_fields_that_may_be_tensors(lint_project, annotation):
    assert check_module(lint_project, dataclass_output(annotation)) == set()


@pytest.mark.parametrize("extra", [
    "\n    def __post_init__(self):\n        self.lengths = torch.stack(self.lengths)\n",
    "\n    def normalize(self):\n        setattr(self, 'lengths', torch.stack(self.lengths))\n",
    "\n    def __init__(self, ids, lengths):\n        self.ids = ids\n        self.lengths = torch.stack(lengths)\n",
], ids=["post-init", "setattr-in-a-method", "init-from-a-call"])
def test_ppa012_silent_on_a_field_a_method_stores_to(lint_project, extra):
    """What a method stores may be a tensor whatever the field says: the annotation is no certainty."""
    src = dataclass_output("list[torch.Tensor]").replace("    def copy_to_host", extra.lstrip("\n") + "\n    def copy_to_host")
    assert check_module(lint_project, src) == set()


def test_ppa012_silent_on_an_attrs_field_with_a_converter(lint_project):
    """The instance holds what the converter makes; the annotation is the type it accepts."""
    src = FIELD_HEAD + """import attrs


@attrs.define
class Out(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    lengths: list[int] = attrs.field(converter=torch.as_tensor)

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"ids": self.ids, "lengths": self.lengths}
"""
    assert check_module(lint_project, src) == set()
    assert check_module(lint_project, src.replace("converter=torch.as_tensor", "factory=list")) != set()


@pytest.mark.parametrize("samples, reported", [
    ("", set()),  # only Out runs Base's method, and its instances hold a tensor
    ("\n\nSAMPLE = Base(None, [])\n", {("PPA012", "pkg.mod.Base")}),  # Base's own instances keep the list
])
def test_ppa012_a_field_a_subclass_method_stores_to(lint_project, samples, reported):
    base = dataclass_output("list[torch.Tensor]").replace("class Out(", "class Base(")
    src = base + "\n\nclass Out(Base):\n    def __post_init__(self):\n        self.lengths = torch.stack(self.lengths)\n" \
        + samples
    lint_project({"pkg/mod.py": src})
    assert {(f.code, f.symbol) for f in lint()} == reported


def test_ppa012_init_storing_a_parameter_declared_as_the_field_keeps_it_certain(lint_project):
    init = "\n    def __init__(self, ids, lengths: list[torch.Tensor]):\n        self.ids = ids\n        self.lengths = lengths\n"
    src = dataclass_output("list[torch.Tensor]").replace("    def copy_to_host", init.lstrip("\n") + "\n    def copy_to_host")
    lint_project({"pkg/mod.py": src})
    assert {f.code for f in lint()} == {"PPA012"}


def test_ppa012_silent_when_a_class_along_the_mro_redefines_the_attribute(lint_project):
    src = FIELD_HEAD + """

class Declared:
    lengths: list[torch.Tensor]


class Computed(Declared):
    @property
    def lengths(self):
        return torch.stack(self.parts)


class Out(Computed, DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"lengths": self.lengths}
"""
    assert check_module(lint_project, src) == set()


def test_ppa012_silent_when_a_base_cannot_be_seen(lint_project):
    src = dataclass_output("list[torch.Tensor]", base="DeviceAuxiliaryOutput, Mystery",
                           head=FIELD_HEAD + "from thirdparty import Mystery\n")
    assert check_module(lint_project, src) == set()


# -- helper calls (PPA020) --------------------------------------------------------------------------------

CLASSES = HEAD + f"""from {PP} import PipelineParallelAuxiliaryOutput, PipelineParallelSamplingObserver


class NoPP(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self


class WithPP(NoPP):
    def to_pp_tensors(self):
        return {{"a": self.a}}


class StubOut(NoPP, PipelineParallelAuxiliaryOutput):  # noqa: PPA018
    pass


class PlainObs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return None


class PPObs(PlainObs):
    def from_pp_tensors(self, tensors):
        return WithPP()


class StubObs(PlainObs, PipelineParallelSamplingObserver):  # noqa: PPA018
    pass


class StaticObs(PlainObs):
    @staticmethod
    def from_pp_tensors(tensors):
        return WithPP()


class MappingObs(PPObs):
    def items(self):
        return ()
"""


def ppa020(lint_project, glue: str) -> set[tuple[str, int, int, str]]:
    root = lint_project({"pkg/classes.py": CLASSES, "pkg/glue.py": HELPERS + glue})
    return {p for p in positions(lint(), root) if p[0] == "pkg/glue.py"}


def glue_at(glue: str, needle: str) -> tuple[str, int, int, str]:
    return at(HELPERS + glue, needle, "PPA020", path="pkg/glue.py")


def messages(lint_project, glue: str) -> list[str]:
    lint_project({"pkg/classes.py": CLASSES, "pkg/glue.py": HELPERS + glue})
    return [f.message for f in lint() if f.code == "PPA020"]


@pytest.mark.parametrize("call, error", [
    ("pop(tensors=t, observer=None)", "received auxiliary PP output without a sampling observer"),
    ("pop(t, observer=None)", "received auxiliary PP output without a sampling observer"),
    ("pop(observer=PlainObs(), tensors=t)", "sampling observer does not support pipeline-parallel transport"),
    ("add(tensors=t, output=NoPP())", "auxiliary output does not support pipeline-parallel transport"),
    ("add(output=NoPP(), tensors=t)", "auxiliary output does not support pipeline-parallel transport"),
], ids=["pop-keywords", "pop-mixed", "pop-reordered", "add-keywords", "add-reordered"])
def test_ppa020_keyword_arguments(lint_project, call, error):
    glue = f"from pkg.classes import NoPP, PlainObs\n\n\ndef run(t):\n    {call}\n"
    assert ppa020(lint_project, glue) == {glue_at(glue, call)}
    (message,) = messages(lint_project, glue)
    assert error in message


@pytest.mark.parametrize("call", [
    "pop(t, observer=observer)", "pop(*args)", "pop(t, *args)", "pop(t, **options)", "pop(t, None, extra=1)",
    "pop(observer=None)", "pop(t, tensors=None)", "add(t, output=WithPP())",
], ids=["unknown", "star", "star-second", "star-star", "unknown-keyword", "missing-tensors", "twice", "good"])
def test_ppa020_silent_when_the_arguments_do_not_map_or_are_fine(lint_project, call):
    glue = f"from pkg.classes import WithPP\n\n\ndef run(t, observer, args, options):\n    {call}\n"
    assert ppa020(lint_project, glue) == set()


@pytest.mark.parametrize("body", [
    "observer = None\npop(t, observer)",
    "observer: object = None\npop(t, observer)",
    "obs = PlainObs()\npop(t, observer=obs)",
    "if flag:\n    observer = None\npop(t, observer)",
    "observer = None\nalias = observer\npop(t, alias)",
    "observer = None\n\ndef later(d):\n    return pop(d, observer)\n\nlater(t)",
], ids=["local-none", "annotated", "local-instance-keyword", "bound-in-a-branch", "alias", "closure"])
def test_ppa020_a_local_bound_once_flows_into_the_call(lint_project, body):
    glue = "from pkg.classes import PlainObs\n\n\ndef run(t, flag):\n" + textwrap.indent(body, "    ") + "\n"
    assert ppa020(lint_project, glue) == {glue_at(glue, "pop(")}


@pytest.mark.parametrize("body", [
    "observer = None\nobserver = make()\npop(t, observer)",
    "observer = None\nfor observer in observers:\n    pop(t, observer)",
    "for _ in observers:\n    pop(t, observer)\n    observer = None",
    "if flag:\n    observer = PPObs()\nelse:\n    observer = None\npop(t, observer)",
    "observer = None\nwith make() as observer:\n    pop(t, observer)",
    "observer = None\ntry:\n    pass\nexcept Exception as observer:\n    pop(t, observer)",
    "observer = None\nif (observer := make()):\n    pop(t, observer)",
    "observer = None\ndel observer\npop(t, observer)",
    "observer = None\nfrom pkg.classes import PPObs as observer\npop(t, observer)",
    "observer = None\n\ndef observer():\n    pass\n\npop(t, observer)",
    "observer = None\n\ndef swap():\n    nonlocal observer\n    observer = PPObs()\n\nswap()\npop(t, observer)",
    "observer = None\nmatch flag:\n    case PPObs() as observer:\n        pass\npop(t, observer)",
    "observer = None\nfix = lambda observer: pop(t, observer)",
    "pop(t, param)",
], ids=["rebound", "loop-target", "bound-after-use", "two-branches", "with", "except", "walrus", "del",
        "import", "def", "nonlocal", "match", "lambda-parameter", "parameter"])
def test_ppa020_silent_when_a_local_is_bound_more_than_once(lint_project, body):
    glue = ("from pkg.classes import PPObs\n\n\ndef make():\n    return PPObs()\n\n\n"
            "def run(t, flag, observers, param=None):\n" + textwrap.indent(body, "    ") + "\n")
    assert ppa020(lint_project, glue) == set()


def test_ppa020_a_module_level_placeholder_is_not_a_constant(lint_project):
    glue = "OBSERVER = None\n\n\ndef run(t):\n    pop(t, OBSERVER)\n"
    assert ppa020(lint_project, glue) == set()


def test_ppa020_a_global_rebinding_forgets_a_module_level_binding(lint_project):
    glue = ("from pkg.classes import PlainObs\n\nobserver = PlainObs()\n\n\ndef install(o):\n    global observer\n"
            "    observer = o\n\n\npop({}, observer)\n")
    assert ppa020(lint_project, glue) == set()
    constant = glue.replace("    global observer\n    observer = o\n", "    pass\n")
    assert ppa020(lint_project, constant) == {glue_at(constant, "pop(")}


@pytest.mark.parametrize("call, error", [
    ("pop(t, PPObs)", "TypeError: PPObs.from_pp_tensors() missing 1 required positional argument: 'tensors'"),
    ("pop(t, PlainObs)", "sampling observer does not support pipeline-parallel transport"),
    ("pop(t, classes.PPObs)", "TypeError: PPObs.from_pp_tensors() missing 1 required positional argument: 'tensors'"),
    ("pop(t, StubObs)", "TypeError: PipelineParallelSamplingObserver.from_pp_tensors() missing 1 required "
                        "positional argument: 'tensors'"),
    ("add(t, WithPP)", "TypeError: WithPP.to_pp_tensors() missing 1 required positional argument: 'self'"),
    ("add(t, NoPP)", "auxiliary output does not support pipeline-parallel transport"),
], ids=["pop-class", "pop-class-without-method", "pop-module-attribute", "pop-stub-class", "add-class",
        "add-class-without-method"])
def test_ppa020_a_class_passed_where_an_instance_belongs(lint_project, call, error):
    glue = ("from pkg import classes\nfrom pkg.classes import NoPP, PlainObs, PPObs, StubObs, WithPP\n\n\n"
            f"def run(t):\n    {call}\n")
    assert ppa020(lint_project, glue) == {glue_at(glue, call)}
    (message,) = messages(lint_project, glue)
    assert "itself" in message and error in message


@pytest.mark.parametrize("glue", [
    "from pkg.classes import StaticObs\n\n\ndef run(t):\n    pop(t, StaticObs)\n",
    "def run(t, PPObs):\n    pop(t, PPObs)\n",
    "from pkg.classes import PPObs\n\n\ndef run(t):\n    PPObs = PPObs()\n    pop(t, PPObs)\n",
    "from pkg.classes import PPObs\n\nPPObs = PPObs()\n\n\ndef run(t):\n    pop(t, PPObs)\n",
], ids=["staticmethod", "parameter-shadows-the-class", "local-shadows-the-class", "module-rebinding"])
def test_ppa020_silent_when_the_class_is_not_what_is_passed_or_binds(lint_project, glue):
    assert ppa020(lint_project, glue) == set()


@pytest.mark.parametrize("call, error", [
    ("add(WithPP(), t)", "auxiliary output does not support pipeline-parallel transport"),
    ("add(output=t, tensors=WithPP())", "auxiliary output does not support pipeline-parallel transport"),
    ("pop(PPObs(), t)", "AttributeError: 'PPObs' object has no attribute 'items'"),
], ids=["add", "add-keywords", "pop"])
def test_ppa020_swapped_arguments(lint_project, call, error):
    glue = f"from pkg.classes import PPObs, WithPP\n\n\ndef run(t):\n    {call}\n"
    assert ppa020(lint_project, glue) == {glue_at(glue, call)}
    (message,) = messages(lint_project, glue)
    assert "swapped" in message and error in message


@pytest.mark.parametrize("call", [
    "add(t, WithPP())", "add(WithPP(), None)", "add(WithPP(), WithPP())", "pop(MappingObs(), t)",
    "pop(PPObs(), PPObs())", "pop(t, PPObs())",
], ids=["right-order", "none-output", "two-outputs", "mapping-observer", "two-observers", "pop-right-order"])
def test_ppa020_silent_when_the_order_is_right_or_unclear(lint_project, call):
    glue = f"from pkg.classes import MappingObs, PPObs, WithPP\n\n\ndef run(t):\n    {call}\n"
    assert ppa020(lint_project, glue) == set()


@pytest.mark.parametrize("call, error", [
    ("pop(t, StubObs())", "sampling observer did not reconstruct its PP output"),
    ("add(t, StubOut())", "auxiliary PP output must contain at least one tensor"),
], ids=["observer", "output"])
def test_ppa020_an_instance_that_keeps_the_protocol_stub(lint_project, call, error):
    glue = f"from pkg.classes import StubObs, StubOut\n\n\ndef run(t):\n    {call}\n"
    assert ppa020(lint_project, glue) == {glue_at(glue, call)}
    (message,) = messages(lint_project, glue)
    assert "stub" in message and error in message


# -- the key prefix through a constant (PPA021) ---------------------------------------------------------


def test_ppa021_a_module_constant_flows_into_keys(lint_project):
    src = '''
_PREFIX = "__sampling_observer_output__."
ENTROPY_KEY = _PREFIX + "entropy"
FULL_KEY: str = "__sampling_observer_output__.margin"


def read(tensors, name):
    key = _PREFIX + name
    a = tensors[_PREFIX + name]
    b = tensors[f"{_PREFIX}{name}"]
    c = tensors.get(_PREFIX + "x" + name)
    d = tensors.pop(ENTROPY_KEY, None)
    e = FULL_KEY in tensors
    f = tensors.get(key)
    tensors["__sampling_observer_output__." + name] = a
    return a, b, c, d, e, f
'''
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {
        at(src, "_PREFIX + name]", "PPA021"), at(src, 'f"{_PREFIX}', "PPA021"), at(src, '_PREFIX + "x"', "PPA021"),
        at(src, "ENTROPY_KEY, None", "PPA021"), at(src, "FULL_KEY in", "PPA021"), at(src, "key)", "PPA021"),
        at(src, '"__sampling_observer_output__." + name]', "PPA021"),
    }
    through = {f.span.line: f.message for f in findings}
    assert "through `_PREFIX`" in through[locate(src, "_PREFIX + name]")[0]]
    assert "through `ENTROPY_KEY`" in through[locate(src, "ENTROPY_KEY, None")[0]]


# The prefilter reads only files that mention a token of the contract; this comment is one.
MENTION = "# peeks at what add_auxiliary_output_to_pp_tensors stored\n"
IMPORTED_PREFIXES = [
    (f"from {PP} import _OUTPUT_PREFIX", "_OUTPUT_PREFIX", f"{PP}._OUTPUT_PREFIX"),
    (f"from {PP} import _OUTPUT_PREFIX as P", "P", f"{PP}._OUTPUT_PREFIX"),
    (f"import {PP} as pp", "pp._OUTPUT_PREFIX", f"{PP}._OUTPUT_PREFIX"),
    ("from ppaux_lint.runtime.core import PP_OUTPUT_KEY_PREFIX", "PP_OUTPUT_KEY_PREFIX",
     "ppaux_lint.runtime.core.PP_OUTPUT_KEY_PREFIX"),
]
IMPORTED_IDS = ["sglang", "sglang-aliased", "sglang-module", "ppaux-runtime"]


@pytest.mark.parametrize("statement, name, target", IMPORTED_PREFIXES, ids=IMPORTED_IDS)
def test_ppa021_a_helper_module_prefix_constant(lint_project, statement, name, target):
    src = f"{MENTION}{statement}\n\n\ndef read(tensors, key):\n    return tensors[{name} + key]\n"
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA021", *locate(src, f"{name} + key"))
    assert f"through `{name}` ({target})" in finding.message


def test_ppa021_a_helper_module_prefix_constant_passes_the_prefilter(lint_project):
    src = f"from {PP} import _OUTPUT_PREFIX\n\n\ndef read(tensors, key):\n    return tensors[_OUTPUT_PREFIX + key]\n"
    lint_project({"pkg/mod.py": src})
    assert [f.code for f in lint()] == ["PPA021"]


@pytest.mark.parametrize("files", [
    {"pkg/mod.py": '_PREFIX = "__sampling_observer_output__."\n_PREFIX = "other."\n\n\n'
                   "def read(tensors, k):\n    return tensors[_PREFIX + k]\n"},
    {"pkg/mod.py": '_PREFIX = "__sampling_observer_output__."\n\n\n'
                   "def read(tensors, k, _PREFIX):\n    return tensors[_PREFIX + k]\n"},
    {"pkg/mod.py": '_PREFIX = "__sampling_observer_output__."\n\n\n'
                   "def read(tensors, k):\n    return tensors[f\"{_PREFIX!r}{k}\"], tensors[k + _PREFIX]\n"},
    {"pkg/mod.py": '_PREFIX = "__sampling_observer_output__."\n\n\ndef reset():\n    global _PREFIX\n'
                   '    _PREFIX = "x."\n\n\ndef read(tensors, k):\n    return tensors[_PREFIX + k]\n'},
    {"pkg/mod.py": MENTION + "from pkg.consts import _OUTPUT_PREFIX\n\n\ndef read(tensors, k):\n"
                   "    return tensors[_OUTPUT_PREFIX + k]\n",
     "pkg/consts.py": '_OUTPUT_PREFIX = "mine."\n'},
    {"pkg/mod.py": MENTION + "from thirdparty import _OUTPUT_PREFIX\n\n\ndef read(tensors, k):\n"
                   "    return tensors[_OUTPUT_PREFIX + k]\n"},
    {"pkg/mod.py": MENTION + 'def read(tensors):\n    return "sampling_observer_output" in tensors, tensors["x." + "y"]\n'},
], ids=["rebound", "parameter", "repr-and-suffix", "global", "own-constant-of-the-same-name", "unknown-import",
        "not-the-prefix"])
def test_ppa021_silent_when_the_key_does_not_certainly_start_with_the_prefix(lint_project, files):
    root = lint_project(files)
    assert positions(lint(), root) == set()


# -- what the summary records about names --------------------------------------------------------------


@pytest.mark.parametrize("body, kinds, keywords", [
    ("observer = None\npop(t, observer)", ("", "none"), ()),
    ("pop(t, *more)", ("", "*"), ()),
    ("pop(t, **more)", ("",), (("**", ""),)),
    ("pop(tensors=t, observer=Obs())", (), (("tensors", ""), ("observer", "construct:Obs"))),
    ("pop(t, Obs)", ("", "name:Obs"), ()),
    ("pop(t, self.observer)", ("", ""), ()),
    ("Obs = make()\npop(t, Obs())", ("", ""), ()),
], ids=["local-none", "star", "star-star", "keywords", "class", "attribute-of-a-parameter", "local-callee"])
def test_call_sites_record_what_each_argument_is(body, kinds, keywords):
    src = (HELPERS + "from pkg.classes import Obs\n\n\ndef run(t, more, self):\n"
           + textwrap.indent(body, "    ") + "\n")
    (call,) = summarize_source(src.encode(), "glue.py", "pkg.glue", False).calls
    assert (call.arg_kinds, call.keywords) == (kinds, keywords)
