"""Classes made in functions are verified through the module-level objects that hold them (issue 34, item 4).

A factory's class (``TopK5Observer = make_topk_observer(5)``) or an instance of a class defined in a function
(``OBSERVER = _install()``) is what a deployment installs; ``import`` cannot name the class itself. The static
pass knows what each module-level name is bound to, so the targets carry those names (``exposures.py``) and the
loader takes the class, or the instance, from there. What stays out of reach is a skip that says what to bind.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys

import pytest

from ppaux_lint.runtime.terms.targets import ClassRef, VerifyTarget, targets_from_analysis

# The plugin modules below import torch, and these tests import them; the others read them statically.
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="imports modules that import torch")

FACTORIES = '''
import torch


class Out:
    def __init__(self, values):
        self.values = values

    def copy_to_host(self, copy_tensor):
        return copy_tensor(self.values)

    def to_pp_tensors(self):
        return {"values": self.values}


def make_observer(scale):
    class Scaled:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits * scale

        def after_sample(self, state, token_ids) -> Out:
            return Out(state)

        def from_pp_tensors(self, tensors) -> Out:
            return Out(tensors["values"])

    return Scaled


Scaled2 = make_observer(2)


def make_pair():
    class Inner:
        def __init__(self, ids):
            self.ids = ids

        def copy_to_host(self, copy_tensor):
            return copy_tensor(self.ids)

        def to_pp_tensors(self):
            return {"ids": self.ids}

    class InnerObserver:
        def is_active(self, sampling_info):
            return True

        def before_grammar(self, logits, sampling_info):
            return logits

        def after_sample(self, state, token_ids) -> Inner:
            return Inner(token_ids)

        def from_pp_tensors(self, tensors) -> Inner:
            return Inner(tensors["ids"])

    return InnerObserver()


OBSERVER = make_pair()


def hidden():
    class Hidden:
        def copy_to_host(self, copy_tensor):
            return None

        def to_pp_tensors(self):
            return {"x": torch.zeros(1)}

    return Hidden
'''


@pytest.fixture
def plug(tmp_path, monkeypatch):
    from ppaux_lint.check.engine import analyze

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'plug'\n", encoding="utf-8")
    (tmp_path / "plug").mkdir()
    (tmp_path / "plug" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "plug" / "made.py").write_text(FACTORIES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield {t.symbol: t for t in targets_from_analysis(analyze([str(tmp_path / "plug")]))}
    for name in [n for n in sys.modules if n == "plug" or n.startswith("plug.")]:
        del sys.modules[name]


M = "plug.made."


@needs_torch
def test_a_factory_class_is_taken_from_the_module_level_name_that_holds_it(plug):
    scaled = plug[M + "make_observer.<locals>.Scaled"]
    assert scaled.observer.exposed == ("plug.made:Scaled2",) and not scaled.observer.unimportable
    assert scaled.output.symbol == M + "Out"  # the static pass follows the factory to pair it
    assert scaled.producer.symbol == scaled.symbol
    from ppaux_lint.runtime.driving.loader import exposed_instance, load_class

    cls = load_class(scaled.observer)
    assert cls.__qualname__ == "make_observer.<locals>.Scaled" and cls is importlib.import_module("plug.made").Scaled2
    assert exposed_instance(scaled.observer) is None  # a class is built, as any class


@needs_torch
def test_an_instance_at_module_level_is_the_observer_driven_and_its_output_is_reached_through_it(plug):
    from ppaux_lint.runtime.driving.loader import exposed_instance, load_class, returned_type

    observer = plug[M + "make_pair.<locals>.InnerObserver"]
    assert observer.observer.exposed == ("plug.made:OBSERVER",)
    assert exposed_instance(observer.observer) is importlib.import_module("plug.made").OBSERVER
    assert load_class(observer.observer) is type(importlib.import_module("plug.made").OBSERVER)
    inner = plug[M + "make_pair.<locals>.Inner"]
    assert inner.output.returned_by == M + "make_pair.<locals>.InnerObserver" and not inner.output.unimportable
    assert inner.producer.exposed == ("plug.made:OBSERVER",)
    matcher = load_class(inner.output)
    assert matcher is not None and returned_type(inner.output) is not matcher  # a fresh matcher each time
    made = importlib.import_module("plug.made").OBSERVER.after_sample(None, [1])
    assert isinstance(made, matcher) and not isinstance(object(), matcher)


def test_a_class_no_module_level_name_reaches_is_a_skip_that_says_what_to_bind(plug):
    reason = plug[M + "hidden.<locals>.Hidden"].output.unimportable
    assert reason.startswith("defined inside a function (hidden.<locals>.Hidden), and no module-level name holds it")
    assert "bind what the function makes at module level (Name = hidden(...))" in reason


@needs_torch
def test_a_name_that_holds_something_else_is_a_skip_not_an_error(plug):
    from ppaux_lint.runtime.driving.loader import Unimportable, exposed_instance, load_class

    wrong = ClassRef(M + "make_observer.<locals>.Scaled", "plug.made", "make_observer.<locals>.Scaled",
                     exposed=("plug.made:OBSERVER",))
    with pytest.raises(Unimportable, match=re.escape("plug.made.OBSERVER holds a make_pair.<locals>.InnerObserver")):
        load_class(wrong)
    assert exposed_instance(wrong) is None


def test_refs_with_exposures_survive_the_trip_to_the_worker(plug):
    target = plug[M + "make_pair.<locals>.InnerObserver"]
    assert VerifyTarget.from_json(target.to_json()) == target
