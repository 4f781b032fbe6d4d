"""Forms that were missed (issue 22, item 4): a mapping ``to_pp_tensors`` builds step by step in a local, and
an attribute whose type is the annotation of the ``__init__`` parameter it is stored from.

A step-built dict is judged as a literal is, path by path: what the mapping may hold at each ``return``.
Each test holds a reported form beside the silent ones it must not be confused with, in one module, so that
the expected set of findings says both.
"""

from __future__ import annotations

import textwrap

import pytest
from lintkit import lint
from test_rules import HEAD, at, check_module, observer_src, output_src

from ppaux_lint.facts.summarize.source import summarize_source


def outputs(*bodies: str, head: str = HEAD) -> str:
    """One module with an output class per ``to_pp_tensors`` body: ``Out0``, ``Out1``, ..."""
    return "".join(output_src(body, name=f"Out{n}", head=head if n == 0 else "") for n, body in enumerate(bodies))


def returned(body: str):
    src = "class Out:\n    def to_pp_tensors(self):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    (cls,) = summarize_source(src.encode(), "mod.py", "mod", False).classes
    return cls.method("to_pp_tensors").returns


# -- what the summary records --------------------------------------------------------------------------


def test_a_step_built_dict_is_a_dict_fact_with_its_items():
    (fact,) = returned('''
        out = {}
        out["ids"] = self.ids
        out.update({"mask": self.mask}, lengths=self.lengths.tolist())
        for name in ("scores", "probs"):
            out[name] = getattr(self, name)
        return out
    ''')
    assert (fact.kind, fact.exact, fact.built) == ("dict", True, True)
    assert [(i.key.value, i.attribute, i.not_tensor) for i in fact.items] == [
        ("ids", "ids", ""), ("mask", "mask", ""), ("lengths", "", "a Python list (.tolist())"),
        ("scores", "scores", ""), ("probs", "probs", "")]


@pytest.mark.parametrize("body, always", [
    ('out = {"a": self.a}\nif self.b is not None:\n    out["b"] = self.b\nreturn out', ("a",)),
    ('out = {}\nout["a"] = self.a\nout.setdefault("b", self.b)\nreturn out', ("a", "b")),
    ('out = {}\nif self.flag:\n    out["a"] = self.a\nelse:\n    out["a"] = self.b\n    out["b"] = self.b\nreturn out',
     ("a",)),
    ('out = {"a": self.a, "b": self.b}\nif self.flag:\n    del out["a"]\nreturn out', ("b",)),
    ('out = {"a": self.a, "b": self.b}\nout.pop("b", None)\nreturn out', ("a",)),
    ('out = {"a": self.a}\nout.update(self.extra)\nreturn out', ("a",)),  # a merge adds, never takes out
    ('out = {"a": self.a}\nout.pop(self.key)\nreturn out', ()),  # which key is not known
    ('out = {"a": self.a}\nif self.flag:\n    out.clear()\nreturn out', ()),
    ('out = {"a": self.a}\nself.fill(out)\nreturn out', ()),  # the callee may take it out
    ('out = {}\nfor name in self.names:\n    out[name] = getattr(self, name)\nout["a"] = self.a\nreturn out', ("a",)),
    ('out = {}\nfor _ in self.rows:\n    out["a"] = self.a\nreturn out', ()),  # the loop may not run
    ('out = {}\ntry:\n    out["a"] = self.a\nexcept KeyError:\n    pass\nreturn out', ()),  # cut short
], ids=["literal-then-maybe", "assigned-and-setdefault", "both-branches", "deleted-on-a-path", "popped", "merged",
        "unknown-pop", "maybe-cleared", "escaped", "after-a-loop", "in-a-loop", "in-a-try"])
def test_a_step_built_dict_knows_the_keys_every_path_puts_there(body, always):
    """``always``: what PPA014 trusts to arrive at the first stage, so only keys put there on every path and taken
    out on none."""
    (fact,) = returned(body)
    assert (fact.kind, fact.built, fact.always) == ("dict", True, always)


@pytest.mark.parametrize("body, exact, keys", [
    ('out = {}\nout[self.keys[0]] = self.a\nreturn out', False, ["self.keys[0]"]),
    ('out = {"a": self.a}\nout.update(self.extra)\nreturn out', False, ["a"]),
    ('out = dict(self.base, a=self.a)\nreturn out', False, ["a"]),
    ('out = {"a": self.a}\nself.fill(out)\nreturn out', False, []),
    ('out = {"a": self.a}\nself.cache = out\nout["b"] = self.b\nreturn out', False, ["b"]),
    ('out = {"a": self.a}\nif "a" in out and len(out) and out.get("a") is not None:\n    out["b"] = out["a"]\n'
     'return out', True, ["a", "b"]),
    ('out = {"a": self.a, "b": self.b}\ndel out["a"]\nout.pop("b")\nreturn out', True, []),
    ('out = {"a": self.a}\nout.pop(self.key)\nreturn out', False, []),
], ids=["dynamic-key", "unseen-merge", "dict-of-a-mapping", "escape", "escape-then-add", "reads", "removals",
        "unknown-removal"])
def test_what_makes_a_step_built_dict_inexact(body, exact, keys):
    (fact,) = returned(body)
    assert (fact.kind, fact.exact) == ("dict", exact)
    assert [i.key.value for i in fact.items] == keys


def test_an_unseen_merge_makes_the_values_before_it_unknown():
    (fact,) = returned('out = {"a": None}\nout.update(self.extra)\nreturn out')
    assert [(i.key.value, i.not_tensor) for i in fact.items] == [("a", "")]


NOT_FOLLOWED = [
    'out = {"n": len(self.a)}\nout = self.more()\nreturn out',
    'out = {"n": len(self.a)}\nfor out in self.parts:\n    pass\nreturn out',
    'out = {"n": len(self.a)}\ndef add(k, v):\n    out[k] = v\nadd("a", self.a)\nreturn out',
    'if self.flag:\n    out = {"n": len(self.a)}\nelse:\n    out = {"b": self.b}\nreturn out',
    'out = self.base()\nout["n"] = len(self.a)\nreturn out',
    'out = {"n": len(self.a)}\nglobal_ = out\nreturn global_',
]


def test_ppa012_silent_where_the_local_is_not_followed(lint_project):
    """A second binding, a closure, a binding in branches, a start that is not a display, or returning an
    alias leaves the return unknown, as it was before."""
    src = outputs('out = {"n": len(self.a)}\nreturn out', *NOT_FOLLOWED)
    assert check_module(lint_project, src) == {at(src, "len(self.a)", "PPA012")}
    assert all([f.kind for f in returned(body)] == ["other"] for body in NOT_FOLLOWED)


# -- PPA010 --------------------------------------------------------------------------------------------


def test_ppa010_a_step_built_dict_returned_before_anything_is_put_in_it(lint_project):
    src = outputs(
        'out = {}\nif self.a is None:\n    return out\nout["a"] = self.a\nreturn out',
        'out = dict()\nreturn out',
        'out = {}\nout["a"] = self.a\nreturn out',  # keys added later
        'out = {}\nif self.a is not None:\n    out["a"] = self.a\nreturn out',  # added on some path
        'out = {}\nfor name, t in self.parts.items():\n    out[name] = t\nreturn out',
        'out = {}\nout.update(self.parts)\nreturn out',
        'out = {}\nself.fill(out)\nreturn out',
        'out = {"a": self.a}\nout.clear()\nout["b"] = self.b\nreturn out',
    )
    assert check_module(lint_project, src) == {at(src, "return out", "PPA010"), at(src, "return out", "PPA010", nth=3)}


def test_ppa010_a_step_built_list_is_empty_or_not_a_mapping(lint_project):
    src = outputs(
        'pairs = []\nreturn pairs',
        'pairs = []\nfor name in self.names:\n    pairs.append((name, getattr(self, name)))\nreturn pairs',
        'pairs = ()\nreturn pairs',
        'out = {"a": self.a}\nreturn out',
    )
    lint_project({"pkg/mod.py": src})
    findings = sorted(lint(), key=lambda f: f.span.line)
    assert [(f.code, f.span.line) for f in findings] == [
        ("PPA010", at(src, "return pairs", "")[1]), ("PPA019", at(src, "return pairs", "", nth=2)[1]),
        ("PPA010", at(src, "return pairs", "", nth=3)[1])]
    assert "returns an empty list" in findings[0].message and "an empty tuple" in findings[2].message
    assert "when it is empty" in findings[1].message  # the appends may not run


# -- PPA011, PPA012 ------------------------------------------------------------------------------------


def test_keys_and_values_of_a_step_built_dict_are_judged_as_a_literals(lint_project):
    src = outputs('''
        out = {"ids": self.ids}
        out[""] = self.a
        out["n"] = len(self.a)
        out.update({"rows": self.rows.tolist()}, mask=None)
        for name in ("scores", 7):
            out[name] = getattr(self, name)
        return out
    ''')
    assert check_module(lint_project, src) == {
        at(src, '""', "PPA011"), at(src, "len(self.a)", "PPA012"), at(src, "self.rows.tolist()", "PPA012"),
        at(src, "None)", "PPA012"), at(src, "7)", "PPA011")}


def test_ppa012_follows_each_path_a_value_can_reach_the_return_by(lint_project):
    src = outputs(
        'out = {"a": None}\nif self.a is not None:\n    out["a"] = self.a\nreturn out',  # None on one path
        'out = {"a": None}\nout["a"] = self.a\nreturn out',  # replaced on every path
        'out = {}\nif self.flag:\n    out["a"] = self.a\nelse:\n    out["a"] = self.b\nreturn out',
        'out = {"a": []}\nfor t in self.parts:\n    out["a"] = t\nreturn out',  # the loop may not run
        'out = {"a": 0}\nout.update(self.extra)\nreturn out',  # the merge may replace it
        'out = {"a": 0}\nself.fill(out)\nreturn out',  # so may the call
        'out = {}\ntry:\n    out["a"] = self.a.tolist()\n    out["a"] = self.a\nexcept ValueError:\n    return out\n'
        'return out',  # the handler may see the first value
    )
    assert check_module(lint_project, src) == {
        at(src, 'None}', "PPA012"), at(src, "[]}", "PPA012"), at(src, "self.a.tolist()", "PPA012")}


def test_ppa012_a_loop_over_constant_names_reads_the_declared_fields(lint_project):
    head = HEAD + "from dataclasses import dataclass\n"
    src = head + '''

@dataclass
class Out(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    lengths: list[torch.Tensor]

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        out = {}
        for name in ("ids", "lengths"):
            out[name] = getattr(self, name)
        for key, attr in (("first", "ids"), ("all", "lengths")):
            out[key] = getattr(self, attr)
        return out
'''
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert {(f.code, f.span.line, f.span.column) for f in findings} == {
        ("PPA012", *at(src, "getattr(self, name)", "")[1:3]), ("PPA012", *at(src, "getattr(self, attr)", "")[1:3])}
    assert all("(field `lengths: list[torch.Tensor]`)" in f.message for f in findings)
    assert {f.message.split(" under ")[1].split(",")[0] for f in findings} == {"'lengths'", "'all'"}


# -- PPA013 --------------------------------------------------------------------------------------------


def test_ppa013_a_key_assigned_again_is_overwritten_not_duplicated(lint_project):
    src = outputs(
        'out = {"a": self.a}\nout["a"] = self.b\nreturn out',
        'out = {}\nout["a"] = self.a\nif self.flag:\n    out["a"] = self.b\nreturn out',
        'out = {}\nout.update(a=self.a)\nout.update({"a": self.b})\nreturn out',
        'return {"a": self.a, "a": self.b}',
    )
    assert check_module(lint_project, src) == {at(src, '"a": self.b}\n', "PPA013")}
    (fact,) = returned('out = {}\nout["a"] = self.a\nif self.flag:\n    out["a"] = self.b\nreturn out')
    assert fact.built and [(i.key.value, i.attribute) for i in fact.items] == [("a", "a"), ("a", "b")]


# -- PPA015 --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("to_pp, sent", [
    ('out = {}\nout["a"] = self.a\nout["b"] = self.b\nreturn out', '"b"'),
    ('out = {"a": self.a}\nif self.b is not None:\n    out["b"] = self.b\nreturn out', '"b"'),
    ('out = {}\nfor name in ("a", "b"):\n    out[name] = getattr(self, name)\nreturn out', '"b"'),
    ('out = dict(a=self.a)\nout |= {"b": self.b}\nreturn out', '"b"'),
], ids=["subscripts", "conditional", "constant-loop", "or-update"])
def test_ppa015_compares_the_keys_a_step_built_dict_sends(lint_project, to_pp, sent):
    matching = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['b'])",
                            to_pp=to_pp)
    assert check_module(lint_project, matching) == set()
    src = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['z'])", to_pp=to_pp)
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert {(f.code, f.span.line, f.span.column) for f in findings} == {
        ("PPA015", *at(src, "'z'", "")[1:3]), ("PPA015", *at(src, sent, "")[1:3])}
    assert any("it sends 'a', 'b'" in f.message for f in findings)


@pytest.mark.parametrize("to_pp", [
    'out = {}\nout[self.keys[0]] = self.a\nreturn out',
    'out = {"a": self.a}\nout.update(self.extra)\nreturn out',
    'out = {"a": self.a}\nself.fill(out)\nreturn out',
], ids=["dynamic-key", "unseen-merge", "escape"])
def test_ppa015_silent_when_a_step_built_dict_may_send_unseen_keys(lint_project, to_pp):
    src = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['zzz'])",
                       to_pp=to_pp)
    assert check_module(lint_project, src) == set()
    assert [(f.kind, f.exact) for f in returned(to_pp)] == [("dict", False)]  # followed, and not exact


# -- fields stored by __init__ (PPA012) -----------------------------------------------------------------

INIT_HEAD = HEAD + "from typing import List, Optional\n\nimport numpy as np\n"


def init_output(annotation: str, *, store: str = "self.lengths = lengths", extra: str = "") -> str:
    init = textwrap.indent(textwrap.dedent(store).strip("\n"), " " * 8)
    return (f"{INIT_HEAD}\n\nclass Out(DeviceAuxiliaryOutput):\n"
            f"    def __init__(self, ids: torch.Tensor, lengths: {annotation}):\n        self.ids = ids\n{init}\n\n"
            "    def copy_to_host(self, copy_tensor):\n        return self\n\n    def to_pp_tensors(self):\n"
            '        return {"ids": self.ids, "lengths": self.lengths}\n' + extra)


@pytest.mark.parametrize("annotation, kind", [
    ("list[torch.Tensor]", "a list"), ("List[int]", "a list"), ("tuple[int, ...]", "a tuple"), ("int", "an int"),
    ("np.ndarray", "a NumPy array"),
])
def test_ppa012_an_attribute_stored_from_an_annotated_init_parameter(lint_project, annotation, kind):
    src = init_output(annotation)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA012", *at(src, "self.lengths}", "")[1:3])
    assert f"returns {kind} (`__init__` stores `self.lengths` as `{annotation}`) under 'lengths'" in finding.message


def test_ppa012_an_attribute_annotated_where_init_stores_it(lint_project):
    src = init_output("object", store="self.lengths: list[int] = [len(t) for t in lengths]")
    assert check_module(lint_project, src) == {at(src, "self.lengths}", "PPA012")}


@pytest.mark.parametrize("store, extra", [
    ("self.lengths = lengths", "\n    def pack(self):\n        self.lengths = torch.stack(self.lengths)\n"),
    ("lengths = torch.stack(lengths)\nself.lengths = lengths", ""),
    ("self.lengths = torch.stack(lengths)", ""),
    ("self.lengths = lengths\nself.lengths += 0", ""),
    ("self.lengths = lengths\nsetattr(self, 'lengths', torch.stack(lengths))", ""),
], ids=["stored-again-elsewhere", "parameter-rebound", "converted", "augmented", "setattr"])
def test_ppa012_silent_when_init_may_not_store_the_parameter_as_declared(lint_project, store, extra):
    reported = init_output("list[torch.Tensor]")
    silent = init_output("list[torch.Tensor]", store=store, extra=extra).replace("class Out(", "class Quiet(")
    src = reported + silent.removeprefix(INIT_HEAD)
    assert check_module(lint_project, src) == {at(src, "self.lengths}", "PPA012")}


def test_ppa012_a_subclass_init_decides_over_its_base(lint_project):
    src = init_output("list[torch.Tensor]") + '''

class Stacked(Out):
    def __init__(self, ids, lengths):
        self.ids = ids
        self.lengths = torch.stack(lengths)

    def to_pp_tensors(self):
        return {"ids": self.ids, "lengths": self.lengths}


class Inherits(Out):
    def to_pp_tensors(self):
        return {"ids": self.ids, "lengths": self.lengths}
'''
    # ``Out`` is never built and both subclasses override its ``to_pp_tensors``: it never runs, and is not judged
    assert check_module(lint_project, src) == {at(src, "self.lengths}", "PPA012", nth=3)}
    constructed = src + "\n\ndef make(ids, lengths):\n    return Out(ids, lengths)\n"
    assert check_module(lint_project, constructed) == {
        at(src, "self.lengths}", "PPA012"), at(src, "self.lengths}", "PPA012", nth=3)}


@pytest.mark.parametrize("annotation", ["torch.Tensor", "Optional[list[int]]", "list[int] | None", "'list[int]'",
                                        "Mystery"])
def test_ppa012_silent_on_init_parameters_that_may_be_tensors(lint_project, annotation):
    src = init_output(annotation) + init_output("list[int]").removeprefix(INIT_HEAD).replace("class Out(", "class Bad(")
    assert check_module(lint_project, src) == {at(src, "self.lengths}", "PPA012", nth=2)}
