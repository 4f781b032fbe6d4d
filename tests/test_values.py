"""Values as Python computes them, for the contract rules (issue 33, item 4).

Keys written as constants (module and class constants, imported ones, f-strings and ``+`` of them), the paths
of ``or`` and ``and``, returns through project helpers, and the type arguments of generic bases. Each form has
its findings, located with ``locate``, and the neighbours where the analysis cannot be sure and stays silent.
"""

from __future__ import annotations

import textwrap

import pytest
from lintkit import lint, locate, positions, run_analysis
from test_rules import HEAD, at, check_module, observer_src, output_src

from ppaux_lint.cli.inventory import build
from ppaux_lint.facts.summarize.source import summarize_source

OUTPUT = "from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n"
OBSERVER = "from sglang.srt.sampling.sampling_observer import SamplingObserver\n"


def pair(to_pp: str, from_pp: str, *, head: str = "", after: str = "") -> str:
    """A module with ``Out`` (sending ``to_pp``) and ``Obs`` (rebuilding it from ``from_pp``), both bodies one
    ``return`` expression; ``head`` goes after the imports, ``after`` at the end."""
    return (f"import torch\n{OUTPUT}{OBSERVER}{textwrap.dedent(head)}\n\n"
            "class Out(DeviceAuxiliaryOutput):\n    def __init__(self, a, b=None):\n        self.a, self.b = a, b\n\n"
            "    def copy_to_host(self, copy_tensor):\n        return self\n\n"
            f"    def to_pp_tensors(self):\n        return {to_pp}\n\n\n"
            "class Obs(SamplingObserver):\n    def is_active(self, sampling_info):\n        return True\n\n"
            "    def after_sample(self, state, token_ids):\n        return Out(state)\n\n"
            f"    def from_pp_tensors(self, tensors):\n        return {from_pp}\n" + textwrap.dedent(after))


def out_with(body: str, methods: str, **kwargs) -> str:
    """``output_src`` with more methods (written at the class's indentation) after ``to_pp_tensors``."""
    return output_src(body, **kwargs) + textwrap.indent(textwrap.dedent(methods), "    ")


def found(lint_project, files: dict[str, str]) -> set[tuple[str, int, int, str]]:
    root = lint_project(files)
    return positions(lint(), root)


def messages(lint_project, files: dict[str, str], code: str) -> list[str]:
    lint_project(files)
    return [f.message for f in lint() if f.code == code]


# -- keys from constants: PPA015 ---------------------------------------------------------------------------


def test_ppa015_a_module_constant_sent_and_a_literal_read(lint_project):
    """The issue's miss: sent as ``{K_ACCEPTED: ...}`` with ``K_ACCEPTED = "accepted"``, read as "accept"."""
    src = pair('{K_ACCEPTED: self.a}', 'Out(tensors["accept"])', head='K_ACCEPTED = "accepted"\n')
    assert found(lint_project, {"pkg/mod.py": src}) == {at(src, '"accept"]', "PPA015"),
                                                        at(src, "K_ACCEPTED: self.a", "PPA015")}
    (read, sent) = sorted(messages(lint_project, {"pkg/mod.py": src}, "PPA015"))
    assert "reads 'accept'" in read and "it sends 'accepted'" in read
    assert f"sends key `K_ACCEPTED` = 'accepted' (line {locate(src, 'K_ACCEPTED =')[0]})" in sent


@pytest.mark.parametrize("read", ['tensors[K_ACCEPTED]', 'tensors.get(K_ACCEPTED)', 'tensors.pop(K_ACCEPTED)',
                                  'tensors["accepted"]', 'tensors[Keys.ACCEPTED]'])
def test_ppa015_silent_when_the_constant_matches(lint_project, read):
    src = pair('{K_ACCEPTED: self.a}', f"Out({read})",
               head='K_ACCEPTED = "accepted"\n\n\nclass Keys:\n    ACCEPTED = "accepted"\n')
    assert found(lint_project, {"pkg/mod.py": src}) == set()


@pytest.mark.parametrize("rebinding", ['globals()["K_ACCEPTED"] = "accept"', 'globals().update(K_ACCEPTED="accept")'])
def test_ppa015_a_module_that_writes_its_globals_binds_no_constant(lint_project, rebinding):
    """``globals()`` may rebind any module-level name: the key is not known, so neither side is judged."""
    src = pair('{K_ACCEPTED: self.a}', 'Out(tensors["accept"])', head='K_ACCEPTED = "accepted"\n' + rebinding + "\n")
    assert found(lint_project, {"pkg/mod.py": src}) == set()


KEYS = '"""The names our tensors travel under."""\n\nACCEPTED = "accepted"\nNS = "topk"\nTOP1 = f"{NS}.top1"\n'


@pytest.mark.parametrize("imports, name", [
    ("from pkg.keys import ACCEPTED", "ACCEPTED"),
    ("from pkg.keys import ACCEPTED as K", "K"),
    ("from pkg import keys", "keys.ACCEPTED"),
    ("import pkg.keys as k", "k.ACCEPTED"),
    ("import pkg.keys", "pkg.keys.ACCEPTED"),
    ("from pkg.names import ACCEPTED", "ACCEPTED"),  # re-exported by an explicit import
    ("from pkg.starred import ACCEPTED", "ACCEPTED"),  # re-exported by a star import
    ("from pkg.alias import ACCEPTED", "ACCEPTED"),  # re-exported as an alias ``ACCEPTED = keys.ACCEPTED``
], ids=["from-import", "as", "module", "module-as", "dotted", "re-export", "star-re-export", "alias"])
def test_ppa015_constants_of_another_module(lint_project, imports, name):
    """The key module holds no prefilter token: the index loads it when a key resolves through it."""
    files = {"pkg/keys.py": KEYS, "pkg/names.py": "from pkg.keys import ACCEPTED, NS\n",
             "pkg/starred.py": "from pkg.keys import *\n",
             "pkg/alias.py": "from pkg import keys\n\nACCEPTED = keys.ACCEPTED\n"}
    bad = pair(f"{{{name}: self.a}}", 'Out(tensors["accept"])', head=imports + "\n")
    assert found(lint_project, {**files, "pkg/mod.py": bad}) == {at(bad, '"accept"]', "PPA015"),
                                                                 at(bad, f"{name}: self.a", "PPA015")}
    defined = "pkg.alias" if "alias" in imports else "pkg.keys"  # where the name written is bound
    (_, sent) = sorted(messages(lint_project, {**files, "pkg/mod.py": bad}, "PPA015"))
    assert f"sends key `{name}` = 'accepted' (line 3 of `{defined}`)" in sent
    good = pair(f"{{{name}: self.a}}", f"Out(tensors[{name}])", head=imports + "\n")
    assert found(lint_project, {**files, "pkg/mod.py": good}) == set()


def test_ppa015_an_f_string_of_a_constant(lint_project):
    """The issue's other miss: sent as ``f"{_NS}.top1"``, read as ``f"{_NS}_top1"``."""
    src = pair('{f"{_NS}.top1": self.a}', 'Out(tensors[f"{_NS}_top1"])', head='_NS = "topk"\n')
    assert found(lint_project, {"pkg/mod.py": src}) == {at(src, 'f"{_NS}_top1"', "PPA015"),
                                                        at(src, 'f"{_NS}.top1"', "PPA015")}
    (read, _) = sorted(messages(lint_project, {"pkg/mod.py": src}, "PPA015"))
    assert "reads key `f'{_NS}_top1'` = 'topk_top1', but" in read and "it sends 'topk.top1'" in read


@pytest.mark.parametrize("sent, read", [
    ('f"{_NS}.top1"', 'f"{_NS}.top1"'),
    ('f"{_NS}.top1"', '"topk.top1"'),
    ('_NS + ".top1"', 'f"{_NS}.top1"'),
    ('TOP1', '_NS + "." + "top1"'),
    ('f"{Keys.NS!s}.top1"', 'Keys.TOP1'),
    ('f"{_NS!r}"', '"\'topk\'"'),
], ids=["same-f-string", "literal", "plus", "constant-of-an-f-string", "class-constants", "repr"])
def test_ppa015_f_strings_and_concatenations_that_agree(lint_project, sent, read):
    head = '_NS = "topk"\nTOP1 = f"{_NS}.top1"\n\n\nclass Keys:\n    NS = _NS\n    TOP1 = NS + ".top1"\n'
    src = pair(f"{{{sent}: self.a}}", f"Out(tensors[{read}])", head=head)
    assert found(lint_project, {"pkg/mod.py": src}) == set()


def test_ppa015_a_dict_built_step_by_step_with_constant_keys(lint_project):
    src = (f"import torch\n{OUTPUT}{OBSERVER}\nK_A = 'a'\nK_B = 'b'\n\n\n"
           "class Out(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n        return self\n\n"
           "    def to_pp_tensors(self):\n        out = {}\n        out[K_A] = self.a\n"
           "        for key in (K_B,):\n            out[key] = self.b\n        return out\n\n\n"
           "class Obs(SamplingObserver):\n    def is_active(self, sampling_info):\n        return True\n\n"
           "    def after_sample(self, state, token_ids):\n        return Out()\n\n"
           "    def from_pp_tensors(self, tensors):\n        return Out(tensors.get(K_A), tensors.pop('c'))\n")
    assert found(lint_project, {"pkg/mod.py": src}) == {at(src, "'c'", "PPA015"), at(src, "K_B,", "PPA015")}


@pytest.mark.parametrize("head, sent", [
    ('K = "accepted"\nK = "other"\n', "K"),  # bound twice
    ('K = "accepted"\n\n\ndef reset():\n    global K\n    K = "x"\n', "K"),  # rebound in a function
    ('try:\n    from pkg.keys import ACCEPTED as K\nexcept ImportError:\n    K = "accepted"\n', "K"),
    ("from thirdparty.keys import K\n", "K"),  # outside the project
    ('K = "accepted"\n', 'f"{K:>8}"'),  # a format spec
    ('K = "accepted"\n', "K.upper()"),  # a call
    ('K = "accepted"\n\n\nclass Keys:\n    A = K\n\n\nKeys.A = "b"\n', "Keys.A"),  # set again after the class
    ('from enum import Enum\n\n\nclass Keys(str, Enum):\n    A = "accepted"\n', "Keys.A"),  # an enum member
    ('K = "accepted"\n\n\nclass Keys:\n    A = K\n    A = "b"\n', "Keys.A"),  # bound twice in the class
    ('class Keys:\n    A = "accepted"\n\n\nsetattr(Keys, "A", "b")\n', "Keys.A"),  # set by name
    ('class Keys:\n    A = "accepted"\n\n\nfor n in ("A",):\n    setattr(Keys, n, "b")\n', "Keys.A"),
    ('class Keys:\n    A = "accepted"\n\n\ndelattr(Keys, "A")\n', "Keys.A"),
    ('K = "accepted"\nif (K := "b"):\n    pass\n', "K"),  # a walrus at module level
    ('K = "accepted"\nNAMES = [K for x in "ab" if (K := x)]\n', "K"),  # one in a comprehension binds K too
], ids=["bound-twice", "global-rebinding", "import-fallback", "outside", "format-spec", "call", "set-after-class",
        "enum", "class-bound-twice", "setattr", "setattr-computed-name", "delattr", "walrus", "walrus-comprehension"])
def test_ppa015_silent_when_the_constant_is_not_certain(lint_project, head, sent):
    src = pair(f"{{{sent}: self.a}}", 'Out(tensors["zzz"])', head=head)
    files = {"pkg/mod.py": src, "pkg/keys.py": 'ACCEPTED = "accepted"\n'}
    assert found(lint_project, files) == set()


def test_ppa015_a_setattr_or_walrus_of_another_name_leaves_the_constant(lint_project):
    head = 'class Keys:\n    A = "accepted"\n\n\nsetattr(Keys, "B", "b")\nif (n := 2):\n    pass\n'
    src = pair("{Keys.A: self.a}", 'Out(tensors["accept"])', head=head)
    assert found(lint_project, {"pkg/mod.py": src}) == {at(src, '"accept"]', "PPA015"),
                                                        at(src, "Keys.A: self.a", "PPA015")}


def test_ppa015_a_local_of_the_same_name_hides_the_constant(lint_project):
    src = pair('{K: self.a}', 'Out(tensors["accepted"])', head='K = "accepted"\n')
    shadowed = src.replace("        return {K: self.a}", "        K = self.name\n        return {K: self.a}")
    assert found(lint_project, {"pkg/mod.py": src}) == set()
    assert found(lint_project, {"pkg/mod.py": shadowed}) == set()
    reads = src.replace("        return Out(tensors[", "        K = 'other'\n        return Out(tensors[")
    reads = reads.replace('tensors["accepted"]', "tensors[K]")
    assert found(lint_project, {"pkg/mod.py": reads}) == set()


def with_class_constants(src: str, out: str, obs: str = "") -> str:
    """``src`` (a ``pair``) with ``out`` and ``obs`` (lines at the class's indentation) first in each body."""
    src = src.replace("class Out(DeviceAuxiliaryOutput):\n", f"class Out(DeviceAuxiliaryOutput):\n{out}", 1)
    return src.replace("class Obs(SamplingObserver):\n", f"class Obs(SamplingObserver):\n{obs}", 1)


def test_ppa015_class_constants_read_through_self(lint_project):
    """The vendored project's miss: ``{self.KEY: ...}`` with ``KEY = "lens"`` in the output's body, read as
    ``tensors[self.LENS_KEY]`` with ``LENS_KEY = "logit_lens"`` in the observer's."""
    src = with_class_constants(pair("{self.KEY: self.a}", "Out(tensors[self.LENS_KEY])"),
                               '    KEY = "lens"\n', '    LENS_KEY = "logit_lens"\n')
    assert found(lint_project, {"pkg/mod.py": src}) == {at(src, "self.LENS_KEY]", "PPA015"),
                                                        at(src, "self.KEY: self.a", "PPA015")}
    (read, sent) = sorted(messages(lint_project, {"pkg/mod.py": src}, "PPA015"))
    assert f"reads key `self.LENS_KEY` = 'logit_lens' (line {locate(src, 'LENS_KEY =')[0]})" in read
    assert f"sends key `self.KEY` = 'lens' (line {locate(src, 'KEY = ')[0]})" in sent
    agreeing = with_class_constants(pair("{self.KEY: self.a}", "Out(tensors[self.LENS_KEY])"),
                                    '    KEY = "lens"\n', '    LENS_KEY = "lens"\n')
    assert found(lint_project, {"pkg/mod.py": agreeing}) == set()


def test_ppa015_self_reads_the_constant_of_the_instance_s_class(lint_project):
    """An inherited ``to_pp_tensors`` sends under the subclass's ``KEY``: the observer returns the subclass."""
    src = with_class_constants(pair("{self.KEY: self.a}", "Sub(tensors[READ])", head='READ = "accepted"\n',
                                    after='\n\nclass Sub(Out):\n    KEY = "accepted"\n'),
                               '    KEY = "base"\n').replace("return Out(state)", "return Sub(state)")
    assert found(lint_project, {"pkg/mod.py": src}) == set()
    wrong = src.replace('READ = "accepted"', 'READ = "base"')
    assert found(lint_project, {"pkg/mod.py": wrong}) == {at(wrong, "READ]", "PPA015"),
                                                          at(wrong, "self.KEY: self.a", "PPA015")}


@pytest.mark.parametrize("out, method", [
    ('    KEY: str = "lens"\n', ""),  # an annotated name: a dataclass field, or an instance attribute's default
    ('    KEY = "lens"\n', "\n    def rename(self):\n        self.KEY = 'other'\n"),  # stored on an instance
    ('    KEY = "lens"\n', "\n    def __getattribute__(self, name):\n        return 'other'\n"),
    ('    KEY = "lens"\n    KEY = "other"\n', ""),  # bound twice
    ("", ""),  # no such constant
], ids=["annotated", "stored", "getattribute", "bound-twice", "absent"])
def test_ppa015_silent_when_self_s_attribute_is_not_certainly_the_constant(lint_project, out, method):
    src = with_class_constants(pair("{self.KEY: self.a}", 'Out(tensors["zzz"])'), out + textwrap.indent(
        textwrap.dedent(method), "    "))
    assert found(lint_project, {"pkg/mod.py": src}) == set()


@pytest.mark.parametrize("change", [
    ("        return {self.KEY: self.a}", "        self = self.other\n        return {self.KEY: self.a}"),
    ("class Out(DeviceAuxiliaryOutput):", "class Out(DeviceAuxiliaryOutput, Mixin):"),  # a base it cannot see
    ("def to_pp_tensors(self):", "def to_pp_tensors(this):"),  # only ``self`` is followed
], ids=["self-rebound", "unseen-base", "other-receiver-name"])
def test_ppa015_silent_when_self_is_not_certainly_the_instance_of_a_known_class(lint_project, change):
    src = with_class_constants(pair("{self.KEY: self.a}", 'Out(tensors["zzz"])', head="from lib import Mixin\n"),
                               '    KEY = "lens"\n').replace(*change)
    assert found(lint_project, {"pkg/mod.py": src}) == set()


# -- keys from constants: PPA011 and PPA013 ------------------------------------------------------------------


@pytest.mark.parametrize("head, shown", [
    ('K = ""\n', "''"), ("K = None\n", "None"), ("K = 0\n", "0"), ('K = ("a", "b")\n', "('a', 'b')"),
    ('NS = ""\nK = NS + ""\n', "''"),
], ids=["empty", "none", "int", "tuple", "empty-concatenation"])
def test_ppa011_a_constant_that_is_not_a_non_empty_string(lint_project, head, shown):
    src = output_src("return {K: self.a}", head=HEAD + head)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA011", *locate(src, "K: self.a"))
    line = src.splitlines().index(head.splitlines()[-1]) + 1
    assert f"returns a tensor under key `K` = {shown} (line {line}), which is not" in finding.message


def test_ppa013_two_constants_of_the_same_value(lint_project):
    src = output_src("return {K_A: self.a, K_B: self.b, f'{K_A}': self.c}",
                     head=HEAD + 'K_A = "a"\n\n\nclass Keys:\n    B = "a"\n\n\nK_B = Keys.B\n')
    assert check_module(lint_project, src) == {at(src, "K_B:", "PPA013"), at(src, "f'{K_A}'", "PPA013")}


def test_ppa013_two_classes_with_equal_returns_are_two_dicts(lint_project):
    """Equal facts in two files (a copy, a symlink: the same spans) are still one dict each."""
    src = output_src("return {K: self.a, 'b': self.b}", head=HEAD + 'K = "a"\n')
    assert found(lint_project, {"pkg/mod.py": src, "pkg/copy.py": src}) == set()
    twice = src.replace("'b': self.b", "K: self.b")
    assert found(lint_project, {"pkg/mod.py": twice, "pkg/copy.py": twice}) == {
        at(twice, "K: self.b", "PPA013"), at(twice, "K: self.b", "PPA013", path="pkg/copy.py")}


# -- return paths of ``or`` and ``and`` -----------------------------------------------------------------------


@pytest.mark.parametrize("body, needle", [
    ("return self._live() or {}", "{}"),
    ("return self._live() or None", "None"),
    ("return self._live() or dict()", "dict()"),
    ("return self._live() or []", "[]"),
    ("return (self._live() or {}) if self.a is not None else {'a': self.a}", "{})"),
    ("return self.ready and None", "None"),
    ("return None and {'a': self.a}", "None"),
    ("return self.cached or self.fresh or {}", "{}"),
], ids=["or-empty", "or-none", "or-dict-call", "or-empty-list", "nested", "and-none", "and-left-none",
        "three-operands"])
def test_ppa010_the_falsy_sides_of_or_and_and(lint_project, body, needle):
    src = out_with(body, "\ndef _live(self):\n    return {'a': self.a}\n")
    assert check_module(lint_project, src) == {at(src, needle, "PPA010")}


@pytest.mark.parametrize("body", [
    "return self._live() or {'a': self.a}",
    "return None or {'a': self.a}",
    "return {} or {'a': self.a}",
    "return {'a': self.a} or {}",  # the left is never falsy: the right is never reached
    "return self.ready and {'a': self.a}",
    "return self._none_sometimes() or {'a': self.a}",  # a None on the left is never returned
], ids=["or-dict", "none-or", "empty-or", "truthy-or", "and-dict", "falsy-helper-on-the-left"])
def test_ppa010_silent_where_or_and_and_never_return_an_empty_value(lint_project, body):
    src = out_with(body, "\ndef _live(self):\n    return {'a': self.a}\n\n"
                         "def _none_sometimes(self):\n    if self.a is None:\n        return None\n"
                         "    return {'a': self.a}\n")
    assert check_module(lint_project, src) == set()


@pytest.mark.parametrize("body, said", [
    ("return self._live() or {}", "returns an empty mapping whenever `self._live()` is falsy (the right side of `or`)"),
    ("return self.cached or self.fresh or None",
     "returns None whenever `self.cached or self.fresh` is falsy (the right side of `or`)"),
    ("return self.ready and None", "returns None whenever `self.ready` is truthy (the right side of `and`)"),
    ("return (self._live() or []) if self.a is not None else {'a': self.a}",
     "returns an empty list whenever `self._live()` is falsy (the right side of `or`)"),
    ("return {} if self.a is None else {'a': self.a}", "returns an empty mapping on this path"),
], ids=["or", "two-operands", "and", "in-a-conditional", "no-operator"])
def test_ppa010_says_when_the_side_of_or_and_and_is_returned(lint_project, body, said):
    src = out_with(body, "\ndef _live(self):\n    return {'a': self.a}\n")
    assert [said in message for message in messages(lint_project, {"pkg/mod.py": src}, "PPA010")] == [True]


def test_ppa014_the_none_side_of_or(lint_project):
    src = observer_src("def from_pp_tensors(self, tensors):\n    return self._cached or None")
    assert {f for f in check_module(lint_project, src) if f[3] == "PPA014"} == {at(src, "None\n", "PPA014")}
    (message,) = messages(lint_project, {"pkg/mod.py": src}, "PPA014")
    assert "returns None whenever `self._cached` is falsy (the right side of `or`)" in message


def test_ppa015_the_keys_of_each_side_of_or(lint_project):
    src = pair('self.extra and {"a": self.a} or {"b": self.b}', 'Out(tensors["a"], tensors["b"])')
    assert found(lint_project, {"pkg/mod.py": src}) == set()
    src = pair('self.extra and {"a": self.a} or {"b": self.b}', 'Out(tensors["a"], tensors["c"])')
    assert found(lint_project, {"pkg/mod.py": src}) == {at(src, '"c"', "PPA015"), at(src, '"b": self.b', "PPA015")}


# -- returns through project helpers ------------------------------------------------------------------------


PACK = """
    def _pack(self):
        if self.a is None:
            return None
        return {"a": self.a}
"""


def test_ppa010_a_helper_that_returns_none(lint_project):
    src = out_with("return self._pack()", PACK)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line, finding.span.column) == ("PPA010", *locate(src, "return self._pack()"))
    line = locate(src, "return None")[0]
    assert f"returns `self._pack()`, which returns None at line {line}" in finding.message
    assert "auxiliary PP output must contain at least one tensor" in finding.message
    ((related_line, _),) = [(r.span.line, r.message) for r in finding.related]
    assert related_line == line


@pytest.mark.parametrize("extra, shown", [
    ("\n    def _pack(self):\n        if self.a is not None:\n            return {'a': self.a}\n",
     "which can fall off its end and return None"),
    ("\n    def _pack(self):\n        if self.a is None:\n            return {}\n        return {'a': self.a}\n",
     "which returns an empty dict at line"),
    ("\n    def _pack(self):\n        return self._inner() if self.a is None else {'a': self.a}\n\n"
     "    def _inner(self):\n        return None\n",
     "which returns `self._inner()`, which returns None at line"),
    ("\n    def _pack(self):\n        return self._cache or None\n", "which returns None at line"),
], ids=["falls-off", "empty-dict", "two-helpers", "or-none"])
def test_ppa010_how_the_helper_returns_nothing(lint_project, extra, shown):
    src = out_with("return self._pack()", extra)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert finding.code == "PPA010" and shown in finding.message, finding.message


HELPERS = """
def pack(a):
    if a is None:
        return None
    return {"a": a}


class Base:
    def _pack(self):
        return pack(self.a)

    @staticmethod
    def packs(a):
        return pack(a)

    @classmethod
    def packed(cls, a):
        return cls.packs(a)
"""


@pytest.mark.parametrize("imports, body", [
    ("from pkg.helpers import pack", "return pack(self.a)"),
    ("from pkg import helpers", "return helpers.pack(self.a)"),
    ("from pkg.helpers import Base", "return Base.packs(self.a)"),
    ("from pkg.helpers import Base", "return Base.packed(self.a)"),
    ("from pkg.helpers import Base", "return self._pack()"),
], ids=["function", "module-attribute", "staticmethod", "classmethod", "inherited"])
def test_ppa010_a_helper_in_another_module(lint_project, imports, body):
    src = output_src(body, head=HEAD + imports + "\n").replace("class Out(DeviceAuxiliaryOutput)",
                                                               "class Out(DeviceAuxiliaryOutput, Base)"
                                                               if "_pack" in body else "class Out(DeviceAuxiliaryOutput)")
    lint_project({"pkg/mod.py": src, "pkg/helpers.py": HELPERS})
    (finding,) = lint()
    assert (finding.code, finding.span.line) == ("PPA010", locate(src, body)[0])
    assert f"which returns None at line {locate(HELPERS, 'return None')[0]}" in finding.message
    assert finding.related and finding.related[-1].path.endswith("helpers.py")


@pytest.mark.parametrize("extra", [
    "\n    def _pack(self):\n        return {'a': self.a}\n",
    "\n    def _pack(self):\n        return self._pack()\n",  # recursion: no value, no finding, no hang
    "\n    def _pack(self):\n        out = None\n        out = {'a': self.a}\n        return out\n",  # a local
    "\n    def _pack(self, a=None):\n        return a\n",  # a parameter
    "\n    def _pack(self):\n        yield None\n",  # a generator is no mapping: PPA019's and PPA016's business
], ids=["always-a-dict", "recursion", "local", "parameter", "generator"])
def test_ppa010_silent_when_the_helper_never_returns_nothing(lint_project, extra):
    src = out_with("return self._pack()", extra)
    assert {f for f in check_module(lint_project, src) if f[3] == "PPA010"} == set()


def test_ppa010_a_subclass_that_overrides_the_helper(lint_project):
    """What runs is the helper of the instance's class: an abstract base's own helper never does."""
    sub = "\n\nclass Sub(Out):\n    def _pack(self):\n        return {'a': self.a}\n\n    def _kind(self):\n        return 1\n"
    concrete = out_with("return self._pack()", PACK) + sub + "\n\nSAMPLE = Out()\n"  # an instance of its own
    assert check_module(lint_project, concrete) == {at(concrete, "return self._pack()", "PPA010")}
    abstract = out_with("return self._pack()", textwrap.dedent(PACK) + "\n@abc.abstractmethod\ndef _kind(self): ...\n",
                        head="import abc\n" + HEAD) + sub
    assert check_module(lint_project, abstract.replace("(DeviceAuxiliaryOutput)", "(DeviceAuxiliaryOutput, abc.ABC)")) \
        == set()


def test_ppa014_a_helper_that_returns_none(lint_project):
    # a test of a value, not of a key that always arrives (``test_rules.py``: a None under one is never returned)
    src = observer_src("def from_pp_tensors(self, tensors):\n    return self._rebuild(tensors)\n\n"
                       "def _rebuild(self, tensors):\n    if tensors['a'].numel() == 0:\n        return None\n"
                       "    return Out(tensors['a'], tensors['b'])")
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert (finding.code, finding.span.line) == ("PPA014", locate(src, "return self._rebuild")[0])
    assert (f"returns `self._rebuild(...)`, which returns None at line {locate(src, 'return None')[0]}"
            in finding.message)
    assert "sampling observer did not reconstruct its PP output" in finding.message


def test_ppa014_silent_when_the_helper_always_rebuilds(lint_project):
    src = observer_src("def from_pp_tensors(self, tensors):\n    return self._rebuild(tensors)\n\n"
                       "def _rebuild(self, tensors):\n    return Out(tensors['a'], tensors['b'])")
    assert check_module(lint_project, src) == set()


# -- generic bases (PPA012) ------------------------------------------------------------------------------------


STAT = f"""from typing import Generic, TypeVar

import torch
{OUTPUT}
T = TypeVar("T")


class Stat(DeviceAuxiliaryOutput, Generic[T]):
    value: T

    def __init__(self, value):
        self.value = value

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {{"value": self.value}}
"""


def test_ppa012_a_type_argument_that_is_not_a_tensor(lint_project):
    users = ("import torch\n\nfrom pkg.stat import Stat\n\n\nclass BatchTemperature(Stat[float]):\n    pass\n\n\n"
             "class Logits(Stat[torch.Tensor]):\n    pass\n\n\nSAMPLES = [BatchTemperature(1.0), Logits(None)]\n")
    root = lint_project({"pkg/stat.py": STAT, "pkg/users.py": users})
    findings = lint()
    assert positions(findings, root) == {at(users, "BatchTemperature(Stat", "PPA012", path="pkg/users.py")}
    (finding,) = findings
    assert finding.symbol == "pkg.users.BatchTemperature"
    assert "a float (field `value: T`, T = float)" in finding.message
    assert "inherits `pkg.stat.Stat.to_pp_tensors`" in finding.message
    assert finding.related[0].path.endswith("stat.py")


@pytest.mark.parametrize("classes, culprit", [
    ("class A(Stat[T]):\n    pass\n\n\nclass B(A[int]):\n    pass\n", "B(A"),
    ("S = TypeVar('S')\n\n\nclass A(Stat[S], Generic[S]):\n    pass\n\n\nclass B(A[list[torch.Tensor]]):\n    pass\n",
     "B(A"),
    ("K = TypeVar('K')\n\n\nclass P(Generic[K, T], Stat[T]):\n    pass\n\n\nclass Q(P[torch.Tensor, str]):\n    pass\n",
     "Q(P"),
    ("K = TypeVar('K')\n\n\nclass P(Stat[T], Generic[K, T]):\n    pass\n\n\nclass Q(P[str, torch.Tensor]):\n    pass\n",
     None),
    ("class C(Stat[float]):\n    def to_pp_tensors(self):\n        return {'v': self.value}\n", "self.value}"),
    ("class A(Stat[T]):\n    pass\n\n\nclass B(A):\n    pass\n", None),  # unbound: any type
    ("class A(Stat[Optional[float]]):\n    pass\n", None),  # not certainly not a tensor
], ids=["partial-specialisation", "own-type-variable", "several-type-variables", "several-type-variables-tensor",
        "own-method", "unbound", "optional"])
def test_ppa012_type_arguments_along_the_mro(lint_project, classes, culprit):
    users = ("from typing import Generic, Optional, TypeVar\n\nimport torch\n\nfrom pkg.stat import Stat, T\n\n\n"
             + classes)
    root = lint_project({"pkg/stat.py": STAT, "pkg/users.py": users})
    expected = {at(users, culprit, "PPA012", path="pkg/users.py")} if culprit else set()
    assert positions(lint(), root) == expected


def test_ppa012_a_protocol_with_a_type_parameter(lint_project):
    src = STAT.replace("class Stat(DeviceAuxiliaryOutput, Generic[T]):", "class Stat(Protocol[T]):").replace(
        "from typing import Generic, TypeVar", "from typing import Protocol, TypeVar")
    src += ("\n\nclass Temperature(Stat[float], DeviceAuxiliaryOutput):\n    pass\n\n\n"
            "class Logits(Stat[torch.Tensor], DeviceAuxiliaryOutput):\n    pass\n")
    assert check_module(lint_project, src) == {at(src, "Temperature(", "PPA012")}


# -- what the summary records -------------------------------------------------------------------------------------


def test_the_summary_records_constants_symbolic_keys_and_type_arguments():
    src = (STAT + '\nK = "a"\nK2 = K\nTWICE = "x"\nTWICE = "y"\n\n\nclass Keys:\n    A = f"{K}.b"\n\n\n'
           "class Child(Stat[float]):\n    def to_pp_tensors(self):\n        return {K: self.value, Keys.A: 1}\n")
    summary = summarize_source(src.encode(), "m.py", "pkg.m", False)
    constants = {name: text for name, text, _ in summary.constants}
    assert constants["K"] == "'a'" and constants["Keys.A"] == "f'{K}.b'" and constants["T"] == "TypeVar('T')"
    assert "TWICE" not in constants and "TWICE" in summary.rebound
    child = next(c for c in summary.classes if c.name == "Child")
    assert child.base_args == (("float",),)
    keys = [item.key for fact in child.method("to_pp_tensors").returns for item in fact.items]
    assert [(k.kind, k.value, k.computed) for k in keys] == [("dynamic", "K", True), ("dynamic", "Keys.A", True)]


# -- what inventory says -----------------------------------------------------------------------------------------


def test_inventory_lists_the_keys_constants_hold(lint_project):
    """inventory's key lists are the keys Python computes, as the rules judge them (it failed with a TypeError
    once the keys needed the index)."""
    src = with_class_constants(pair("{K_ACCEPTED: self.a, f'{NS}.top1': self.b}", "Out(tensors[self.READ])",
                                    head='K_ACCEPTED = "accepted"\nNS = "spec"\n'), "", '    READ = "accept"\n')
    lint_project({"pkg/mod.py": src})
    data = build(run_analysis())
    (output,) = data["outputs"]
    (observer,) = data["observers"]
    assert output["pp"]["keys"] == ["accepted", "spec.top1"]
    assert observer["pp"]["keys"] == ["accept"]
