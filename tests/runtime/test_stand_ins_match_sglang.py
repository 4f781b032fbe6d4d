"""The stand-ins offer every public name of SGLang 0.5.23's protocol modules, with SGLang's behaviour.

A plugin written against SGLang imports whatever its protocol modules define (``append_auxiliary_output``,
``CompositeDeviceAuxiliaryOutput``, ...); where SGLang is not installed the stand-ins must answer the same
imports with objects that behave the same, or verify skips (a missing name) or misjudges (another behaviour)
a class that SGLang would judge. The wheel's modules are loaded as ``conftest.sglang_protocols`` loads them,
and compared name by name with the stand-ins.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import types

import pytest

from .conftest import SGLANG_FILES, sglang_modules_set_aside

torch = pytest.importorskip("torch")

from ppaux_lint.runtime import stand_ins  # noqa: E402


def public_names(module: types.ModuleType) -> dict[str, object]:
    """The names a plugin can import from ``module`` that SGLang itself defines (here or in another of its
    modules): classes and functions whose ``__module__`` is SGLang's (or, in the stand-in for the helpers,
    the bundled core's, which serves them), not ``typing``'s or ``torch``'s imports."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and (getattr(value, "__module__", "") or "").startswith(
                ("sglang.", "ppaux_lint.runtime.core"))}


@pytest.fixture
def stand_in_modules():
    with sglang_modules_set_aside():
        stand_ins.install()
        try:
            yield {name: importlib.import_module(name) for name in SGLANG_FILES}
        finally:
            stand_ins.uninstall()


def test_every_public_name_of_sglangs_protocol_modules_is_offered(sglang_protocols, stand_in_modules):
    for name, module in sglang_protocols.items():
        theirs, ours = public_names(module), public_names(stand_in_modules[name])
        assert sorted(theirs) == sorted(ours), name
        for attr, value in theirs.items():
            mine = ours[attr]
            assert isinstance(mine, type) == isinstance(value, type), f"{name}.{attr}"
            if callable(value) and not isinstance(value, type):
                assert list(inspect.signature(mine).parameters) == list(inspect.signature(value).parameters)
            if isinstance(value, type):
                members = {m for m in vars(value) if not m.startswith("_")}
                assert members == {m for m in vars(mine) if not m.startswith("_")}, f"{name}.{attr}"
                assert dataclasses.is_dataclass(mine) == dataclasses.is_dataclass(value), f"{name}.{attr}"
                if dataclasses.is_dataclass(value):
                    assert [f.name for f in dataclasses.fields(mine)] == [f.name for f in dataclasses.fields(value)]
                    assert mine.__dataclass_params__.frozen == value.__dataclass_params__.frozen


class _Out:
    def __init__(self, tag):
        self.tag = tag

    def copy_to_host(self, copy_tensor):
        return _Host(self.tag, copy_tensor(torch.tensor([self.tag])))


class _Host:
    def __init__(self, tag, value):
        self.tag, self.value = tag, value

    def consume(self, batch, commits):
        batch.append((self.tag, int(self.value[0]), commits))


def _shape(value):
    """What a composite is made of, comparable across the two modules: class names and leaf outputs."""
    if value is None or isinstance(value, (_Out, _Host)):
        return value
    return (type(value).__name__, tuple(_shape(v) for v in value.outputs))


def test_composites_and_append_behave_as_sglangs(sglang_protocols, stand_in_modules):
    name = "sglang.srt.managers.auxiliary_output"
    theirs, ours = sglang_protocols[name], stand_in_modules[name]
    a, b, c = _Out(1), _Out(2), _Out(3)
    cases = [(None, None), (a, None), (None, a), (a, b)]
    for module in (theirs, ours):
        cases.append((module.CompositeDeviceAuxiliaryOutput((a, b)), c))
        cases.append((c, module.CompositeDeviceAuxiliaryOutput((a, b))))
    for current, output in cases:
        results = [_shape(module.append_auxiliary_output(_native(current, module), _native(output, module)))
                   for module in (theirs, ours)]
        assert results[0] == results[1], (current, output)
    for module in (theirs, ours):
        composite = module.append_auxiliary_output(module.append_auxiliary_output(a, b), c)
        assert not hasattr(composite, "to_pp_tensors")  # 0.5.23 cannot send one
        with pytest.raises(dataclasses.FrozenInstanceError):
            composite.outputs = ()
        host = composite.copy_to_host(lambda t: t + 10)
        assert type(host) is module.CompositeHostAuxiliaryOutput
        batch: list = []
        host.consume(batch, [None])
        assert batch == [(1, 11, [None]), (2, 12, [None]), (3, 13, [None])]


def _native(value, module):
    """A composite built by either module, rebuilt with ``module``'s class (each module's isinstance checks
    only its own)."""
    if value is None or isinstance(value, _Out):
        return value
    return module.CompositeDeviceAuxiliaryOutput(value.outputs)


def test_a_composite_is_refused_by_the_helpers_as_sglang_refuses_it(sglang_protocols, stand_in_modules):
    errors = []
    for modules in (sglang_protocols, stand_in_modules):
        composite = modules["sglang.srt.managers.auxiliary_output"].append_auxiliary_output(_Out(1), _Out(2))
        with pytest.raises(RuntimeError) as raised:
            modules["sglang.srt.sampling.sampling_observer_pp"].add_auxiliary_output_to_pp_tensors({}, composite)
        errors.append(str(raised.value))
    assert errors[0] == errors[1] == "auxiliary output does not support pipeline-parallel transport"
