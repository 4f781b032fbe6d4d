"""Every rule of issues 2 and 3: what it reports, exactly where, and where it must stay silent.

Positions are 1-based (line, column) of the offending node: the class name for
class-level rules, the key, the value, the ``return``, the call, the ``def``
name. Each case is its own project; ``locate`` finds the expected position in
the very text that was written, so a test cannot drift from its source.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from lintkit import IMPORT_AUX, IMPORT_OBS, lint, locate, positions, reported, run_analysis, run_console

HEAD = "import torch\nfrom sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n" \
       "from sglang.srt.sampling.sampling_observer import SamplingObserver\n"


def output_src(to_pp_body: str, *, name: str = "Out", extra: str = "", head: str = HEAD) -> str:
    """A module with an output class whose ``to_pp_tensors`` has the given body (written unindented)."""
    body = textwrap.indent(textwrap.dedent(to_pp_body).strip("\n"), " " * 8)
    return (f"{head}\n\nclass {name}(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n"
            f"        return self\n\n    def to_pp_tensors(self):\n{body}\n" + textwrap.dedent(extra))


def observer_src(from_pp: str, *, to_pp: str = 'return {"a": self.a, "b": self.b}', extra: str = "",
                 after_sample: str = "return Out(state, token_ids)") -> str:
    """A module with an output ``Out`` and its observer ``Obs``; ``from_pp`` is the whole ``def`` (unindented)."""
    method = textwrap.indent(textwrap.dedent(from_pp).strip("\n"), " " * 4)
    sample = textwrap.indent(textwrap.dedent(after_sample).strip("\n"), " " * 8)
    return output_src(to_pp) + (
        "\n\nclass Obs(SamplingObserver):\n    def is_active(self, sampling_info):\n        return True\n\n"
        f"    def after_sample(self, state, token_ids):\n{sample}\n\n{method}\n" + textwrap.dedent(extra))


def at(src: str, needle: str, code: str, nth: int = 1, path: str = "pkg/mod.py") -> tuple[str, int, int, str]:
    return (path, *locate(src, needle, nth), code)


def value_at(src: str, prefix: str, code: str, path: str = "pkg/mod.py") -> tuple[str, int, int, str]:
    """The position just after ``prefix`` (e.g. the value after a ``"key": ``)."""
    line, column = locate(src, prefix)
    return (path, line, column + len(prefix), code)


def check_module(lint_project, src: str, **options):
    root = lint_project({"pkg/mod.py": src})
    return positions(lint(**options), root)


# -- PPA000 -----------------------------------------------------------------------------------------


GOOD_OUTPUT = output_src('return {"a": self.a}')
MISSING = HEAD + "\n\nclass Missing(DeviceAuxiliaryOutput):\n    pass\n"


# A file "could matter" when its bytes hold a prefilter token; a comment naming one is enough.
MENTION = "# feeds the DeviceAuxiliaryOutput of pkg.other\n"


@pytest.mark.parametrize("content, line", [
    (MENTION + "import os\n\n\ndef broken(:\n    pass\n", 5),
    (HEAD + "\n\nclass Broken(DeviceAuxiliaryOutput):\n    def to_pp_tensors(self):\n        return {\"a\": self.a\n", 8),
    (MENTION + 'print "python 2"\n', 2),
    (MENTION.encode() + b"x = 1\n\x00\n", 3),
    (MENTION.encode() + b"name = '\xff\xfe'\n", {1, 2}),
    (MISSING.encode().replace(b"class Missing", b"\x00class Broken"), 6),
    # an undecodable byte may be located at its line or, for the file as a whole, at line 1
    (MISSING.encode().replace(b"pass", b"x = '\xff'"), {1, 7}),
], ids=["syntax-error-plain-file", "syntax-error-in-output", "python2", "nul-byte", "invalid-utf8",
        "nul-byte-in-output", "invalid-utf8-in-output"])
def test_ppa000_unreadable_file_is_reported_and_the_run_goes_on(lint_project, content, line):
    root = lint_project({"pkg/bad.py": content, "pkg/other.py": MISSING})
    findings = lint()
    assert reported(findings) == {("pkg.bad", "PPA000"), ("pkg.other.Missing", "PPA001")}
    bad = next(f for f in findings if f.code == "PPA000")
    assert bad.span.line in (line if isinstance(line, set) else {line})
    assert bad.span.column >= 1
    assert len(bad.message) > len("PPA000")  # the reason
    assert positions([bad], root) == {("pkg/bad.py", bad.span.line, bad.span.column, "PPA000")}


@pytest.mark.parametrize("content", [
    "import os\n\n\ndef broken(:\n    pass\n", 'print "python 2"\n', b"x = 1\n\x00\n", b"name = '\xff\xfe'\n",
], ids=["syntax-error", "python2", "nul-byte", "invalid-utf8"])
def test_ppa000_not_reported_for_a_broken_file_that_cannot_matter(lint_project, content):
    """Documented scope of PPA000: only files the prefilter cannot rule out are read, so a broken file
    that names no protocol, transport method, helper or followed class is not this tool's business."""
    lint_project({"pkg/unrelated.py": content, "pkg/other.py": MISSING})
    assert reported(lint()) == {("pkg.other.Missing", "PPA001")}


def test_ppa000_too_deeply_nested_file_is_a_finding_not_a_crash(lint_project):
    lint_project({"pkg/deep.py": HEAD + "x = " + "+".join(["a"] * 100_000) + "\n", "pkg/other.py": MISSING})
    deep = {("pkg.deep", "PPA000")} if sys.version_info >= (3, 11) else set()  # 3.10's parser reads it
    assert reported(lint()) == deep | {("pkg.other.Missing", "PPA001")}


@pytest.mark.parametrize("content", [
    b"# -*- coding: latin-1 -*-\n" + GOOD_OUTPUT.encode() + b"\nNAME = '\xe9'\n",
    b"\xef\xbb\xbf" + GOOD_OUTPUT.encode(),
], ids=["pep263-latin1", "utf8-bom"])
def test_ppa000_silent_on_declared_encodings(lint_project, content):
    lint_project({"pkg/mod.py": content,
                  "pkg/child.py": "from pkg.mod import Out\n\n\nclass Child(Out):\n    to_pp_tensors = None\n"})
    # the file is read (not PPA000) and its class resolves for the child
    assert reported(lint()) == {("pkg.child.Child", "PPA001")}


# -- PPA001 / PPA002 --------------------------------------------------------------------------------


def test_ppa001_points_at_the_class_name_and_names_the_runtime_error(lint_project):
    src = HEAD + """

@dataclass
class TopKOutput(DeviceAuxiliaryOutput):
    token_ids: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return self
""".replace("@dataclass", "from dataclasses import dataclass\n\n\n@dataclass")
    root = lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, root) == {at(src, "TopKOutput(", "PPA001")}
    message = findings[0].message
    assert "pkg.mod.TopKOutput" in message
    assert "sglang.srt.managers.auxiliary_output.DeviceAuxiliaryOutput" in message  # how it was recognised
    assert "auxiliary output does not support pipeline-parallel transport" in message
    assert findings[0].span.end_line == findings[0].span.line
    assert findings[0].span.end_column == findings[0].span.column + len("TopKOutput")


def test_ppa002_points_at_the_class_name_and_names_the_runtime_error(lint_project):
    src = HEAD + """

class Obs(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return token_ids  # not visible to the inference: may be an output, so the observer must rebuild it
"""
    root = lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, root) == {at(src, "Obs(", "PPA002")}
    assert "sampling observer does not support pipeline-parallel transport" in findings[0].message
    assert "sglang.srt.sampling.sampling_observer.SamplingObserver" in findings[0].message


def test_ppa001_ppa002_silent_when_present(lint_project):
    assert check_module(lint_project, observer_src(
        "def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['b'])")) == set()


# -- PPA010 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("empty", ["return {}", "return dict()", "return None", "return"])
def test_ppa010_empty_mapping_on_some_path(lint_project, empty):
    src = output_src(f"""
        if self.hist is None:
            {empty}
        return {{"hist": self.hist}}
        """)
    findings = check_module(lint_project, src)
    assert findings == {at(src, empty + "\n", "PPA010")}


def test_ppa010_message_names_the_runtime_error(lint_project):
    lint_project({"pkg/mod.py": output_src("return {}")})
    (finding,) = lint()
    assert "auxiliary PP output must contain at least one tensor" in finding.message
    assert finding.symbol == "pkg.mod.Out"


@pytest.mark.parametrize("body", [
    "return {name: t for name, t in self.parts.items()}",
    "return {**self.extra}",
    "return dict(**self.extra)",
    "return dict(self.parts)",
    "d = {}\nd[\"a\"] = self.a\nreturn d",
    "return self._pack()",
    "def inner():\n    return {}\nreturn {\"a\": inner() or self.a}",
    "return {\"a\": self.a} if self.a is not None else self._fallback()",
], ids=["comprehension", "star-merge", "dict-star", "dict-positional", "step-by-step", "helper-call",
        "nested-function", "conditional"])
def test_ppa010_silent_when_the_mapping_is_built_at_run_time(lint_project, body):
    assert check_module(lint_project, output_src(body)) == set()


def test_ppa010_silent_on_abstract_and_protocol_stubs(lint_project):
    src = HEAD + """
import abc
from typing import Protocol


class Abstract(DeviceAuxiliaryOutput, abc.ABC):
    @abc.abstractmethod
    def to_pp_tensors(self):
        ...


class Interface(DeviceAuxiliaryOutput, Protocol):
    def to_pp_tensors(self) -> dict: ...
"""
    assert check_module(lint_project, src) == set()


# -- PPA011 -----------------------------------------------------------------------------------------


def test_ppa011_keys_that_are_not_non_empty_strings(lint_project):
    src = output_src("""
        return {
            "": self.a,
            0: self.b,
            None: self.c,
            ("x", "y"): self.d,
            b"raw": self.e,
            "fine": self.f,
        }
        """)
    assert check_module(lint_project, src) == {
        at(src, '"": self.a', "PPA011"),
        at(src, "0: self.b", "PPA011"),
        at(src, "None: self.c", "PPA011"),
        at(src, '("x", "y")', "PPA011"),
        at(src, 'b"raw"', "PPA011"),
    }


def test_ppa011_dict_call_and_message(lint_project):
    lint_project({"pkg/mod.py": output_src('return {"": self.a}')})
    (finding,) = lint()
    assert finding.code == "PPA011"
    assert "auxiliary PP tensor names must be non-empty strings" in finding.message


@pytest.mark.parametrize("body", [
    "return {name: self.a}",
    "return {self.KEY: self.a}",
    "return {KEY: self.a}",
    "return {f\"{self.prefix}a\": self.a}",
    "return {k: v for k, v in zip(self.names, self.values)}",
    "return {**{0: self.a}}",
    "return {\"a\" + self.suffix: self.a}",
], ids=["variable", "attribute", "module-constant", "f-string", "comprehension", "merge", "concat"])
def test_ppa011_silent_on_keys_computed_at_run_time(lint_project, body):
    src = output_src(body, head=HEAD + "\nKEY = 'a'\nname = 'a'\n")
    assert check_module(lint_project, src) == set()


# -- PPA012 -----------------------------------------------------------------------------------------


def test_ppa012_values_that_are_certainly_not_tensors(lint_project):
    src = output_src("""
        return {
            "a": self.a.tolist(),
            "b": self.b.item(),
            "c": len(self.c),
            "d": str(self.d),
            "e": int(self.e),
            "f": float(self.f),
            "g": 1,
            "h": [self.h],
            "i": None,
            "j": "text",
            "k": (self.k,),
            "l": {"x": self.l},
            "m": self.m.shape,
            "ok": self.ok,
        }
        """)
    expected = {value_at(src, f'"{key}": ', "PPA012") for key in "abcdefghijklm"}
    assert check_module(lint_project, src) == expected


def test_ppa012_message_names_the_key_and_the_runtime_error(lint_project):
    lint_project({"pkg/mod.py": output_src('return {"token_ids": self.token_ids.tolist()}')})
    (finding,) = lint()
    assert finding.code == "PPA012"
    assert "auxiliary PP output 'token_ids' is not a tensor" in finding.message


def test_ppa012_dict_call_keyword_values(lint_project):
    src = output_src("return dict(a=self.a.tolist(), b=self.b)")
    assert check_module(lint_project, src) == {at(src, "self.a.tolist()", "PPA012")}


@pytest.mark.parametrize("value", [
    "self.a", "torch.tensor(self.values)", "self.a * 2", "make_mask()", "local", "self.a.float()",
    "self.a[0]", "torch.stack(self.parts)", "self.a if self.flag else self.b", "self.to_tensor(len(self.a))",
])
def test_ppa012_silent_on_values_of_unknown_type(lint_project, value):
    src = output_src(f"local = self.a\nreturn {{\"a\": {value}}}")
    assert check_module(lint_project, src) == set()


# -- PPA013 -----------------------------------------------------------------------------------------


def test_ppa013_duplicate_key_at_each_repeat(lint_project):
    src = output_src('return {"scores": self.a, "ids": self.b, "scores": self.c, "scores": self.d}')
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {
        at(src, '"scores"', "PPA013", nth=2), at(src, '"scores"', "PPA013", nth=3)}
    assert all("'scores'" in f.message for f in findings)


@pytest.mark.parametrize("body", [
    'if self.a is None:\n    return {"scores": self.b}\nreturn {"scores": self.a}',
    "return {self.key: self.a, self.key: self.b}",
    'return {"scores": self.a, **{"scores": self.b}}',
], ids=["two-paths", "dynamic-keys", "merge"])
def test_ppa013_silent(lint_project, body):
    src = output_src(body, head=HEAD + "\nkey = 'k'\n")
    assert check_module(lint_project, src) == set()


# -- PPA014 -----------------------------------------------------------------------------------------


def test_ppa014_explicit_none_and_bare_return(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            if "a" not in tensors:
                return None
            if "b" not in tensors:
                return
            return Out(tensors["a"], tensors["b"])
        """, to_pp="return dict(self.parts)")
    assert check_module(lint_project, src) == {at(src, "return None", "PPA014"), at(src, "return\n", "PPA014")}


BUILT_B = 'out = {"a": self.a}\nif self.b is not None:\n    out["b"] = self.b\nreturn out'


@pytest.mark.parametrize("guard, to_pp, after_sample, reported", [
    ('if "a" not in tensors:\n        return None\n    return Out(tensors["a"], tensors["b"])', None, None, False),
    ('return Out(tensors["a"], tensors["b"]) if "a" in tensors else None', None, None, False),
    # "b" is sent on one path only: the guard is taken when it is not
    ('if "b" not in tensors:\n        return None\n    return Out(tensors["a"], tensors["b"])', BUILT_B, None, True),
    ('return Out(tensors["a"], tensors.get("b")) if "b" in tensors else None', BUILT_B, None, True),
    # after_sample may return another class, whose keys are not known
    ('if "a" not in tensors:\n        return None\n    return Out(tensors["a"], tensors["b"])', None,
     "return Out(state, token_ids) if state.numel() else self.make(state)", True),
    # the method takes keys out of the mapping itself
    ('tensors.pop("a", None)\n    if "a" not in tensors:\n        return None\n    return Out(tensors["b"], tensors["b"])',
     None, None, True),
    # the ``else`` of a test that the key is there, and falling off the end after one
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    else:\n        return None', None, None,
     False),
    ('if "b" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    else:\n        return None', BUILT_B, None,
     True),
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])', None, None, False),
    ('if "b" in tensors:\n        return Out(tensors["a"], tensors["b"])', BUILT_B, None, True),
    # ``get(key) is None``: the helper hands over tensors only, never a None; a tensor's truth is its value's
    ('if tensors.get("a") is None:\n        return None\n    return Out(tensors["a"], tensors["b"])', None, None, False),
    ('if tensors.get("b", None) is None:\n        return None\n    return Out(tensors["a"], tensors["b"])', BUILT_B,
     None, True),
    ('return Out(tensors["a"], tensors["b"]) if tensors.get("a") is not None else None', None, None, False),
    ('if not tensors.get("a"):\n        return None\n    return Out(tensors["a"], tensors["b"])', None, None, True),
    # statements after a test that the key is there whose body cannot fall through run only when it is not
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    return None', None, None, False),
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    log("no a")\n    return None', None,
     None, False),
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    log("no a")', None, None, False),
    ('while True:\n        if "a" in tensors:\n            return Out(tensors["a"], tensors["b"])\n'
     '        return None', None, None, False),
    ('if "b" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    return None', BUILT_B, None, True),
    ('if "a" not in tensors:\n        log("no a")\n    else:\n        return Out(tensors["a"], tensors["b"])\n'
     '    return None', None, None, False),
    # a name bound once to ``tensors.get(key)``, a walrus, ``.keys()``, ``any``/``all`` over literal keys, ``and``/``or``
    ('a = tensors.get("a")\n    if a is None:\n        return None\n    return Out(a, tensors["b"])', None, None, False),
    ('b = tensors.get("b", None)\n    if b is None:\n        return None\n    return Out(tensors["a"], b)', BUILT_B,
     None, True),
    ('a = tensors.get("a")\n    a = a if a is not None else None\n    if a is None:\n        return None\n'
     '    return Out(a, tensors["b"])', None, None, True),  # bound twice: the second may be None
    ('if (a := tensors.get("a")) is None:\n        return None\n    return Out(a, tensors["b"])', None, None, False),
    ('if "a" not in tensors.keys():\n        return None\n    return Out(tensors["a"], tensors["b"])', None, None,
     False),
    ('if not all(k in tensors for k in ("a", "b")):\n        return None\n    return Out(tensors["a"], tensors["b"])',
     None, None, False),
    ('if not all(k in tensors for k in ("a", "b")):\n        return None\n    return Out(tensors["a"], tensors["b"])',
     BUILT_B, None, True),
    ('if any(k not in tensors for k in ["a", "b"]):\n        return None\n    return Out(tensors["a"], tensors["b"])',
     None, None, False),
    ('if "a" not in tensors or "b" not in tensors:\n        return None\n    return Out(tensors["a"], tensors["b"])',
     None, None, False),
    ('if "a" not in tensors or "b" not in tensors:\n        return None\n    return Out(tensors["a"], tensors["b"])',
     BUILT_B, None, True),
    ('if "a" in tensors and "b" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    return None', None,
     None, False),
    ('if "a" in tensors and self.strict:\n        return Out(tensors["a"], tensors["b"])\n    return None', None,
     None, True),  # the test can fail with the key there
    # the KeyError of a missing key, caught
    ('try:\n        a = tensors["a"]\n        b = tensors["b"]\n    except KeyError:\n        return None\n'
     '    return Out(a, b)', None, None, False),
    ('try:\n        a = tensors["a"]\n        b = tensors["b"]\n    except (KeyError, ValueError):\n        return None\n'
     '    return Out(a, b)', BUILT_B, None, True),
    ('try:\n        a = tensors["a"]\n        b = self.table["b"]\n    except KeyError:\n        return None\n'
     '    return Out(a, b)', None, None, True),  # another mapping's key may be missing
    # a dict built step by step sends a key on every path when each path puts it there
    ('if "a" not in tensors:\n        return None\n    return Out(tensors["a"], tensors.get("b"))', BUILT_B, None,
     False),
    ('if "a" not in tensors:\n        return None\n    return Out(tensors["a"], tensors.get("b"))',
     'out = {"b": self.b}\nif self.a is not None:\n    out["a"] = self.a\nreturn out', None, True),
    # a ``match`` with a case that matches whenever its keys are there: later cases, and falling off it, run only
    # when one is absent
    ('match tensors:\n        case {"a": a, "b": b}:\n            return Out(a, b)', None, None, False),
    ('match tensors:\n        case {"a": a, **rest}:\n            return Out(a, rest)\n        case _:\n'
     '            return None', None, None, False),
    ('match tensors:\n        case {"a": a, "b": b}:\n            return Out(a, b)\n        case {"a": a}:\n'
     '            return Out(a, None)', BUILT_B, None, False),
    ('match tensors:\n        case {"a": a, "b": b}:\n            return Out(a, b)', BUILT_B, None, True),
    ('match tensors:\n        case {"a": a} if a.numel():\n            return Out(a, tensors["b"])\n        case _:\n'
     '            return None', None, None, True),  # a guard may fail with the key there
    ('match tensors:\n        case {"a": 0}:\n            return Out(tensors["a"], tensors["b"])', None, None, True),
    # the end is reached another way too: the mapping is handed to a function, or the body can fall off itself
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])\n    log(tensors)', None, None, True),
    ('if "a" in tensors:\n        x = 1\n    return None', None, None, True),
    ('if "a" not in tensors:\n        log("no a")\n    return None', None, None, True),
    ('if "a" in tensors:\n        if tensors["a"].numel():\n            return Out(tensors["a"], tensors["b"])', None,
     None, True),
])
def test_ppa014_a_none_under_a_missing_key_test_runs_only_when_the_key_may_not_arrive(
        lint_project, guard, to_pp, after_sample, reported):
    """SGLang hands ``from_pp_tensors`` what ``to_pp_tensors`` sent: a None returned when a key is absent is never
    returned when the output always sends that key (a false PPA014, checked with SGLang 0.5.23's helpers)."""
    options = {"to_pp": to_pp} if to_pp else {}
    if after_sample:
        options["after_sample"] = after_sample
    src = observer_src(f"def from_pp_tensors(self, tensors):\n    {guard}\n", **options)
    codes = {code for *_, code in check_module(lint_project, src)}
    assert ("PPA014" in codes) is reported


REBUILD = 'return Out(tensors["a"], tensors["b"])'


@pytest.mark.parametrize("from_pp, helper, to_pp, reported", [
    ("return self._rebuild(tensors)", f'if "a" not in tensors:\n    return None\n{REBUILD}', None, False),
    ("return self._rebuild(tensors)", f'if "a" in tensors:\n    {REBUILD}\nreturn None', None, False),
    ("return self._rebuild(tensors)", f'if "a" in tensors:\n    {REBUILD}', None, False),  # falls off the end
    ("return self._rebuild(tensors)", f'if tensors.get("a") is None:\n    return\n{REBUILD}', None, False),
    ("return self._rebuild(tensors)", f'if "a" not in tensors:\n    return None\n{REBUILD}', "static", False),
    ("return rebuild(tensors)", f'if "a" not in tensors:\n    return None\n{REBUILD}', "function", False),
    ("return self._rebuild(tensors)", 'a = tensors.get("a")\nif a is None:\n    return None\n'
     'return Out(a, tensors["b"])', None, False),
    ("return self._rebuild(tensors)", 'try:\n    a, b = tensors["a"], tensors["b"]\nexcept KeyError:\n'
     '    return None\nreturn Out(a, b)', None, False),
    ("return self._rebuild(tensors)", 'try:\n    a = tensors["a"]\nexcept KeyError:\n    return None\n'
     'return Out(a, tensors["b"])', None, False),
    # "b" is sent on one path only
    ("return self._rebuild(tensors)", f'if "b" not in tensors:\n    return None\n{REBUILD}', BUILT_B, True),
    # the helper, or the method before it, takes keys out of the mapping
    ("return self._rebuild(tensors)", f'tensors.pop("a", None)\nif "a" not in tensors:\n    return None\n{REBUILD}',
     None, True),
    ('tensors.pop("a")\n    return self._rebuild(tensors)', f'if "a" not in tensors:\n    return None\n{REBUILD}',
     None, True),
    # a mapping of its own, or another None on the same path
    ("return self._rebuild(tensors)", f'seen = {{}}\nif "a" not in seen:\n    return None\n{REBUILD}', None, True),
    ("return self._rebuild(tensors)", f'if "a" not in tensors or self.strict:\n    return None\n{REBUILD}', None,
     True),
    # through a second helper that hands the tensors on as it got them, or changes them first
    ("return self._rebuild(tensors)", "return self._inner(tensors)", "inner", False),
    ("return self._rebuild(tensors)", 'tensors.pop("a", None)\nreturn self._inner(tensors)', "inner", True),
    ("return self._rebuild(tensors)", "return self._inner(dict(tensors, b=None))", "inner", True),
    # a helper that tests a key itself, then hands the tensors on: its None comes before any change
    ("return self._rebuild(tensors)", 'if "a" not in tensors:\n    return None\nreturn self._inner(tensors)', "inner",
     False),
    ("return self._rebuild(tensors)", 'match tensors:\n    case {"a": a, "b": b}:\n        return Out(a, b)', None,
     False),
], ids=["not-in", "after-in", "falls-off", "get-is-none", "staticmethod", "function", "bound-get", "tuple-read",
        "key-error", "sometimes-sent",
        "helper-pops", "method-pops", "own-mapping", "other-test", "two-helpers", "second-pops",
        "second-gets-another", "tests-then-hands-on", "match"])
def test_ppa014_a_none_a_helper_returns_when_a_key_is_absent(lint_project, from_pp, helper, to_pp, reported):
    """``return self._rebuild(tensors)`` hands the helper the very tensors SGLang handed over: a None it returns only
    when a key the output always sends is absent never comes back (checked with SGLang 0.5.23's helpers)."""
    body = textwrap.indent(helper, "    ")
    methods, extra = f"\n\ndef _rebuild(self, tensors):\n{body}\n", ""  # written in the class, after the method
    if to_pp == "static":
        methods, to_pp = f"\n\n@staticmethod\ndef _rebuild(tensors):\n{body}\n", None
    elif to_pp == "function":
        methods, extra, to_pp = "", f"\n\ndef rebuild(tensors):\n{body}\n", None
    elif to_pp == "inner":
        inner = textwrap.indent(f'if "a" not in tensors:\n    return None\n{REBUILD}', "    ")
        methods, to_pp = methods + f"\n\ndef _inner(self, tensors):\n{inner}\n", None
    options = {"to_pp": to_pp} if to_pp else {}
    for annotation in ("", " -> Out | None"):
        src = observer_src(f"def from_pp_tensors(self, tensors){annotation}:\n    {from_pp}\n{methods}", **options,
                           extra=extra)
        codes = {code for *_, code in check_module(lint_project, src)}
        assert ("PPA014" in codes) is reported, annotation


def test_ppa014_an_optional_annotation_over_a_helper_that_calls_itself(lint_project):
    """A helper that may call itself is followed once: what the call back gives is unknown, so the annotation
    stands (and the run ends)."""
    src = observer_src("def from_pp_tensors(self, tensors) -> Out | None:\n    return self._rebuild(tensors)\n\n"
                       'def _rebuild(self, tensors):\n    if "a" not in tensors:\n        return None\n'
                       "    if self.retry:\n        return self._rebuild(tensors)\n"
                       '    return Out(tensors["a"], tensors["b"])\n')
    assert check_module(lint_project, src) == {at(src, "Out | None:", "PPA014")}


@pytest.mark.parametrize("outer", ["", "def _outer(self, tensors):\n    return self._rebuild(tensors)\n\n"],
                         ids=["one-helper", "two-helpers"])
def test_ppa014_an_optional_annotation_stands_when_the_helper_returns_what_is_not_known(lint_project, outer):
    """A helper's None under an always-sent key's absence is left out, but not what else it may return."""
    called = "self._outer(tensors)" if outer else "self._rebuild(tensors)"
    src = observer_src(f"def from_pp_tensors(self, tensors) -> Out | None:\n    return {called}\n\n{outer}"
                       'def _rebuild(self, tensors):\n    if "a" not in tensors:\n        return None\n'
                       "    return rebuild_elsewhere(tensors[\"a\"])\n")
    src = src.replace("import torch\n", "import torch\nfrom thirdparty import rebuild_elsewhere\n", 1)
    assert check_module(lint_project, src) == {at(src, "Out | None:", "PPA014")}


@pytest.mark.parametrize("body, reported", [
    ('if "a" not in tensors:\n        return None\n    return Out(tensors["a"], tensors["b"])', False),
    ('if "a" in tensors:\n        return Out(tensors["a"], tensors["b"])', False),
    # another None the key does not explain: the annotation stands
    ('if "a" not in tensors:\n        return None\n    return self.maybe(tensors)', True),
])
def test_ppa014_an_optional_annotation_whose_only_none_is_never_taken(lint_project, body, reported):
    """``-> Out | None`` is reported when None can really come back; a None under an always-sent key's absence
    cannot (checked with SGLang 0.5.23's helpers)."""
    src = observer_src(f"def from_pp_tensors(self, tensors) -> Out | None:\n    {body}\n\n"
                       "def maybe(self, tensors):\n    return None if tensors['a'].numel() == 0 else Out(tensors['a'], "
                       "tensors['b'])\n")
    codes = {code for *_, code in check_module(lint_project, src)}
    assert ("PPA014" in codes) is reported


def test_ppa014_falling_off_the_end_points_at_the_def(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            if tensors:
                return Out(tensors["a"], tensors["b"])
        """)
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {at(src, "from_pp_tensors(self", "PPA014")}
    assert "sampling observer did not reconstruct its PP output" in findings[0].message


@pytest.mark.parametrize("loop", ["for _ in tensors:", "while tensors:"])
def test_ppa014_a_loop_whose_else_raises_still_falls_off_after_a_break(lint_project, loop):
    src = observer_src(f"""
        def from_pp_tensors(self, tensors):
            {loop}
                if "a" not in tensors:
                    break
                return Out(tensors["a"], tensors["b"])
            else:
                raise KeyError("a")
        """)
    assert check_module(lint_project, src) == {at(src, "from_pp_tensors(self", "PPA014")}


OPTIONALS = ['Optional["Out"]', "Out | None", "Union[Out, None]", '"Optional[Out]"']


@pytest.mark.parametrize("annotation", OPTIONALS)
def test_ppa014_optional_annotation_points_at_the_annotation(lint_project, annotation):
    # what ``rebuild`` (outside the project) returns is unknown, so the annotation's None may come back
    src = observer_src(f"""
        def from_pp_tensors(self, tensors) -> {annotation}:
            return rebuild(tensors)
        """, extra="\nfrom typing import Optional, Union\n\nfrom thirdparty import rebuild\n")
    assert check_module(lint_project, src) == {at(src, annotation + ":", "PPA014")}


@pytest.mark.parametrize("annotation", OPTIONALS)
def test_ppa014_optional_annotation_silent_when_every_path_returns_an_instance(lint_project, annotation):
    src = observer_src(f"""
        def from_pp_tensors(self, tensors) -> {annotation}:
            return Out(tensors["a"], tensors["b"])
        """, extra="\nfrom typing import Optional, Union\n")
    assert check_module(lint_project, src) == set()


@pytest.mark.parametrize("body", [
    'return Out(tensors["a"], tensors["b"])',
    'if "a" not in tensors:\n    raise KeyError("a")\nreturn Out(tensors["a"], tensors["b"])',
    'if tensors:\n    return Out(tensors["a"], tensors["b"])\nelse:\n    raise ValueError("empty")',
    'try:\n    return Out(tensors["a"], tensors["b"])\nexcept KeyError:\n    raise',
    'while True:\n    return Out(tensors["a"], tensors["b"])',
    'return self._rebuild(tensors)',
    'with torch.no_grad():\n    return Out(tensors["a"], tensors["b"])',
    'for _ in tensors:\n    return Out(tensors["a"], tensors["b"])\nelse:\n    raise KeyError("a")',
    'while tensors:\n    return Out(tensors["a"], tensors["b"])\nelse:\n    raise KeyError("a")',
], ids=["direct", "raise-guard", "if-else", "try-except", "while-true", "helper", "with", "for-else", "while-else"])
def test_ppa014_silent_when_every_path_returns_an_output(lint_project, body):
    method = "def from_pp_tensors(self, tensors) -> Out:\n" + textwrap.indent(body, "    ")
    assert check_module(lint_project, observer_src(method)) == set()


HELPERS_THAT_RAISE = """

def fail(message):
    raise RuntimeError(message)


def fail_annotated(message) -> NoReturn:
    os.abort()


def fail_through(message):
    log(message)
    fail(message)


def log(message):
    print(message)
"""


@pytest.mark.parametrize("tail, reported", [
    ('fail("no a")', False),
    ('fail_annotated("no a")', False),
    ('fail_through("no a")', False),
    ("self._missing(tensors)", False),
    ('if tensors:\n    fail("empty")\nelse:\n    self._missing(tensors)', False),
    ('log("no a")', True),  # it returns: so does from_pp_tensors, with None
    ('self._report(tensors)', True),
    ('unknown_helper("no a")', True),  # not a project function: nothing says it never returns
], ids=["raises", "noreturn-annotation", "through-another-helper", "method-that-raises", "branches", "logs",
        "method-that-returns", "unresolved"])
def test_ppa014_a_path_that_ends_in_a_helper_that_never_returns(lint_project, tail, reported):
    # a test of the tensors' values, not of a key: the end is reached whenever "a" holds nothing
    body = 'if tensors["a"].numel():\n    return Out(tensors["a"], tensors["b"])\n' + tail
    src = observer_src("def from_pp_tensors(self, tensors):\n" + textwrap.indent(body, "    ") + """

def _missing(self, tensors):
    raise KeyError(sorted(tensors))

def _report(self, tensors):
    print(tensors)""", extra=HELPERS_THAT_RAISE).replace("import torch\n", "import os\nfrom typing import NoReturn\n\nimport torch\n", 1)
    assert {f[3] for f in check_module(lint_project, src)} == ({"PPA014"} if reported else set())


@pytest.mark.parametrize("manager", ["contextlib.suppress(KeyError)", "suppress(KeyError, ValueError)"])
def test_ppa014_a_with_that_suppresses_what_ends_its_body_falls_through(lint_project, manager):
    """``suppress`` swallows the KeyError of a missing tensor, and control goes on after the ``with``: None."""
    src = observer_src(f"""
        def from_pp_tensors(self, tensors):
            with {manager}:
                return Out(tensors["a"], tensors["b"])
        """).replace("import torch\n", "import contextlib\nfrom contextlib import suppress\n\nimport torch\n", 1)
    assert {f[3] for f in check_module(lint_project, src)} == {"PPA014"}


@pytest.mark.parametrize("left, dunder, reported", [
    ('Out(tensors["a"], tensors["b"])', "", False),  # an instance of a class without __bool__/__len__: always true
    ('Out.rebuilt(tensors)', "", False),  # through a classmethod that constructs it
    ('Out(tensors["a"], tensors["b"])', "\n    def __len__(self):\n        return 0\n", True),  # may be falsy
    ("self._cached", "", True),  # what an attribute holds is not known
    ('self._cached or Out(tensors["a"], tensors["b"])', "", False),  # one operand never false is enough
], ids=["instance", "classmethod", "with-len", "attribute", "attribute-then-instance"])
def test_ppa014_or_none_after_an_instance_that_is_always_true(lint_project, left, dunder, reported):
    src = observer_src(f"def from_pp_tensors(self, tensors):\n    return {left} or None").replace(
        "    def to_pp_tensors(self):", "    @classmethod\n    def rebuilt(cls, tensors):\n        return cls(tensors['a'], "
        "tensors['b'])\n" + dunder + "\n    def to_pp_tensors(self):", 1)
    found = {f[3] for f in check_module(lint_project, src)} - {"PPA015"}  # the attribute case reads no key
    assert found == ({"PPA014"} if reported else set())


def test_ppa014_a_helper_that_ends_in_a_call_that_never_returns(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            return self._rebuild(tensors)

        def _rebuild(self, tensors):
            if "a" in tensors:
                return Out(tensors["a"], tensors["b"])
            fail("no a")
        """, extra=HELPERS_THAT_RAISE).replace("import torch\n", "import os\nfrom typing import NoReturn\n\nimport torch\n", 1)
    assert check_module(lint_project, src) == set()


def test_ppa010_a_to_pp_tensors_that_ends_in_a_call_that_never_returns(lint_project):
    src = output_src('if self.a is not None:\n    return {"a": self.a}\nfail("no a")').replace(
        "import torch\n", "import torch\n\n\ndef fail(message):\n    raise ValueError(message)\n", 1)
    assert check_module(lint_project, src) == set()


# -- PPA015 -----------------------------------------------------------------------------------------


def test_ppa015_key_read_but_never_sent_points_at_the_read(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            return Out(tensors["a"], tensors["b"], tensors.get("lengths"))
        """)
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {at(src, '"lengths"', "PPA015")}
    assert findings[0].message.endswith("reads 'lengths', but `pkg.mod.Out.to_pp_tensors` never sends it (it sends "
                                        "'a', 'b'): on the first stage the read finds nothing, and the output is "
                                        "rebuilt without it")


@pytest.mark.parametrize("read, said", [
    ('tensors["c"]', "reads 'c', but {sender} never sends it (it sends 'a', 'b'): KeyError on the first stage"),
    ('tensors.pop("c")', "reads 'c', but {sender} never sends it (it sends 'a', 'b'): KeyError on the first stage"),
    ('tensors.pop("c", None)', "reads 'c', but {sender} never sends it (it sends 'a', 'b'): on the first stage the "
                               "read finds nothing, and the output is rebuilt without it"),
    ('_caught(lambda: tensors["c"])', None),  # read in a closure: what raises there is not followed, nor reported
    ('("c" in tensors)', "tests for 'c', but {sender} never sends it (it sends 'a', 'b'): on the first stage the "
                         "test never finds it, so what it guards never runs"),
    ('tensors["c"] if "c" in tensors else None', "tests for 'c', but {sender} never sends it (it sends 'a', 'b'): on "
                                                  "the first stage the test never finds it, so what it guards never runs"),
], ids=["subscript", "pop", "pop-default", "closure", "membership", "guarded"])
def test_ppa015_says_what_a_read_of_a_key_never_sent_does(lint_project, read, said):
    src = observer_src(f"""
        def from_pp_tensors(self, tensors):
            extra = {read}
            return Out(tensors["a"], tensors["b"], extra)
        """)
    lint_project({"pkg/mod.py": src})
    messages = [f.message for f in lint() if f.code == "PPA015"]
    expected = [] if said is None else [said.format(sender="`pkg.mod.Out.to_pp_tensors`")]
    assert [m.split("from_pp_tensors` ", 1)[1] for m in messages] == expected


@pytest.mark.parametrize("handler", ["except KeyError:", "except (ValueError, KeyError):", "except LookupError:",
                                     "except Exception:", "except:"])
def test_ppa015_a_read_in_a_try_that_catches_keyerror(lint_project, handler):
    src = observer_src(f"""
        def from_pp_tensors(self, tensors):
            try:
                extra = tensors["c"]
            {handler}
                extra = None
            return Out(tensors["a"], tensors["b"], extra)
        """)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert finding.message.endswith("on the first stage the read raises KeyError into its `except` (or a `suppress`), "
                                    "and the output is rebuilt without it")


@pytest.mark.parametrize("around, said", [
    ("with contextlib.suppress(KeyError):\n    extra = tensors['c']",
     "the read raises KeyError into its `except` (or a `suppress`), and the output is rebuilt without it"),
    ("try:\n    extra = tensors['c']\nexcept KeyError:\n    raise RuntimeError('no c')",
     "the read raises KeyError into an `except` that raises again"),
    ("if 'c' not in tensors:\n    pass\nelse:\n    extra = tensors['c']",
     "the test never finds it, so what it guards never runs"),
], ids=["suppress", "reraised", "else-of-not-in"])
def test_ppa015_says_what_a_guarded_or_caught_read_does(lint_project, around, said):
    body = textwrap.indent(around, "    ")
    src = "import contextlib\n" + observer_src(f"def from_pp_tensors(self, tensors):\n    extra = None\n{body}\n"
                                               "    return Out(tensors['a'], tensors['b'], extra)")
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert finding.code == "PPA015" and finding.message.endswith(f"on the first stage {said}")


def test_ppa015_a_read_in_a_try_that_catches_something_else_raises(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            try:
                extra = tensors["c"]
            except ValueError:
                extra = None
            return Out(tensors["a"], tensors["b"], extra)
        """)
    lint_project({"pkg/mod.py": src})
    (finding,) = lint()
    assert finding.message.endswith("KeyError on the first stage")


def test_ppa015_key_sent_but_never_read_points_at_the_sent_key(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            return Out(tensors["a"], None)
        """)
    findings = check_module(lint_project, src)
    assert findings == {at(src, '"b"', "PPA015")}


def test_ppa015_across_modules_sent_key_is_reported_in_the_output_module(lint_project):
    out = output_src('return {"a": self.a, "extra": self.b}')
    obs = """
        from sglang.srt.sampling.sampling_observer import SamplingObserver

        from pkg.out import Out


        class Obs(SamplingObserver):
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                return Out(state, token_ids)

            def from_pp_tensors(self, tensors):
                return Out(tensors["a"], tensors["missing"])
        """
    root = lint_project({"pkg/out.py": out, "pkg/obs.py": obs})
    assert positions(lint(), root) == {at(out, '"extra"', "PPA015", path="pkg/out.py"),
                                       at(obs, '"missing"', "PPA015", path="pkg/obs.py")}
    # asked about either file, both are reported where they are: each involves both ends
    assert positions(lint(["pkg/obs.py"]), root) == positions(lint(["pkg/out.py"]), root) == positions(lint(), root)


@pytest.mark.parametrize("pairing", [
    {"from_pp": "def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['c'])"},
    {"from_pp": "def from_pp_tensors(self, tensors) -> Out:\n    return self._make(tensors['a'], tensors['c'])"},
    {"from_pp": "def from_pp_tensors(self, tensors):\n    return self._make(tensors['a'], tensors['c'])",
     "after_sample": "return Out(state, token_ids)"},
    {"from_pp": "def from_pp_tensors(self, tensors):\n    return self._make(tensors['a'], tensors['c'])",
     "after_sample": "return self._compute(state)", "annotate": True},
], ids=["from-pp-constructs", "from-pp-annotation", "after-sample-constructs", "after-sample-annotation"])
def test_ppa015_pairing(lint_project, pairing):
    src = observer_src(pairing["from_pp"], after_sample=pairing.get("after_sample", "return self._compute(state)"))
    if pairing.get("annotate"):
        src = src.replace("def after_sample(self, state, token_ids):", "def after_sample(self, state, token_ids) -> Out:")
    # reads 'c' (never sent) and never reads 'b' (sent)
    assert check_module(lint_project, src) == {at(src, "'c'", "PPA015"), at(src, '"b"', "PPA015")}


def test_ppa015_inherited_to_pp_tensors_is_compared(lint_project):
    src = HEAD + """

class Base(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"a": self.a}


class Out(Base):
    pass


class Obs(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return Out()

    def from_pp_tensors(self, tensors):
        return Out(tensors["a"], tensors["z"])
"""
    assert check_module(lint_project, src) == {at(src, '"z"', "PPA015")}


@pytest.mark.parametrize("to_pp", [
    "return {name: t for name, t in self.parts.items()}",
    "return {**self.parts}",
    "d = {}\nd[\"a\"] = self.a\nd[key] = self.b\nreturn d",
    "return self._pack()",
    "return {key: self.a}",
], ids=["comprehension", "merge", "step-by-step-dynamic-key", "helper", "dynamic-key"])
def test_ppa015_silent_when_sent_keys_are_unknown(lint_project, to_pp):
    src = observer_src("def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['zzz'])",
                       to_pp=to_pp).replace("import torch\n", "import torch\nkey = 'k'.upper()  # known at run time\n", 1)
    assert check_module(lint_project, src) == set()


@pytest.mark.parametrize("from_pp", [
    "def from_pp_tensors(self, tensors):\n    return Out(**tensors)",
    "def from_pp_tensors(self, tensors):\n    return self._rebuild(tensors)",
    "def from_pp_tensors(self, tensors):\n    return Out(*[tensors[name] for name in self.names])",
    "def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors[self.second])",
    "def from_pp_tensors(self, tensors):\n    parts = dict(tensors)\n    return Out(parts['a'], parts['x'])",
    ("def from_pp_tensors(self, tensors):\n    for name, value in tensors.items():\n        self.seen[name] = value\n"
     "    return Out(tensors['a'], None)"),
], ids=["star-star", "helper", "comprehension", "variable-key", "copied", "iterated"])
def test_ppa015_no_sent_but_never_read_when_the_mapping_escapes(lint_project, from_pp):
    # Out sends 'a' and 'b'; none of these observers visibly reads 'b', but each may
    assert check_module(lint_project, observer_src(from_pp)) == set()


def test_ppa015_literal_read_still_reported_when_the_mapping_escapes(lint_project):
    src = observer_src("def from_pp_tensors(self, tensors):\n    return self._rebuild(tensors, tensors['nope'])")
    assert check_module(lint_project, src) == {at(src, "'nope'", "PPA015")}


def test_ppa015_silent_when_unpaired_or_matching(lint_project):
    src = observer_src("def from_pp_tensors(self, tensors):\n    out = self._make()\n    return out",
                       after_sample="result = self._compute(state)\nreturn result")
    assert check_module(lint_project, src) == set()


TWO_OUTPUTS = HEAD + """

class Greedy(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"ids": self.ids}


class Sampled(Greedy):
    def __init__(self, ids, probs):
        super().__init__(ids)
        self.probs = probs

    def to_pp_tensors(self):
        return {"ids": self.ids, "probs": self.probs}


class Obs(SamplingObserver):
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        if state is None:
            return Greedy(token_ids)
        return Sampled(token_ids, state)
"""


def test_ppa015_an_observer_that_can_rebuild_several_outputs_is_paired_with_none(lint_project):
    """Which output a batch carries is known only at run time: judging the reads against one would be wrong for the
    other (reads 'probs', which Greedy never sends), so the observer is not paired, and inventory says why."""
    src = TWO_OUTPUTS + """
    def from_pp_tensors(self, tensors):
        if "probs" in tensors:
            return Sampled(tensors["ids"], tensors["probs"])
        return Greedy(tensors["ids"])
"""
    lint_project({"pkg/mod.py": src})
    analysis = run_analysis()
    assert analysis.findings == []
    assert analysis.index.info("pkg.mod.Obs").pair is None
    assert analysis.index.rebuild_candidates("pkg.mod.Obs") == (("pkg.mod.Greedy", "pkg.mod.Sampled"), "from_pp_tensors")
    tree = run_console(["inventory", "."], Path.cwd()).stdout
    assert "it can give several output classes: pkg.mod.Greedy, pkg.mod.Sampled; not judged against either" in tree


def test_ppa002_no_fix_for_an_observer_that_returns_several_outputs(lint_project):
    """A generated ``from_pp_tensors`` that rebuilds one of them would turn the other into it, losing its data."""
    lint_project({"pkg/mod.py": TWO_OUTPUTS})
    (finding,) = lint()
    assert finding.code == "PPA002"
    assert run_console(["check", "--fix", "--unsafe-fixes", "."], Path.cwd()).returncode == 1
    assert "def from_pp_tensors" not in Path("pkg/mod.py").read_text()


def test_ppa015_silent_when_keys_match_including_in_test(lint_project):
    src = observer_src("""
        def from_pp_tensors(self, tensors):
            if "b" in tensors:
                return Out(tensors["a"], tensors["b"])
            raise KeyError("b")
        """)
    assert check_module(lint_project, src) == set()


# -- PPA016 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", [
    "async def to_pp_tensors(self):\n    return {'a': self.a}",
    "def to_pp_tensors(self):\n    yield {'a': self.a}",
    "@property\ndef to_pp_tensors(self):\n    return {'a': self.a}",
    "@functools.cached_property\ndef to_pp_tensors(self):\n    return {'a': self.a}",
    "@staticmethod\ndef to_pp_tensors(self):\n    return {'a': A}",
    "@classmethod\ndef to_pp_tensors(cls, device):\n    return {'a': A}",
    "def to_pp_tensors(self, device):\n    return {'a': self.a}",
    "def to_pp_tensors(self, *, device):\n    return {'a': self.a}",
    "def to_pp_tensors():\n    return {'a': A}",
], ids=["async", "generator", "property", "cached-property", "static-with-param", "classmethod-with-param",
        "required-param", "required-kwonly", "no-self"])
def test_ppa016_bad_to_pp_tensors_shape_points_at_the_def(lint_project, method):
    src = HEAD + "import functools\n\n\nclass Out(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n" \
        "        return self\n\n" + textwrap.indent(method, "    ") + "\n"
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert {f.code for f in findings} == {"PPA016"}
    assert positions(findings, Path.cwd()) == {at(src, "to_pp_tensors(", "PPA016")}
    assert findings[0].message


@pytest.mark.parametrize("getter, said", [
    ("return {'a': self.a}", "'dict' object is not callable"),
    ("return None", "'NoneType' object is not callable"),
    ("return [self.a]", "'list' object is not callable"),
    ("return lambda: {'a': self.a}", None),  # the helper calls the lambda: no TypeError
    ("return self._pack", None),
    ("return functools.partial(pack, self)", None),
    ("return Callable_()", None),  # an instance of a class with __call__
], ids=["dict", "none", "list", "lambda", "bound-method", "partial", "callable-instance"])
def test_ppa016_a_property_is_reported_only_when_its_value_cannot_be_called(lint_project, getter, said):
    src = HEAD + "import functools\n\n\ndef pack(out):\n    return {'a': out.a}\n\n\nclass Callable_:\n" \
        "    def __call__(self):\n        return {}\n\n\nclass Out(DeviceAuxiliaryOutput):\n" \
        "    def copy_to_host(self, copy_tensor):\n        return self\n\n    def _pack(self):\n" \
        "        return {'a': self.a}\n\n    @property\n    def to_pp_tensors(self):\n        " + getter + "\n"
    lint_project({"pkg/mod.py": src})
    messages = [f.message for f in lint() if f.code == "PPA016"]
    assert messages == ([] if said is None else [
        f"`pkg.mod.Out.to_pp_tensors` is a property, so the helper calls the value it returns: TypeError: {said}"])


@pytest.mark.parametrize("method", [
    "async def from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['b'])",
    "def from_pp_tensors(self, tensors):\n    yield Out(tensors['a'], tensors['b'])",
    "@property\ndef from_pp_tensors(self):\n    return Out(None, None)",
    "def from_pp_tensors(self):\n    return Out(None, None)",
    "def from_pp_tensors(self, tensors, device):\n    return Out(tensors['a'], tensors['b'])",
    "def from_pp_tensors(self, tensors, *, device):\n    return Out(tensors['a'], tensors['b'])",
    "@staticmethod\ndef from_pp_tensors():\n    return Out(None, None)",
    "@staticmethod\ndef from_pp_tensors(a, b):\n    return Out(a, b)",
    "@classmethod\ndef from_pp_tensors(cls):\n    return Out(None, None)",
], ids=["async", "generator", "property", "no-param", "two-params", "required-kwonly", "static-none",
        "static-two", "classmethod-none"])
def test_ppa016_bad_from_pp_tensors_shape_points_at_the_def(lint_project, method):
    src = observer_src(method)
    lint_project({"pkg/mod.py": src})
    findings = [f for f in lint() if f.code != "PPA015"]
    assert {f.code for f in findings} == {"PPA016"}
    assert positions(findings, Path.cwd()) == {at(src, "from_pp_tensors(", "PPA016")}


@pytest.mark.parametrize("to_pp, from_pp", [
    ("def to_pp_tensors(self, device=None):\n    return {'a': self.a, 'b': self.b}",
     "def from_pp_tensors(self, tensors, device=None):\n    return Out(tensors['a'], tensors['b'])"),
    ("def to_pp_tensors(self, *args, **kwargs):\n    return {'a': self.a, 'b': self.b}",
     "def from_pp_tensors(self, *args):\n    return Out(args[0]['a'], args[0]['b'])"),
    ("@staticmethod\ndef to_pp_tensors():\n    return {'a': A, 'b': B}",
     "@staticmethod\ndef from_pp_tensors(tensors):\n    return Out(tensors['a'], tensors['b'])"),
    ("@classmethod\ndef to_pp_tensors(cls):\n    return {'a': A, 'b': B}",
     "@classmethod\ndef from_pp_tensors(cls, tensors, /):\n    return Out(tensors['a'], tensors['b'])"),
    ("def to_pp_tensors(self, /):\n    return {'a': self.a, 'b': self.b}",
     "def from_pp_tensors(self, tensors, **options):\n    return Out(tensors['a'], tensors['b'])"),
], ids=["defaults", "varargs", "staticmethods", "classmethods", "posonly-and-varkw"])
def test_ppa016_silent_on_shapes_that_fit_the_call(lint_project, to_pp, from_pp):
    src = HEAD + "\nA = B = None\n\n\nclass Out(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n" \
        "        return self\n\n" + textwrap.indent(to_pp, "    ") + "\n\n\nclass Obs(SamplingObserver):\n" \
        "    def is_active(self, sampling_info):\n        return True\n\n    def after_sample(self, state, ids):\n" \
        "        return Out(state, ids)\n\n" + textwrap.indent(from_pp, "    ") + "\n"
    assert check_module(lint_project, src) == set()


# -- PPA017 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["to_pp_tensor", "to_pptensors", "To_PP_Tensors", "to_pp_tensros", "topp_tensors"])
def test_ppa017_near_miss_replaces_ppa001(lint_project, name):
    src = HEAD + f"""

class Out(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def {name}(self):
        return {{"a": self.a}}
"""
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {at(src, f"{name}(self)", "PPA017")}
    assert "to_pp_tensors" in findings[0].message and name in findings[0].message


@pytest.mark.parametrize("name", ["from_pp_tensor", "From_PP_Tensors", "from_pptensor"])
def test_ppa017_near_miss_replaces_ppa002(lint_project, name):
    src = observer_src(f"def {name}(self, tensors):\n    return Out(tensors['a'], tensors['b'])")
    assert check_module(lint_project, src) == {at(src, f"{name}(self", "PPA017")}


def test_ppa017_silent_when_the_real_method_exists_or_the_class_is_not_an_output(lint_project):
    src = HEAD + """

class Both(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"a": self.a}

    def to_pp_tensor(self):
        return self.to_pp_tensors()["a"]


class NotAnOutput:
    def to_pp_tensor(self):
        return 1
"""
    assert check_module(lint_project, src) == set()


def test_ppa017_far_names_are_plain_ppa001(lint_project):
    src = HEAD + """

class Out(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_tensors(self):
        return {"a": self.a}
"""
    assert check_module(lint_project, src) == {at(src, "Out(", "PPA001")}


# -- PPA018 -----------------------------------------------------------------------------------------

PP_IMPORT = ("from sglang.srt.sampling.sampling_observer_pp import PipelineParallelAuxiliaryOutput, "
             "PipelineParallelSamplingObserver\n")


def test_ppa018_explicit_pp_protocol_without_override(lint_project):
    src = HEAD + PP_IMPORT + """

class Out(DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self


class Obs(SamplingObserver, PipelineParallelSamplingObserver):
    def is_active(self, sampling_info):
        return True

    def after_sample(self, state, token_ids):
        return Out()
"""
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {at(src, "Out(DeviceAuxiliaryOutput", "PPA018"),
                                                                    at(src, "Obs(SamplingObserver", "PPA018")}
    by_symbol = {f.symbol: f.message for f in findings}
    assert "auxiliary PP output must contain at least one tensor" in by_symbol["pkg.mod.Out"]
    assert "sampling observer did not reconstruct its PP output" in by_symbol["pkg.mod.Obs"]


def test_ppa018_through_module_alias_and_project_base(lint_project):
    lint_project({
        "pkg/base.py": """
            import sglang.srt.sampling.sampling_observer_pp as pp


            class PPBase(pp.PipelineParallelAuxiliaryOutput):
                def copy_to_host(self, copy_tensor):
                    return self
            """,
        # PPBase is constructed, so it is judged itself and not only through Leaf
        "pkg/impl.py": "from pkg.base import PPBase\n\n\nclass Leaf(PPBase):\n    pass\n\n\nDEFAULT = PPBase()\n",
    })
    assert reported(lint()) == {("pkg.base.PPBase", "PPA018"), ("pkg.impl.Leaf", "PPA018")}


@pytest.mark.parametrize("bases, expected", [
    ("TensorsMixin, PipelineParallelAuxiliaryOutput", set()),
    ("PipelineParallelAuxiliaryOutput, TensorsMixin", {"PPA018"}),
    ("DeviceAuxiliaryOutput, PipelineParallelAuxiliaryOutput, TensorsMixin", {"PPA018"}),
    ("DeviceAuxiliaryOutput, TensorsMixin, PipelineParallelAuxiliaryOutput", set()),
], ids=["mixin-first", "protocol-first", "protocol-before-mixin", "mixin-before-protocol"])
def test_ppa018_follows_the_mro_against_mixins(lint_project, bases, expected):
    src = HEAD + PP_IMPORT + f"""

class TensorsMixin:
    def to_pp_tensors(self):
        return {{"a": self.a}}


class Out({bases}):
    def copy_to_host(self, copy_tensor):
        return self
"""
    assert {code for *_, code in check_module(lint_project, src)} == expected


def test_ppa018_silent_with_override_or_on_interfaces(lint_project):
    src = HEAD + PP_IMPORT + """
from typing import Protocol


class Out(PipelineParallelAuxiliaryOutput, DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"a": self.a}


class Child(Out):
    pass


class RowAligned(PipelineParallelAuxiliaryOutput, Protocol):
    def rows(self) -> int: ...
"""
    assert check_module(lint_project, src) == set()


# -- PPA020 -----------------------------------------------------------------------------------------

CLASSES = HEAD + """

class NoPP(DeviceAuxiliaryOutput):
    def __init__(self, a):
        self.a = a

    def copy_to_host(self, copy_tensor):
        return self


class WithPP(NoPP):
    def to_pp_tensors(self):
        return {"a": self.a}


class PlainObs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return None


class PPObs(PlainObs):
    def from_pp_tensors(self, tensors):
        return WithPP(tensors["a"])
"""


@pytest.mark.parametrize("imports, add, pop", [
    (("from sglang.srt.sampling.sampling_observer_pp import add_auxiliary_output_to_pp_tensors, "
      "pop_auxiliary_output_from_pp_tensors"), "add_auxiliary_output_to_pp_tensors",
     "pop_auxiliary_output_from_pp_tensors"),
    (("from sglang.srt.sampling.sampling_observer_pp import add_auxiliary_output_to_pp_tensors as add_aux, "
      "pop_auxiliary_output_from_pp_tensors as pop_aux"), "add_aux", "pop_aux"),
    ("import sglang.srt.sampling.sampling_observer_pp as pp", "pp.add_auxiliary_output_to_pp_tensors",
     "pp.pop_auxiliary_output_from_pp_tensors"),
    (("from ppaux_lint.runtime import add_auxiliary_output_to_pp_tensors as put, "
      "pop_auxiliary_output_from_pp_tensors as take"), "put", "take"),
    ("from ppaux_lint import runtime", "runtime.add_auxiliary_output_to_pp_tensors",
     "runtime.pop_auxiliary_output_from_pp_tensors"),
], ids=["sglang", "sglang-aliased", "sglang-module", "ppaux-runtime-aliased", "ppaux-runtime-module"])
def test_ppa020_bad_helper_arguments_point_at_the_call(lint_project, imports, add, pop):
    glue = f"""
{imports}
from pkg.classes import NoPP, PlainObs, WithPP, PPObs


def send(tensors, a):
    {add}(tensors, NoPP(a))
    {add}(tensors, WithPP(a))


def receive(tensors, observer):
    {pop}(tensors, None)
    {pop}(tensors, PlainObs())
    {pop}(tensors, PPObs())
    {pop}(tensors, observer)


def receive_local(tensors):
    obs = PlainObs()
    return {pop}(tensors, obs)
"""
    root = lint_project({"pkg/classes.py": CLASSES, "pkg/glue.py": glue})
    findings = [f for f in lint() if f.code == "PPA020"]
    assert positions(findings, root) == {
        at(glue, f"{add}(tensors, NoPP", "PPA020", path="pkg/glue.py"),
        at(glue, f"{pop}(tensors, None", "PPA020", path="pkg/glue.py"),
        at(glue, f"{pop}(tensors, PlainObs()", "PPA020", path="pkg/glue.py"),
        at(glue, f"{pop}(tensors, obs)", "PPA020", path="pkg/glue.py"),
    }
    messages = " ".join(f.message for f in findings)
    assert "auxiliary output does not support pipeline-parallel transport" in messages
    assert "received auxiliary PP output without a sampling observer" in messages
    assert "sampling observer does not support pipeline-parallel transport" in messages


def test_ppa020_silent_on_lookalikes_and_unknown_arguments(lint_project):
    glue = """
from sglang.srt.sampling.sampling_observer_pp import pop_auxiliary_output_from_pp_tensors
from pkg.classes import NoPP, PlainObs
from thirdparty.outputs import Mystery


def add_auxiliary_output_to_pp_tensors(tensors, output):
    tensors["x"] = output


def send(tensors, a):
    add_auxiliary_output_to_pp_tensors(tensors, NoPP(a))


def make_observer():
    return PlainObs()


def receive(tensors, flag):
    pop_auxiliary_output_from_pp_tensors(tensors, make_observer())
    pop_auxiliary_output_from_pp_tensors(tensors, Mystery())
    obs = PlainObs()
    obs = flag
    pop_auxiliary_output_from_pp_tensors(tensors, obs)
"""
    root = lint_project({"pkg/classes.py": CLASSES, "pkg/glue.py": glue})
    assert {p for p in positions(lint(), root) if p[0] == "pkg/glue.py"} == set()


# -- PPA021 -----------------------------------------------------------------------------------------


def test_ppa021_raw_prefix_uses_point_at_the_string(lint_project):
    src = '''
def read(tensors):
    if "__sampling_observer_output__.entropy" in tensors:
        return tensors["__sampling_observer_output__.entropy"]
    value = tensors.get("__sampling_observer_output__.margin")
    tensors.pop("__sampling_observer_output__.scores", None)
    if "__sampling_observer_output__.x" not in tensors:
        return value
    return tensors[f"__sampling_observer_output__.{value}"]
'''
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {
        at(src, '"__sampling_observer_output__.entropy" in', "PPA021"),
        at(src, '"__sampling_observer_output__.entropy"]', "PPA021"),
        at(src, '"__sampling_observer_output__.margin"', "PPA021"),
        at(src, '"__sampling_observer_output__.scores"', "PPA021"),
        at(src, '"__sampling_observer_output__.x"', "PPA021"),
        at(src, 'f"__sampling_observer_output__.', "PPA021"),
    }


def test_ppa021_silent_in_the_helpers_module_and_on_keys_that_need_not_start_with_it(lint_project):
    helpers = '''
_PREFIX = "__sampling_observer_output__."


def add_auxiliary_output_to_pp_tensors(tensors, output):
    for name, tensor in output.to_pp_tensors().items():
        tensors["__sampling_observer_output__." + name] = tensor


def pop_auxiliary_output_from_pp_tensors(tensors, observer):
    received = {key[len(_PREFIX):]: tensors[key] for key in tensors if key.startswith(_PREFIX)}
    tensors.pop(_PREFIX + "done", None)
    return observer.from_pp_tensors(received)
'''
    other = '''
PREFIX = "__sampling_observer_output__."


def read(tensors, name, flag):
    key = PREFIX + name if flag else name
    if flag:
        name = PREFIX + name
    return tensors.get(key), tensors[name], "sampling_observer_output" in tensors, tensors[name + PREFIX]
'''
    root = lint_project({"pkg/helpers.py": helpers, "pkg/other.py": other})
    assert positions(lint(), root) == set()


# -- positions are counted in characters ---------------------------------------------------------------


def test_columns_count_characters_not_bytes(lint_project):
    src = HEAD + '''

class Out(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"größe": self.a, "αβγ": self.b.tolist(), "": self.c}


def peek(tensors):
    return {"ü": tensors["__sampling_observer_output__.x"]}


class Ünïcode(DeviceAuxiliaryOutput):
    pass
'''
    lint_project({"pkg/mod.py": src})
    findings = lint()
    assert positions(findings, Path.cwd()) == {
        at(src, "self.b.tolist()", "PPA012"),
        at(src, '"": self.c', "PPA011"),
        at(src, '"__sampling_observer_output__.x"', "PPA021"),
        at(src, "Ünïcode", "PPA001"),
    }
    spans = {f.code: f.span for f in findings}
    assert spans["PPA012"].end_column - spans["PPA012"].column == len("self.b.tolist()")
    assert spans["PPA001"].end_column - spans["PPA001"].column == len("Ünïcode")


# -- a base's to_pp_tensors is judged on the instances that run it --------------------------------------------
BASE_AND_SUBCLASS = HEAD + """

class StatOutput(DeviceAuxiliaryOutput):
    KEY = {base_key}

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        {base_body}


class EntropyOutput(StatOutput):
    KEY = {sub_key}

    def __init__(self, value):
        self.value = value
{sub_method}

class EntropyObserver(SamplingObserver):
    def after_sample(self, state, token_ids):
        return EntropyOutput(state)

    def from_pp_tensors(self, tensors):
        return EntropyOutput(next(iter(tensors.values())))
"""


def _base_and_subclass(base_body: str, sub_method: str = "", base_key: str = "'value'",
                       sub_key: str = "'value'") -> str:
    return BASE_AND_SUBCLASS.format(base_body=base_body, sub_method=textwrap.indent(textwrap.dedent(sub_method), "    "),
                                    base_key=base_key, sub_key=sub_key)


@pytest.mark.parametrize("base_body, sub_method", [
    ("return {}", "def to_pp_tensors(self):\n    return {'entropy': self.value}\n"),
    ("return None", "def to_pp_tensors(self):\n    return {'entropy': self.value}\n"),
    ("return {'placeholder': 0}", "def to_pp_tensors(self):\n    return {'entropy': self.value}\n"),
    ("return {}", "def to_pp_tensors(self):\n    return {**super().to_pp_tensors(), 'entropy': self.value}\n"),
    ("return {}", "def to_pp_tensors(self):\n    out = StatOutput.to_pp_tensors(self)\n"
                  "    out['entropy'] = self.value\n    return out\n"),
    ("return {}", "def _common(self):\n    return super().to_pp_tensors()\n\n"
                  "def to_pp_tensors(self):\n    return {**self._common(), 'entropy': self.value}\n"),
], ids=["empty-placeholder", "none-placeholder", "non-tensor-placeholder", "merged-through-super",
        "merged-through-the-base", "merged-through-a-helper"])
def test_a_base_method_every_sending_subclass_overrides_is_not_judged_alone(lint_project, base_body, sub_method):
    """Only ``EntropyOutput`` is built: the base's method never runs, or runs merged into the subclass's mapping
    (where an empty one is no error), so SGLang raises nothing."""
    assert check_module(lint_project, _base_and_subclass(base_body, sub_method)) == set()


@pytest.mark.parametrize("base_body, code", [("return {}", "PPA010"), ("return None", "PPA010")])
def test_a_base_method_a_subclass_returns_through_super_is_judged(lint_project, base_body, code):
    src = _base_and_subclass(base_body, "def to_pp_tensors(self):\n    return super().to_pp_tensors()\n")
    assert {finding[-1] for finding in check_module(lint_project, src)} == {code}


@pytest.mark.parametrize("sub_method", [
    "def _common(self):\n    return super().to_pp_tensors()\n\ndef to_pp_tensors(self):\n    return dict(self._common())\n",
    "def to_pp_tensors(self):\n    base = StatOutput.to_pp_tensors\n    return dict(base(self))\n",
], ids=["through-a-helper", "through-an-alias"])
def test_a_base_value_a_subclass_reaches_another_way_is_judged(lint_project, sub_method):
    """The base's ``.tolist()`` reaches the helper through the subclass (SGLang raises): its PPA012 stands."""
    src = _base_and_subclass("return {'ids': self.value.tolist()}", sub_method)
    assert {finding[-1] for finding in check_module(lint_project, src)} == {"PPA012"}


@pytest.mark.parametrize("base_key, sub_key, expected", [
    ("''", "'entropy'", set()),  # the base is never built: only the subclass's key is sent
    ("None", "'entropy'", set()),
    ("'value'", "''", {"PPA011"}),  # the subclass sends an empty name
])
def test_a_key_constant_is_the_one_of_the_instance_that_runs_the_method(lint_project, base_key, sub_key, expected):
    src = _base_and_subclass("return {self.KEY: torch.zeros(1)}", base_key=base_key, sub_key=sub_key)
    assert {finding[-1] for finding in check_module(lint_project, src)} == expected


def test_duplicate_keys_are_judged_per_instance(lint_project):
    src = _base_and_subclass("return {self.KEY: torch.zeros(1), self.OTHER: torch.ones(1)}",
                             base_key="'a'\n    OTHER = 'a'", sub_key="'ids'\n    OTHER = 'vals'")
    assert check_module(lint_project, src) == set()
    both = src.replace("return EntropyOutput(state)", "return EntropyOutput(state) if state else StatOutput()")
    assert {finding[-1] for finding in check_module(lint_project, both)} == {"PPA013"}


@pytest.mark.parametrize("guard", ["not tensors", "tensors is None", "len(tensors) == 0", "not len(tensors)",
                                   "tensors == {}", "tensors is None or not tensors"])
def test_ppa014_silent_on_a_guard_against_tensors_the_helper_never_hands_over(lint_project, guard):
    """SGLang's helper returns before it calls ``from_pp_tensors`` when none of the output's tensors arrived: a
    ``return None`` under a test that they are empty or None never runs. One under any other test still does."""
    guarded = observer_src(f"def from_pp_tensors(self, tensors):\n    if {guard}:\n        return None\n"
                           "    return Out(tensors['a'], tensors['b'])")
    assert check_module(lint_project, guarded) == set()
    other = guarded.replace(f"if {guard}:", "if self.strict:")
    assert {finding[-1] for finding in check_module(lint_project, other)} == {"PPA014"}
    for change in ("tensors = {k: v for k, v in tensors.items() if k != 'mask'}", "mask = tensors.pop('mask')",
                   "self._drop_known(tensors)", "rest = tensors"):
        changed = guarded.replace(f"        if {guard}:", f"        {change}\n        if {guard}:")  # emptied here
        assert "PPA014" in {finding[-1] for finding in check_module(lint_project, changed)}, change


@pytest.mark.parametrize("first, second, ends", [
    ('"a" in tensors', '"a" not in tensors', True),
    ("tensors.get('a') is not None", "tensors.get('a') is None", False),  # a call may answer otherwise the second time
    ("not tensors", "tensors", True),
    ('len(tensors) > 1', 'len(tensors) <= 1', False),
    ('"a" in tensors', '"b" not in tensors', False),
    ("KEYS >= FULL", "KEYS < FULL", False),  # on sets, a superset test and a proper-subset test: both may fail
], ids=["in-not-in", "calls", "not", "len-calls", "other-key", "orderings"])
def test_ppa014_an_elif_that_negates_the_if_ends_the_chain(lint_project, first, second, ends):
    """``if x: return ... elif not x: return ...`` covers every case: nothing falls off its end (each test is
    evaluated once, as written; a call in it is not taken to answer the same twice). The keys sent are not known
    here, so no test of one is taken to be answered by what always arrives."""
    src = observer_src(f"def from_pp_tensors(self, tensors):\n    if {first}:\n        return Out(tensors['a'], 1)\n"
                       f"    elif {second}:\n        return Out(tensors['b'], 2)", to_pp="return dict(self.parts)")
    assert {finding[-1] for finding in check_module(lint_project, src)} == (set() if ends else {"PPA014"})


def test_a_metaclass_to_pp_tensors_is_not_an_outputs(lint_project):
    """A method of a metaclass is an attribute of the classes it makes, which their instances never see: SGLang
    never calls it. The class it makes is judged by its own methods."""
    src = HEAD + """

class Meta(type):
    def to_pp_tensors(cls):
        return {"ids": None}


class Out(DeviceAuxiliaryOutput, metaclass=Meta):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"ids": None}
"""
    assert check_module(lint_project, src) == {at(src, "None}", "PPA012", nth=2)}


@pytest.mark.parametrize("decorator, reported", [
    ("def on_device(fn):\n    def wrapper(self, tensors):\n        return fn(self, tensors, 'cpu')\n    return wrapper\n",
     False),  # the helper calls the wrapper, which takes what it passes
    ("def on_device(fn):\n    fn.tagged = True\n    return fn\n", True),  # returns what it gets: the def is called
    ("def on_device(fn):\n    def wrapper(*args, **kwargs):\n        print('traced')\n"
     "        return fn(*args, **kwargs)\n    return wrapper\n", True),  # forwards every argument: the def's shape
    ("def on_device(fn):\n    def wrapper(*args, **kwargs):\n        return asyncio.run(fn(*args, **kwargs))\n"
     "    return wrapper\n", False),  # does something else with the call
    ("def on_device(fn):\n    def wrapper(*args, **kwargs):\n        result = fn(*args, **kwargs)\n"
     "        return result\n    return functools.update_wrapper(wrapper, fn)\n", True),  # forwards, however written
    ("def on_device(fn):\n    def wrapper(*args, **kwargs):\n        kwargs.setdefault('device', 'cpu')\n"
     "        return fn(*args, **kwargs)\n    return wrapper\n", False),  # supplies the extra argument
], ids=["wrapper", "keeps-the-function", "forwarding-wrapper", "transforming-wrapper", "update-wrapper",
        "adds-a-keyword"])
def test_ppa016_a_project_decorator_that_wraps_the_method_decides_its_shape(lint_project, decorator, reported):
    src = "import asyncio\nimport functools\n" + observer_src("@on_device\ndef from_pp_tensors(self, tensors, device):\n"
                       "    return Out(tensors['a'].to(device), tensors['b'])", extra=decorator)
    codes = {finding[-1] for finding in check_module(lint_project, src)}
    assert codes == ({"PPA016"} if reported else set())


# -- what to_pp_tensors returns through a helper of its class, or dataclasses.asdict(self) ------------------
HELPER_OUTPUT = HEAD + """
import dataclasses


class Out(DeviceAuxiliaryOutput):
    def __init__(self, ids: torch.Tensor, names: list[str]):
        self.ids = ids
        self.names = names

    def copy_to_host(self, copy_tensor):
        return self

    def _pack(self):
        return {"ids": self.ids, "names": self.names}

    def to_pp_tensors(self):
        return self._pack()


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out(token_ids, ["a"])

    def from_pp_tensors(self, tensors):
        return Out(tensors["ids"], tensors["nmes"])
"""


def test_a_helper_that_to_pp_tensors_returns_is_what_is_sent(lint_project):
    src = HELPER_OUTPUT
    assert check_module(lint_project, src) == {
        value_at(src, '"names": ', "PPA012"), at(src, '"names"', "PPA015"), at(src, '"nmes"', "PPA015")}


def test_a_helper_a_subclass_overrides_is_not_followed(lint_project):
    """The instances that run ``to_pp_tensors`` call different helpers: what its values are is not one thing, and
    PPA012 stays silent; the keys of the observer's pair (``Out``, which it rebuilds) are still its own."""
    src = HELPER_OUTPUT.replace("class Obs(", """class Other(Out):
    def _pack(self):
        return {"ids": self.ids}


class Obs(""").replace("return Out(token_ids, [\"a\"])", "return Out(token_ids, ['a']) if state else Other(token_ids, [])")
    assert {finding[-1] for finding in check_module(lint_project, src)} == {"PPA015"}


DATACLASS_OUTPUT = HEAD + """
import dataclasses
from dataclasses import dataclass


@dataclass
class Out(DeviceAuxiliaryOutput):
    ids: torch.Tensor
    names: list[str]
    SCALE: typing.ClassVar[float] = 1.0

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return dataclasses.asdict(self)


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Out(token_ids, ["a"])

    def from_pp_tensors(self, tensors):
        return Out(tensors["ids"], tensors["nmes"])
"""


def test_asdict_of_self_sends_the_dataclass_fields(lint_project):
    src = "import typing\n" + DATACLASS_OUTPUT
    assert {finding[-1] for finding in check_module(lint_project, src)} == {"PPA012", "PPA015"}
    messages = sorted(f.message for f in lint())
    assert any("returns a list (field `names: list[str]`) under 'names'" in m for m in messages)
    assert any("reads 'nmes', but `pkg.mod.Out.to_pp_tensors` never sends it (it sends 'ids', 'names')" in m
               for m in messages)


def test_asdict_of_a_class_with_an_unseen_base_is_not_read(lint_project):
    src = "import typing\nfrom elsewhere import Base\n" + DATACLASS_OUTPUT.replace(
        "class Out(DeviceAuxiliaryOutput):", "class Out(Base, DeviceAuxiliaryOutput):")
    assert {finding[-1] for finding in check_module(lint_project, src)} == set()


@pytest.mark.parametrize("bound, reported", [
    ("staticmethod(_rebuild)", True),  # no instance is bound: the helper's one argument fills ``self``
    ("classmethod(_rebuild_from)", False),  # the class fills the first parameter, the tensors the second
    ("classmethod(_from)", True),  # the class and the tensors: one argument too many
    ("classmethod(_rebuild)", False),  # the class fills ``self``, which it never reads
    ("functools.partial(_rebuild)", True),  # a partial binds no instance either
    ("staticmethod(_from)", False),
    ("functools.partial(_rebuild, None)", False),  # the partial's argument fills ``self``, the tensors the next
    ("functools.partial(_into, into=Out)", False),  # its keyword fills the second parameter
    ("functools.partial(_into, scale=2)", True),  # nothing fills ``into``
], ids=["staticmethod", "classmethod-fits", "classmethod-too-many", "classmethod", "partial", "staticmethod-fits",
        "partial-fills-self", "partial-keyword-fits", "partial-keyword-short"])
def test_ppa016_a_function_wrapped_as_it_is_bound(lint_project, bound, reported):
    """Each confirmed through SGLang 0.5.23's helpers: a partial binds no instance, and what it gives is given."""
    src = "import functools\n" + observer_src(f"from_pp_tensors = {bound}", extra="""

def _rebuild(self, tensors):
    return Out(tensors["a"], tensors["b"])


def _rebuild_from(cls, tensors):
    return Out(tensors["a"], tensors["b"])


def _from(tensors):
    return Out(tensors["a"], tensors["b"])


def _into(tensors, into, scale=1):
    return into(tensors["a"], tensors["b"])
""")
    assert {finding[-1] for finding in check_module(lint_project, src)} == ({"PPA016"} if reported else set())


@pytest.mark.parametrize("bound", ['Out.to_pp_tensors = functools.partial(_pack, key="a")',
                                   'setattr(Out, "to_pp_tensors", functools.partial(_pack, key="a"))'])
def test_ppa016_a_partial_with_keywords_still_binds_no_instance(lint_project, bound):
    """``functools.partial(_pack, key="a")`` gives ``key`` but no instance: the helper's call leaves ``_pack``'s
    first parameter empty (confirmed through SGLang 0.5.23's helpers: TypeError, missing 1 required positional
    argument)."""
    src = "import functools\n" + output_src('return {"a": self.a}').replace(
        "    def to_pp_tensors(self):\n", "    def unused(self):\n") + f"""

def _pack(out, *, key):
    return {{key: out.a}}


{bound}
"""
    assert {finding[-1] for finding in check_module(lint_project, src)} == {"PPA016"}


def test_a_key_constant_a_base_declares_as_a_classvar_is_each_subclass_s(lint_project):
    """``KEY: ClassVar[str]`` declares a class attribute, not an instance one: ``self.KEY`` reads the subclass's."""
    src = _base_and_subclass("return {self.KEY: torch.zeros(1)}", base_key="'x'", sub_key="''").replace(
        "    KEY = 'x'\n", "    KEY: typing.ClassVar[str]\n")
    assert {finding[-1] for finding in check_module(lint_project, "import typing\n" + src)} == {"PPA011"}


def test_a_helper_with_a_decorator_is_not_followed(lint_project):
    """A project decorator may change what ``_pack`` returns (``@namespaced`` prefixes every key): its own dict is
    not what is sent, and no key is compared."""
    src = HELPER_OUTPUT.replace("    def _pack(self):", "    @namespaced\n    def _pack(self):") + """

def namespaced(fn):
    def wrapper(self):
        return {f"topk.{k}": v for k, v in fn(self).items()}
    return wrapper
"""
    assert {finding[-1] for finding in check_module(lint_project, src)} == set()


def test_asdict_skips_a_classvar_however_it_is_imported(lint_project):
    src = "import typing\nfrom typing import ClassVar as CV\n" + DATACLASS_OUTPUT.replace(
        "    SCALE: typing.ClassVar[float] = 1.0", "    VERSION: CV[int] = 2").replace('tensors["nmes"]', 'tensors["names"]')
    messages = [f.message for f in (lint_project({"pkg/mod.py": src}) and lint())]
    assert not any("VERSION" in m for m in messages), messages


DROPPING = """

def traced(fn):
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__)
        fn(*args, **kwargs)
    return wrapper
"""


def test_a_wrapper_that_drops_the_result_makes_the_method_return_none(lint_project):
    """``@traced`` calls the method and returns nothing: ``from_pp_tensors`` rebuilds nothing (PPA014) and
    ``to_pp_tensors`` sends nothing (PPA010), whatever their bodies say."""
    src = observer_src("@traced\ndef from_pp_tensors(self, tensors):\n    return Out(tensors['a'], tensors['b'])",
                       extra=DROPPING)
    assert {finding[-1] for finding in check_module(lint_project, src)} == {"PPA014"}
    sent_nothing = output_src("return {'a': self.a}", extra=DROPPING).replace(
        "    def to_pp_tensors(self):", "    @traced\n    def to_pp_tensors(self):")
    assert {finding[-1] for finding in check_module(lint_project, sent_nothing)} == {"PPA010"}
    forwarding = src.replace("        fn(*args, **kwargs)", "        return fn(*args, **kwargs)")
    assert check_module(lint_project, forwarding) == set()


# -- PPA022 -----------------------------------------------------------------------------------------


# A part of a composite that crosses a stage on its own.
PART = """

class Part(DeviceAuxiliaryOutput):
    def __init__(self, ids):
        self.ids = ids

    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensors(self):
        return {"ids": self.ids}
"""

COMPOSITES = IMPORT_AUX + IMPORT_OBS + """from sglang.srt.managers import auxiliary_output as aux
from sglang.srt.managers.auxiliary_output import CompositeDeviceAuxiliaryOutput, append_auxiliary_output
""" + PART + """

class Direct(SamplingObserver):
    def after_sample(self, state, token_ids):
        return CompositeDeviceAuxiliaryOutput((Part(token_ids),))

    def from_pp_tensors(self, tensors):
        return Part(tensors["ids"])


class ThroughHelper(Direct):
    def after_sample(self, state, token_ids):
        if state is None:
            return None
        return self._bundle(token_ids)

    def _bundle(self, token_ids):
        bundle = aux.CompositeDeviceAuxiliaryOutput((Part(token_ids), Part(token_ids)))
        return bundle


class Inherits(ThroughHelper):
    pass


class Appended(Direct):
    def after_sample(self, state, token_ids):
        return append_auxiliary_output(None, Part(token_ids))


class Own(Direct):
    def after_sample(self, state, token_ids):
        return Part(token_ids)
"""


def test_ppa022_an_observer_returning_sglang_s_composite_is_reported_at_its_after_sample(lint_project):
    """SGLang's ``CompositeDeviceAuxiliaryOutput`` has no ``to_pp_tensors``: the add helper refuses it (confirmed
    through SGLang 0.5.23's helpers). Returned directly, through a helper and a local, or through the module, each
    ``after_sample`` that can return one is reported once, where it is written (``Inherits`` uses
    ``ThroughHelper``'s); ``append_auxiliary_output`` may hand back its one output, and is not followed."""
    lint_project({"pkg/mod.py": COMPOSITES})
    findings = [f for f in lint() if f.code == "PPA022"]
    assert {(f.symbol, f.span.line) for f in findings} == {
        ("pkg.mod.Direct", locate(COMPOSITES, "def after_sample")[0]),
        ("pkg.mod.ThroughHelper", locate(COMPOSITES, "def after_sample", 2)[0])}
    assert "can return SGLang's `CompositeDeviceAuxiliaryOutput`, which has no `to_pp_tensors`" in findings[0].message


@pytest.mark.parametrize("patch", [
    "CompositeDeviceAuxiliaryOutput.to_pp_tensors = _bundle_to_pp",
    "setattr(CompositeDeviceAuxiliaryOutput, 'to_pp_tensors', _bundle_to_pp)",
    "for _cls in (CompositeDeviceAuxiliaryOutput,):\n    _cls.to_pp_tensors = _bundle_to_pp",
])
def test_ppa022_is_silent_where_the_project_gives_the_composite_a_to_pp_tensors(lint_project, patch: str) -> None:
    """The project may give SGLang's class the method itself (confirmed through SGLang 0.5.23's helpers: add then
    sends the bundle, pop rebuilds its part): no observer returning it is reported."""
    patched = COMPOSITES + f"\n\ndef _bundle_to_pp(self):\n    return {{'ids': self.outputs[0].ids}}\n\n\n{patch}\n"
    lint_project({"pkg/mod.py": patched})
    assert [f for f in lint() if f.code == "PPA022"] == []


SUBCLASSED = IMPORT_AUX + IMPORT_OBS + """from sglang.srt.managers.auxiliary_output import CompositeDeviceAuxiliaryOutput
""" + PART + """

class Bundle(CompositeDeviceAuxiliaryOutput):
    pass


class Sent(CompositeDeviceAuxiliaryOutput):
    def to_pp_tensors(self):
        return {"ids": self.outputs[0].ids}


class Obs(SamplingObserver):
    def after_sample(self, state, token_ids):
        return Bundle((Part(token_ids),)) if state is None else Sent((Part(token_ids),))

    def from_pp_tensors(self, tensors):
        return Part(tensors["ids"])
"""


def test_ppa001_a_project_subclass_of_sglang_s_composite_is_an_output_without_to_pp_tensors(lint_project):
    """``class Bundle(CompositeDeviceAuxiliaryOutput): pass`` inherits SGLang's ``copy_to_host`` and no
    ``to_pp_tensors``: the add helper refuses it (confirmed through SGLang 0.5.23's helpers), so it is an output
    with PPA001, not a class on an unknown base; a subclass that defines the method sends it, and is not reported."""
    lint_project({"pkg/mod.py": SUBCLASSED})
    assert {(f.code, f.symbol) for f in lint()} == {("PPA001", "pkg.mod.Bundle")}


@pytest.mark.parametrize("made", ["copy.copy(CompositeDeviceAuxiliaryOutput((Part(token_ids),)))",
                                  "dataclasses.replace(_EMPTY, outputs=(Part(token_ids),))"])
def test_ppa022_a_copy_of_sglang_s_composite_is_one_too(lint_project, made: str) -> None:
    """``copy.copy`` and ``dataclasses.replace`` hand back their argument's class, SGLang's composite too (confirmed
    through SGLang 0.5.23's helpers: the add helper refuses the copy)."""
    src = "import copy\nimport dataclasses\n" + COMPOSITES.replace(
        "        return CompositeDeviceAuxiliaryOutput((Part(token_ids),))", f"        return {made}") \
        + "\n\n_EMPTY = CompositeDeviceAuxiliaryOutput(())\n"
    lint_project({"pkg/mod.py": src})
    assert ("pkg.mod.Direct", locate(src, "def after_sample")[0]) in {
        (f.symbol, f.span.line) for f in lint() if f.code == "PPA022"}
