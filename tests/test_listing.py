"""What the index and the rules keep between questions must be what asking afresh gives: the listing of the classes
(``ProjectIndex.listing``) and the concrete ones (``CheckContext.concrete``) are made again once a question has
classified another class, and ``ClassInfo.amended`` makes the object ``dataclasses.replace`` makes."""

from __future__ import annotations

import dataclasses

import pytest

from ppaux_lint.facts.summarize.source import summarize_source
from ppaux_lint.index.project_index import ProjectIndex
from ppaux_lint.project.config import Config
from ppaux_lint.rules.base import CheckContext

SOURCE = b"""\
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


class Out(DeviceAuxiliaryOutput):
    def to_pp_tensors(self):
        return {"ids": self.ids}


class Later(DeviceAuxiliaryOutput):
    pass
"""


def _index(focus: list[str] | None) -> ProjectIndex:
    return ProjectIndex([summarize_source(SOURCE, "/p/m.py", "m", False)], Config().protocols, focus=focus)


def test_a_class_classified_after_a_listing_is_listed_next_time() -> None:
    index = _index(["m.Out"])
    assert [info.fqn for info in index.iter_infos()] == ["m.Out"]
    index.info("m.Later")  # not focused: classified on request, listed after the focused ones from now on
    assert [info.fqn for info in index.iter_infos()] == ["m.Out", "m.Later"]
    assert list(index.infos()) == ["m.Out", "m.Later"]


def test_infos_hands_out_a_copy_of_the_listing() -> None:
    index = _index(None)
    index.infos().clear()
    assert list(index.infos()) == ["m.Out", "m.Later"]


def test_concrete_follows_the_listing() -> None:
    index = _index(["m.Out"])
    context = CheckContext(index=index, summaries=())
    assert [info.fqn for info in context.concrete()] == ["m.Out"]
    context.concrete().clear()  # a copy too
    index.info("m.Later")
    assert [info.fqn for info in context.concrete()] == ["m.Out", "m.Later"]


def test_amended_is_what_replace_makes() -> None:
    info = _index(None).info("m.Out")
    changes = {"pair": "m.Other", "part_of": ("m.Box",), "not_instantiated": "abstract"}
    amended = info.amended(**changes)
    assert amended == dataclasses.replace(info, **changes)
    assert {f.name: getattr(amended, f.name) for f in dataclasses.fields(amended)} == \
        {f.name: getattr(dataclasses.replace(info, **changes), f.name) for f in dataclasses.fields(info)}
    assert info.pair is None  # the original stands
    with pytest.raises(TypeError, match="no field 'pairs'"):
        info.amended(pairs="m.Other")
