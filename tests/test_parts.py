"""Parts (``index/parts.py``): outputs that another output's ``to_pp_tensors`` sends inside its own mapping, which
SGLang's helpers therefore never meet alone (issue 33, item 3).

Each case is a small project: ``pkg/outputs.py`` holds two would-be parts, ``Entropy`` (an output with no
``to_pp_tensors``, whose container reads its field) and ``TopK`` (whose ``to_pp_tensors`` returns an empty mapping
when it kept nothing), and a container ``Bundle`` that an observer returns. How the container holds its parts and
how its ``to_pp_tensors`` uses them vary; before parts were known, every case reported ``Entropy``'s PPA001 and
``TopK``'s PPA010 although the helper is only ever handed a ``Bundle``.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest
from lintkit import lint, reported, run_analysis

from ppaux_lint.cli.inventory import build, render_tree

PARTS = """
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class Entropy:
    values: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return self


@dataclass
class TopK:
    ids: Optional[torch.Tensor]

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"ids": self.ids} if self.ids is not None else {}
"""
ENTROPY, TOPK, BUNDLE = "pkg.outputs.Entropy", "pkg.outputs.TopK", "pkg.outputs.Bundle"

# How the container holds its parts: (its head, up to ``def copy_to_host``; the call the observer builds it with,
# with ``{top}`` and ``{ent}`` for the two parts' constructions)
HOLDING = {
    "dataclass-fields": ("@dataclass\nclass Bundle:\n    top: TopK\n    ent: Entropy\n", "Bundle({top}, {ent})"),
    "optional-and-quoted-fields": ("@dataclass\nclass Bundle:\n    top: 'Optional[TopK]' = None\n"
                                   "    ent: Entropy | None = None\n", "Bundle(top={top}, ent={ent})"),
    "annotated-init": ("class Bundle:\n    def __init__(self, top: TopK, ent: 'Entropy'):\n        self.top = top\n"
                       "        self.ent = ent\n", "Bundle({top}, {ent})"),
    "built-inside": ("class Bundle:\n    def __init__(self, ids, values):\n        self.top = TopK(ids)\n"
                     "        self.ent = Entropy(values)\n", "Bundle({top_arg}, {ent_arg})"),
    "constructor-call": ("class Bundle:\n    def __init__(self, top, ent):\n        self.top = top\n"
                         "        self.ent = ent\n", "Bundle({top}, {ent})"),
    "constructor-keywords": ("class Bundle:\n    def __init__(self, top=None, *, ent):\n        self.top = top\n"
                             "        self.ent = ent\n", "Bundle(ent={ent}, top={top})"),
    "partial-constructor": ("class Bundle:\n    def __init__(self, top, ent):\n        self.top = top\n"
                            "        self.ent = ent\n", "functools.partial(Bundle, {top}, {ent})()"),
    "classmethod-factory": ("class Bundle:\n    def __init__(self, top, ent):\n        self.top = top\n"
                            "        self.ent = ent\n\n    @classmethod\n    def of(cls, ids, values):\n"
                            "        return cls(TopK(ids), Entropy(values))\n", "Bundle.of({top_arg}, {ent_arg})"),
}
# How the container's ``to_pp_tensors`` uses them (the method's body)
USES = {
    "spread": 'return {**self.top.to_pp_tensors(), "entropy": self.ent.values}',
    "update": 'out = dict(self.top.to_pp_tensors())\nout.update(entropy=self.ent.values)\nreturn out',
    "renamed": 'out = {f"top.{k}": v for k, v in self.top.to_pp_tensors().items()}\n'
               'out["entropy"] = self.ent.values\nreturn out',
    "fields-only": 'return {"ids": self.top.ids, "entropy": self.ent.values}',
}


def container(holding: str, use: str, tail: str = "") -> str:
    head, _ = HOLDING[holding]
    return (head + "\n    def copy_to_host(self, copy_tensor):\n        return self\n\n    def to_pp_tensors(self):\n"
            + textwrap.indent(USES[use], " " * 8) + "\n" + tail)


def observer(holding: str, hook: str = "after_sample", name: str = "Obs") -> str:
    """An observer module that builds the container the way ``holding`` says, from ``after_sample`` and
    ``from_pp_tensors`` (or from a forward observer's ``after_forward``)."""
    _, make = HOLDING[holding]
    sent = make.format(top="TopK(token_ids)", ent="Entropy(state)", top_arg="token_ids", ent_arg="state")
    rebuilt = make.format(top='TopK(tensors.get("ids"))', ent='Entropy(tensors["entropy"])',
                          top_arg='tensors.get("ids")', ent_arg='tensors["entropy"]')
    if hook == "after_forward":
        return (f"import functools\n\nfrom pkg.outputs import Bundle, Entropy, TopK\n\n\nclass {name}:\n"
                "    def after_forward(self, batch, forward_batch, logits_output, *, can_run_graph):\n"
                f"        token_ids = state = batch\n        return {sent}\n")
    return (f"import functools\n\nfrom pkg.outputs import Bundle, Entropy, TopK\n\n\nclass {name}:\n"
            "    def is_active(self, sampling_info):\n        return True\n\n"
            f"    def after_sample(self, state, token_ids):\n        return {sent}\n\n"
            f"    def from_pp_tensors(self, tensors):\n        return {rebuilt}\n")


def project(lint_project, holding: str, use: str, *, outputs_tail: str = "", **more: str):
    lint_project({"pkg/outputs.py": PARTS + "\n\n" + container(holding, use) + outputs_tail,
                  "pkg/obs.py": observer(holding), **more})


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("holding", sorted(HOLDING))
def test_a_part_is_not_judged_as_if_the_helper_met_it(lint_project, holding, use):
    project(lint_project, holding, use)
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert analysis.classes[ENTROPY].part_of == (BUNDLE,)
    assert analysis.classes[TOPK].part_of == (BUNDLE,)
    called = () if use == "fields-only" else ((BUNDLE, "renamed" if use == "renamed" else "merged"),)
    assert analysis.classes[TOPK].part_calls == called
    assert analysis.classes[BUNDLE].part_of == ()  # the container is judged as before


def test_the_whole_project_is_read_with_or_without_the_prefilter(lint_project):
    """The part, its container and the call that fills the container live in three files."""
    lint_project({"pkg/outputs.py": PARTS,
                  "pkg/bundle.py": "from pkg.outputs import Entropy, TopK\n\n\n" + container("constructor-call",
                                                                                          "spread"),
                  "pkg/zz_obs.py": observer("constructor-call").replace("from pkg.outputs import Bundle, Entropy",
                                                                         "from pkg.bundle import Bundle\n"
                                                                         "from pkg.outputs import Entropy")})
    assert lint() == []
    assert lint(prefilter=False) == []
    assert lint(no_cache=True) == [] and lint() == []  # the facts survive the cache


def test_a_container_that_returns_its_parts_mapping_as_its_own_sends_the_parts_emptiness(lint_project):
    lint_project({"pkg/outputs.py": PARTS + """

@dataclass
class Bundle:
    top: TopK

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return self.top.to_pp_tensors()
""", "pkg/obs.py": observer("dataclass-fields").replace(", Entropy(state)", "").replace(
        ', Entropy(tensors["entropy"])', "")})
    analysis = run_analysis()
    assert reported(analysis.findings) == {(TOPK, "PPA010"), (ENTROPY, "PPA001")}  # Entropy: nothing holds it now
    assert analysis.classes[TOPK].part_calls == ((BUNDLE, "returned"),)


@pytest.mark.parametrize("other", [
    # an observer returns the part alone too
    {"pkg/alone.py": "from pkg.outputs import Entropy\n\n\nclass Alone:\n    def is_active(self, sampling_info):\n"
                     "        return True\n\n    def after_sample(self, state, token_ids):\n"
                     "        return Entropy(state)\n\n    def from_pp_tensors(self, tensors):\n"
                     "        return Entropy(tensors['values'])\n"},
    # a test hands a new one to the helper
    {"tests/test_entropy.py": "import torch\n\nfrom pkg.outputs import Entropy\nfrom sglang.srt.sampling."
                              "sampling_observer_pp import add_auxiliary_output_to_pp_tensors\n\n\n"
                              "def test_send():\n    add_auxiliary_output_to_pp_tensors({}, Entropy(torch.ones(1)))\n"},
], ids=["returned-by-an-observer", "handed-to-the-helper"])
def test_a_part_that_reaches_the_helper_alone_is_judged(lint_project, other):
    project(lint_project, "dataclass-fields", "spread", **other)
    analysis = run_analysis()
    assert (ENTROPY, "PPA001") in reported(analysis.findings)
    assert analysis.classes[ENTROPY].part_of == ()


def test_classes_that_only_hold_each_other_are_no_parts(lint_project):
    lint_project({"pkg/outputs.py": """
        import torch


        class Left:
            def __init__(self, right: "Right"):
                self.right = right

            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"r": self.right.x} if self.right is not None else {}


        class Right:
            def __init__(self, left: Left):
                self.left = left

            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"l": self.left.x}
        """})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Left", "PPA010")}
    assert analysis.classes["pkg.outputs.Left"].part_of == ()


@pytest.mark.parametrize("holding", ["dataclass-fields", "constructor-call"])
def test_a_part_whose_own_to_pp_tensors_the_container_calls_is_judged_there(lint_project, holding):
    """The part's mapping goes into the container's, so a value that is no tensor makes the helper raise for the
    container, and a None breaks the container's merge: both are reported on the part, where the code is, naming
    the container. Its empty mapping is not: the container's entropy is sent beside it."""
    lint_project({"pkg/outputs.py": PARTS.replace(
        'return {"ids": self.ids} if self.ids is not None else {}',
        'if self.ids is None:\n            return None\n        return {"ids": self.ids, "n": len(self.ids)}')
        + "\n\n" + container(holding, "spread"), "pkg/obs.py": observer(holding)})
    findings = {f.code: f for f in lint()}
    assert {(f.symbol, code) for code, f in findings.items()} == {(TOPK, "PPA010"), (TOPK, "PPA012")}
    inside = f"`{TOPK}.to_pp_tensors` (sent inside `{BUNDLE}.to_pp_tensors`)"
    assert findings["PPA012"].message.startswith(f"{inside} returns an int (len()) under 'n', not a tensor")
    assert findings["PPA010"].message.startswith(f"{inside} returns None on this path, and the container's")


def test_a_part_whose_container_only_reads_its_fields_has_a_to_pp_tensors_nothing_calls(lint_project):
    lint_project({"pkg/outputs.py": PARTS.replace(
        'return {"ids": self.ids} if self.ids is not None else {}', 'return {"n": len(self.ids)}')
        + "\n\n" + container("dataclass-fields", "fields-only"), "pkg/obs.py": observer("dataclass-fields")})
    assert lint() == []


def test_a_part_the_container_calls_without_a_to_pp_tensors_is_reported(lint_project):
    lint_project({"pkg/outputs.py": PARTS + "\n\n" + container("dataclass-fields", "spread").replace(
        '"entropy": self.ent.values', "**self.ent.to_pp_tensors()"), "pkg/obs.py": observer("dataclass-fields")})
    (finding,) = lint()
    assert (finding.symbol, finding.code) == (ENTROPY, "PPA001")
    assert (f"it is a part of another output, but `{BUNDLE}.to_pp_tensors` calls its `to_pp_tensors`, which raises "
            "AttributeError there") in finding.message


def test_the_containers_own_judgement_is_unchanged(lint_project):
    src = container("dataclass-fields", "fields-only").replace("self.ent.values}", "self.ent.values.tolist()}")
    lint_project({"pkg/outputs.py": PARTS + "\n\n" + src, "pkg/obs.py": observer("dataclass-fields")})
    assert reported(lint()) == {(BUNDLE, "PPA012")}


def test_a_subclass_held_through_its_base_is_a_part(lint_project):
    lint_project({"pkg/outputs.py": PARTS + """

class FastTopK(TopK):
    pass


@dataclass
class Bundle:
    top: TopK
    ent: Entropy

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {**self.top.to_pp_tensors(), "entropy": self.ent.values}
""", "pkg/obs.py": observer("dataclass-fields").replace("TopK(token_ids)", "FastTopK(token_ids)").replace(
        "import Bundle, Entropy, TopK", "import Bundle, Entropy, FastTopK, TopK")})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert analysis.classes["pkg.outputs.FastTopK"].part_of == (BUNDLE,)


def test_the_parts_of_a_forward_only_output_are_silent_and_so_is_its_own_mapping(lint_project):
    """Nothing of a forward observer's output crosses a stage: not its parts, and not its own ``to_pp_tensors``."""
    lint_project({"pkg/outputs.py": PARTS + "\n\n" + container("constructor-call", "fields-only").replace(
        'return {"ids"', 'if self.top is None:\n            return {}\n        return {"ids"'),
        "pkg/fwd.py": observer("constructor-call", hook="after_forward", name="Fwd")})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()
    assert analysis.classes[BUNDLE].forward_only_by == ("pkg.fwd.Fwd",)
    assert analysis.classes[ENTROPY].part_of == (BUNDLE,)


def test_inventory_says_what_a_part_is_part_of(lint_project):
    project(lint_project, "dataclass-fields", "spread")
    data = build(run_analysis())
    records = {r["fqn"]: r for r in data["outputs"]}
    assert records[ENTROPY]["part_of"] == [BUNDLE] and records[ENTROPY]["part_calls"] == []
    assert records[TOPK]["part_calls"] == [{"container": BUNDLE, "how": "merged"}]
    assert records[BUNDLE]["part_of"] == [] and records[BUNDLE]["findings"] == []
    out = io.StringIO()
    render_tree(data, out)
    text = out.getvalue()
    assert f"○ {ENTROPY}" in text
    written = Path("pkg/outputs.py").read_text().splitlines()
    line = next(n for n, text in enumerate(written, 1) if "self.ent.values" in text)
    assert records[ENTROPY]["part_uses"] == [{"container": BUNDLE, "how": "read", "line": line,
                                              "path": "pkg/outputs.py"}]
    assert (f"not judged for transport: part of {BUNDLE}, flattened (its fields sent) at line {line} "
            "(pkg/outputs.py): it travels only inside their mapping, and no observer returns it alone") in text
    assert f"part of {BUNDLE}: its `to_pp_tensors` runs inside {BUNDLE}.to_pp_tensors (merged)" in text


@pytest.mark.parametrize("sends", ['return {"ids": self.top.ids, "entropy": self.ent}',
                                   'out = {"ids": self.top.ids}\nout["entropy"] = self.ent\nreturn out'],
                         ids=["dict-display", "subscript-store"])
@pytest.mark.parametrize("holding", ["dataclass-fields", "constructor-call"])
def test_a_part_sent_whole_is_the_containers_finding_not_the_parts(lint_project, holding, sends):
    """``{"entropy": self.ent}`` hands the helper an ``Entropy`` object where it needs a tensor: the container's
    PPA012 where its field's annotation says so, and never the part's PPA001, which SGLang would not raise."""
    USES["sends-whole"] = sends
    try:
        project(lint_project, holding, "sends-whole")
    finally:
        del USES["sends-whole"]
    analysis = run_analysis()
    findings = {(f.symbol, f.code): f for f in analysis.findings}
    assert analysis.classes[ENTROPY].part_of == (BUNDLE,) and analysis.classes[ENTROPY].part_calls == ()
    if holding == "constructor-call":  # nothing declares what self.ent is: the container's value is not certain
        assert set(findings) == set()
        return
    assert set(findings) == {(BUNDLE, "PPA012")}
    assert findings[BUNDLE, "PPA012"].message.startswith(
        f"`{BUNDLE}.to_pp_tensors` returns a `Entropy` object (field `ent: Entropy`) under 'entropy', not a tensor")


def test_a_field_of_a_class_that_may_be_a_tensor_is_no_finding(lint_project):
    """A project class that subclasses ``torch.Tensor`` may be what the helper needs."""
    lint_project({"pkg/outputs.py": """
        from dataclasses import dataclass

        import torch


        class Logits(torch.Tensor):
            pass


        @dataclass
        class Bundle:
            raw: Logits

            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"raw": self.raw}
        """, "pkg/obs.py": """
        from pkg.outputs import Bundle, Logits


        class Obs:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                return Bundle(Logits(state))

            def from_pp_tensors(self, tensors):
                return Bundle(tensors["raw"])
        """})
    analysis = run_analysis()
    assert reported(analysis.findings) == set()


def test_with_no_observer_in_sight_a_concrete_output_is_judged_but_a_part_is_not(lint_project):
    """A library of outputs whose observers live elsewhere: any concrete output could be returned by one, so each is
    judged as if the helper met it (``Lone``, ``Bundle``), but what a ``Bundle`` flattens (``Entropy``, ``TopK``)
    never meets the helper alone however it is used."""
    lint_project({"pkg/outputs.py": PARTS + "\n\n" + container("dataclass-fields", "spread").replace(
        "return {**self.top", 'if self.ent is None:\n            return {}\n        return {**self.top') + """

@dataclass
class Lone:
    values: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return self
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.outputs.Lone", "PPA001"), (BUNDLE, "PPA010")}
    assert analysis.classes[ENTROPY].part_of == (BUNDLE,) and analysis.classes[TOPK].part_of == (BUNDLE,)
