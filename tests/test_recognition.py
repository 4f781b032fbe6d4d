"""How classes are recognised: the signatures SGLang calls, and the outside bases whose members are known.

Two halves of one question, "is this class what SGLang will call?". A method named ``copy_to_host`` is
SGLang's only when SGLang's one-argument call binds to it the way the protocol means it (numba's and CuPy's
device arrays have one too). A class built on a well-known library base (``msgspec.Struct``,
``pydantic.BaseModel``, ``torch.nn.Module``, ...) is checked, because that base is known to provide no
transport method; a truly unknown base keeps the silence.
"""

from __future__ import annotations

import sys

import pytest
from lintkit import IMPORT_AUX, IMPORT_OBS, OUTPUT_ROOT, lint, reported, run_analysis

from ppaux_lint.cli.inventory import build
from ppaux_lint.contract.names import AFTER_FORWARD, AFTER_SAMPLE, COPY_TO_HOST, FROM_PP, TO_PP
from ppaux_lint.facts.summarize.source import summarize_source
from ppaux_lint.index import known_bases
from ppaux_lint.index.hooks import AFTER_FORWARD_CALL, AFTER_SAMPLE_CALL, COPY_TO_HOST_CALL

# -- signatures ----------------------------------------------------------------------------------------

LOOKALIKES = """
class NumbaDeviceArray:
    def copy_to_host(self, ary=None, stream=0):
        return ary


class CupyLikeArray:
    def copy_to_host(self):
        return self


class NeedsAStream:
    def copy_to_host(self, copy_tensor, *, stream):
        return copy_tensor(stream)


class TakesTwo:
    def copy_to_host(self, copy_tensor, stream):
        return copy_tensor(stream)


class TakesAnything:
    def copy_to_host(self, *args):
        return args
"""


def test_device_arrays_of_other_libraries_are_not_outputs(lint_project):
    lint_project({"pkg/arrays.py": LOOKALIKES})
    analysis = run_analysis()
    assert analysis.findings == []
    assert all(not info.roles for info in analysis.classes.values())


def test_an_explicit_output_base_wins_over_the_signature(lint_project):
    lint_project({"pkg/impl.py": IMPORT_AUX + """

class Odd(DeviceAuxiliaryOutput):
    def copy_to_host(self, ary=None, stream=0):
        return ary
"""})
    assert reported(lint()) == {("pkg.impl.Odd", "PPA001")}


@pytest.mark.parametrize("method", [
    "def copy_to_host(self, copy_tensor):",
    "def copy_to_host(self, copy_tensor, non_blocking=False):",
    "def copy_to_host(self, copy_tensor, /):",
    "def copy_to_host(self, copy_tensor, *, stream=None):",
    "def copy_to_host(self, copy_tensor, **options):",
    "@staticmethod\n    def copy_to_host(copy_tensor):",
    "async def copy_to_host(self, copy_tensor):",
], ids=["plain", "optional-extra", "positional-only", "optional-keyword", "varkw", "staticmethod", "async"])
def test_copy_to_host_that_takes_sglangs_call_makes_an_output(lint_project, method):
    lint_project({"pkg/impl.py": f"""
class Out:
    {method}
        return self
"""})
    assert reported(lint()) == {("pkg.impl.Out", "PPA001")}


def test_an_assigned_copy_to_host_is_the_function_it_names(lint_project):
    """A project function bound as ``copy_to_host`` is the method it becomes, signature and all (issue 33); a
    value the analysis cannot read (an outside function, a call's result) shows no signature, so it makes no
    output on its own."""
    lint_project({"pkg/impl.py": IMPORT_AUX + """
from functools import partial

from thirdparty import copy_any


def _copy(self, copy_tensor):
    return self


def _copy_numba(self, ary=None, stream=0):
    return self


class Assigned:
    copy_to_host = _copy


class NumbaLike:
    copy_to_host = _copy_numba


class Outside:
    copy_to_host = copy_any


class Made:
    copy_to_host = partial(_copy)


class Declared(DeviceAuxiliaryOutput):
    copy_to_host = copy_any
"""})
    assert reported(lint()) == {("pkg.impl.Assigned", "PPA001"), ("pkg.impl.Declared", "PPA001")}


def test_an_inherited_copy_to_host_is_judged_by_its_signature(lint_project):
    lint_project({"pkg/impl.py": """
class Base:
    def copy_to_host(self, copy_tensor):
        return self


class Child(Base):
    pass


class NumbaBase:
    def copy_to_host(self, ary=None, stream=0):
        return ary


class NumbaChild(NumbaBase):
    pass


DEFAULTS = [Base(), NumbaBase()]  # constructed: each base is judged itself, not only through its child
"""})
    analysis = run_analysis()
    assert reported(analysis.findings) == {("pkg.impl.Base", "PPA001"), ("pkg.impl.Child", "PPA001")}
    assert analysis.classes["pkg.impl.Child"].recognized["output"] == (
        "structural: inherits `copy_to_host` from pkg.impl.Base")


def test_a_structural_reason_says_what_the_class_defines_and_what_it_inherits(lint_project):
    """Issue 22 item 8: an observer that defines ``after_sample`` does not inherit it."""
    lint_project({"pkg/impl.py": """
class Gate:
    def is_active(self, sampling_info):
        return True


class Mixin:
    def before_grammar(self, logits, sampling_info):
        return logits


class Sampler(Gate):
    def after_sample(self, state, token_ids):
        return None


class Inherited(Sampler):
    pass


class Mixed(Mixin, Gate):
    def after_sample(self, state, token_ids):
        return None


class BothOwn(Gate):
    def after_sample(self, state, token_ids):
        return None

    def is_active(self, sampling_info):
        return False
"""})
    recognized = {fqn.rpartition(".")[2]: info.recognized.get("observer")
                  for fqn, info in run_analysis().classes.items()}
    assert recognized["Sampler"] == "structural: defines `after_sample`, inherits `is_active` from pkg.impl.Gate"
    assert recognized["Inherited"] == (
        "structural: inherits `after_sample` from pkg.impl.Sampler, `is_active` from pkg.impl.Gate")
    assert recognized["Mixed"] == "structural: defines `after_sample`, inherits `is_active` from pkg.impl.Gate"
    assert recognized["BothOwn"] == "structural: defines `after_sample` and `is_active`"


@pytest.mark.parametrize("signature, observer", [
    ("self, state, token_ids", True),
    ("self, state, token_ids, top_k=5", True),
    ("self, state", False),
    ("self, state, token_ids, *, mode", False),
    ("self, state=None, token_ids=None", False),
], ids=["sglang", "optional-extra", "one-argument", "required-keyword", "optional-positionals"])
def test_after_sample_must_take_state_and_token_ids(lint_project, signature, observer):
    lint_project({"pkg/impl.py": f"""
class Obs:
    def is_active(self, sampling_info):
        return True

    def after_sample({signature}):
        return state  # not visible to the inference: may be an output
"""})
    assert reported(lint()) == ({("pkg.impl.Obs", "PPA002")} if observer else set())


def _method(source: str):
    summary = summarize_source(f"class C:\n    {source}\n        pass\n".encode(), "m.py", "m", False)
    return summary.classes[0].methods[0]


@pytest.mark.parametrize("call, source, fits", [
    (COPY_TO_HOST_CALL, "def copy_to_host(self, f):", True),
    (COPY_TO_HOST_CALL, "def copy_to_host(self, ary=None, stream=0):", False),
    (COPY_TO_HOST_CALL, "def copy_to_host(self):", False),
    (COPY_TO_HOST_CALL, "@classmethod\n    def copy_to_host(cls, f):", True),
    (AFTER_SAMPLE_CALL, "def after_sample(self, state, token_ids, /):", True),
    (AFTER_SAMPLE_CALL, "def after_sample(self, state, token_ids, extra, /):", False),
    (AFTER_FORWARD_CALL, "def after_forward(self, b, fb, lo, *, can_run_graph):", True),
    (AFTER_FORWARD_CALL, "def after_forward(self, b, fb, lo, can_run_graph, /):", False),
    (AFTER_FORWARD_CALL, "def after_forward(self, b, fb, can_run_graph, **kw):", False),
])
def test_hook_calls_bind_as_python_would(call, source, fits):
    """Positional-only parameters cannot take SGLang's keyword; a keyword that fills a positional twice fails."""
    assert call.fits(_method(source)) is fits


# -- known bases -----------------------------------------------------------------------------------------

FAMILIES = [
    ("import msgspec", "msgspec.Struct"),
    ("from typing import NamedTuple", "NamedTuple"),
    ("from typing_extensions import NamedTuple", "NamedTuple"),
    ("from pydantic import BaseModel", "BaseModel"),
    ("from pydantic.main import BaseModel", "BaseModel"),
    ("import pydantic.v1 as v1", "v1.BaseModel"),
    ("import enum", "enum.Enum"),
    ("from enum import IntEnum", "IntEnum"),
    ("from enum import Flag", "Flag"),
    pytest.param("from enum import StrEnum", "StrEnum", marks=pytest.mark.skipif(
        sys.version_info < (3, 11), reason="known bases are read from the running Python's enum: 3.11 added StrEnum")),
    ("import torch", "torch.nn.Module"),
    ("from torch import nn", "nn.Module"),
    ("from torch.nn.modules.module import Module", "Module"),
    ("import abc", "abc.ABC"),
    ("from collections.abc import Mapping", "Mapping"),
    ("import typing", "typing.Mapping"),
    ("from typing import Generic, TypeVar\nT = TypeVar('T')", "Generic[T]"),
    ("from collections import OrderedDict", "OrderedDict"),
    ("", "dict"),
    ("", "LookupError"),
]


@pytest.mark.parametrize("head, base", FAMILIES, ids=[getattr(f, "values", f)[1] for f in FAMILIES])
def test_a_class_built_on_a_known_base_is_checked(lint_project, head, base):
    """Structurally, and beside an explicit ``DeviceAuxiliaryOutput`` base."""
    lint_project({"pkg/impl.py": IMPORT_AUX + f"""
{head}


class Out({base}):
    def copy_to_host(self, copy_tensor):
        return self


class Declared({base}, DeviceAuxiliaryOutput):
    pass
"""})
    assert reported(lint()) == {("pkg.impl.Out", "PPA001"), ("pkg.impl.Declared", "PPA001")}


@pytest.mark.parametrize("decorator", [
    "import attr\n\n\n@attr.s",
    "import attr\n\n\n@attr.s(auto_attribs=True)",
    "import attrs\n\n\n@attrs.define",
    "from attrs import define\n\n\n@define",
    "from attrs import frozen\n\n\n@frozen",
    "import attr\n\n\n@attr.frozen",
], ids=["attr.s", "attr.s-call", "attrs.define", "define", "frozen", "attr.frozen"])
@pytest.mark.parametrize("base", ["", "(DeviceAuxiliaryOutput)"], ids=["structural", "subclass"])
def test_attrs_classes_are_checked(lint_project, decorator, base):
    lint_project({"pkg/impl.py": IMPORT_AUX + f"""
{decorator}
class Out{base}:
    def copy_to_host(self, copy_tensor):
        return self
"""})
    assert reported(lint()) == {("pkg.impl.Out", "PPA001")}


def test_a_known_base_beside_an_explicit_sglang_base_is_checked(lint_project):
    lint_project({"pkg/impl.py": IMPORT_AUX + IMPORT_OBS + """
import torch


class CaptureOutput(torch.nn.Module, DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self


class CaptureObserver(torch.nn.Module, SamplingObserver):
    def after_sample(self, state, token_ids):
        return CaptureOutput()
"""})
    assert reported(lint()) == {("pkg.impl.CaptureOutput", "PPA001"), ("pkg.impl.CaptureObserver", "PPA002")}


@pytest.mark.parametrize("head, base", [
    ("import somelib", "somelib.Base"),
    ("from torch import nn", "nn.Linear"),  # a class of a known library that the table does not list
    ("from pydantic import RootModel", "RootModel"),
], ids=["unknown-library", "unlisted-torch-class", "unlisted-pydantic-class"])
def test_an_unknown_base_keeps_the_silence(lint_project, head, base):
    lint_project({"pkg/impl.py": IMPORT_AUX + f"""
{head}


class Structural({base}):
    def copy_to_host(self, copy_tensor):
        return self


class Explicit({base}, DeviceAuxiliaryOutput):
    pass
"""})
    analysis = run_analysis()
    assert analysis.findings == []
    assert analysis.classes["pkg.impl.Explicit"].unresolved_bases != ()


@pytest.mark.parametrize("fqn", [*known_bases._THIRD_PARTY, "builtins.object", "builtins.dict", "abc.ABC",
                                 "collections.abc.Mapping", "enum.IntEnum", "typing.NamedTuple", "typing.Generic"])
def test_no_known_base_provides_a_transport_method_or_a_hook(fqn):
    """What makes the table safe to trust: if one did, lookup would find it there and say nothing."""
    assert not known_bases.members(fqn) & {TO_PP, FROM_PP, COPY_TO_HOST, AFTER_SAMPLE, AFTER_FORWARD}


def test_typing_aliases_are_the_classes_they_name():
    assert known_bases.members("typing.Mapping") == known_bases.members("collections.abc.Mapping")
    assert known_bases.members("typing_extensions.List") == known_bases.members("builtins.list")
    assert {"_asdict", "_replace", "count"} <= known_bases.members("typing.NamedTuple")
    assert known_bases.members("typing.Optional") is None and known_bases.members("somelib.Base") is None


def test_lookup_finds_what_a_known_base_provides(lint_project):
    lint_project({"pkg/impl.py": """
import enum

from pydantic import BaseModel


class Settings(BaseModel):
    def copy_to_host(self, copy_tensor):
        return self


class Table(dict):
    pass


class Mode(enum.Enum):
    FAST = 1
"""})
    index = run_analysis().index
    assert index.lookup("pkg.impl.Settings", "model_dump").owner == "pydantic.BaseModel"
    assert index.lookup("pkg.impl.Table", "items").owner == "builtins.dict"
    assert index.lookup("pkg.impl.Mode", "name").owner == "enum.Enum"
    assert index.lookup("pkg.impl.Settings", "to_pp_tensors") is None
    assert index.unresolved_bases("pkg.impl.Settings") == ()


def test_inventory_calls_a_known_base_s_missing_method_missing(lint_project):
    lint_project({"pkg/impl.py": """
import msgspec


class Out(msgspec.Struct):
    def copy_to_host(self, copy_tensor):
        return self
"""})
    (record,) = build(run_analysis())["outputs"]
    assert record["pp"]["status"] == "missing" and record["unresolved_bases"] == []


def test_a_subclass_reason_follows_the_chain_of_bases_not_the_mro(lint_project):
    """Issue 22 item 8: "via A -> B" names the bases that lead to the root, not every class of the MRO (a mixin
    listed beside them is not on the way)."""
    lint_project({"pkg/impl.py": IMPORT_AUX + """

class Mixin:
    def helper(self):
        return 1


class Base(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self


class Mid(Mixin, Base):
    pass


class Leaf(Mid):
    pass
"""})
    recognized = run_analysis().classes["pkg.impl.Leaf"].recognized["output"]
    assert recognized == f"subclass of {OUTPUT_ROOT} via pkg.impl.Mid -> pkg.impl.Base"
