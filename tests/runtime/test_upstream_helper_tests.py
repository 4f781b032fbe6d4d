"""SGLang's own unit tests of the PP transport helpers, rewritten by us and run against every implementation.

Mirrors ``test/registered/unit/sampling/test_sampling_observer_pp.py`` in sgl-project/sglang, read at commit
770bd9d35b4cfd3305e285941fc6395942613fcf on 2026-12-01 (the helper module it tests,
``python/sglang/srt/sampling/sampling_observer_pp.py``, was unchanged from 0.5.23 at commit 2f7cb243ca).
Every case of that file has a counterpart here, in the same order, with the same inputs and the same
assertions, so that a change upstream shows as a case to add or adjust.

That file reaches the helpers only through one module object (``observer_pp``): its helpers and the private
``_OUTPUT_PREFIX``. The ``helpers`` fixture stands for that module: the bundled core, the lazy
``ppaux_lint.runtime`` package (which must serve the same names, torch or not in ``sys.modules`` yet), and
SGLang 0.5.23's real module from the wheel. What passes against all three is what makes ours a drop-in.
"""

from __future__ import annotations

import importlib
import types

import pytest

torch = pytest.importorskip("torch")

UPSTREAM_NAMES = ("_OUTPUT_PREFIX", "add_auxiliary_output_to_pp_tensors", "pop_auxiliary_output_from_pp_tensors")


@pytest.fixture(params=["ppaux_lint.runtime.core", "ppaux_lint.runtime", "sglang-0.5.23"])
def helpers(request) -> types.ModuleType:
    if request.param.startswith("sglang"):
        return request.getfixturevalue("sglang_pp")
    return importlib.import_module(request.param)


class SendsTensors:
    """Like upstream's output stand-in: no base class, nothing but ``to_pp_tensors``."""

    def __init__(self, payload):
        self.payload = payload

    def to_pp_tensors(self):
        return self.payload


class RecordsReceipt:
    """Like upstream's observer stand-in: keeps a copy of what it was handed and returns a preset result."""

    def __init__(self, rebuilt):
        self.rebuilt = rebuilt
        self.got = None

    def from_pp_tensors(self, tensors):
        self.got = dict(tensors)
        return self.rebuilt


def prefixed(helpers: types.ModuleType, name: str) -> str:
    return helpers._OUTPUT_PREFIX + name


def test_the_module_has_every_name_the_upstream_test_uses(helpers):
    for name in UPSTREAM_NAMES:
        assert getattr(helpers, name) is not None
    assert helpers._OUTPUT_PREFIX == "__sampling_observer_output__."


def test_the_lazy_package_lists_the_private_prefix_too():
    import ppaux_lint.runtime as package

    assert set(UPSTREAM_NAMES) <= set(dir(package))
    assert "_OUTPUT_PREFIX" not in package.__all__  # private upstream too: not part of ``import *``


# -- add_auxiliary_output_to_pp_tensors (upstream: TestAddAuxiliaryOutputToPPTensors) ------------------------


def test_add_with_no_output_changes_nothing(helpers):
    """Upstream: test_none_output_leaves_transport_unchanged."""
    hidden = torch.tensor([1.0])
    stage = {"hidden_states": hidden}
    helpers.add_auxiliary_output_to_pp_tensors(stage, None)
    assert set(stage) == {"hidden_states"}
    torch.testing.assert_close(stage["hidden_states"], hidden)


def test_add_stores_each_tensor_under_its_own_prefixed_key(helpers):
    """Upstream: test_add_namespaces_multiple_auxiliary_tensors."""
    hidden, scores, token_ids = torch.tensor([1.0]), torch.tensor([0.2, 0.8]), torch.tensor([3, 7])
    stage = {"hidden_states": hidden}
    helpers.add_auxiliary_output_to_pp_tensors(stage, SendsTensors({"scores": scores, "token_ids": token_ids}))
    assert set(stage) == {"hidden_states", prefixed(helpers, "scores"), prefixed(helpers, "token_ids")}
    torch.testing.assert_close(stage["hidden_states"], hidden)
    torch.testing.assert_close(stage[prefixed(helpers, "scores")], scores)
    torch.testing.assert_close(stage[prefixed(helpers, "token_ids")], token_ids)


@pytest.mark.parametrize(("payload", "error"), [
    pytest.param({}, "must contain at least one tensor", id="empty mapping"),
    pytest.param({"": torch.tensor([1.0])}, "non-empty strings", id="empty name"),
    pytest.param({7: torch.tensor([1.0])}, "non-empty strings", id="non-string name"),
    pytest.param({"scores": [0.2, 0.8]}, "is not a tensor", id="non-tensor value"),
])
def test_add_refuses_a_malformed_payload(helpers, payload, error):
    """Upstream: test_add_rejects_malformed_payloads (one subTest per case there, one parameter here)."""
    with pytest.raises(RuntimeError, match=error):
        helpers.add_auxiliary_output_to_pp_tensors({}, SendsTensors(payload))


def test_add_refuses_a_key_already_taken_and_keeps_what_was_there(helpers):
    """Upstream: test_add_rejects_reserved_key_collision_without_overwriting."""
    key = prefixed(helpers, "scores")
    earlier = torch.tensor([9.0])
    stage = {key: earlier}
    with pytest.raises(RuntimeError, match="duplicate auxiliary PP tensor"):
        helpers.add_auxiliary_output_to_pp_tensors(stage, SendsTensors({"scores": torch.tensor([1.0])}))
    assert set(stage) == {key}
    torch.testing.assert_close(stage[key], earlier)


# -- pop_auxiliary_output_from_pp_tensors (upstream: TestPopAuxiliaryOutputFromPPTensors) --------------------


def test_pop_without_auxiliary_entries_never_calls_the_observer(helpers):
    """Upstream: test_pop_without_auxiliary_data_skips_observer."""
    hidden = torch.tensor([1.0])
    stage = {"hidden_states": hidden}
    observer = RecordsReceipt(rebuilt=object())
    assert helpers.pop_auxiliary_output_from_pp_tensors(stage, observer) is None
    assert observer.got is None
    assert set(stage) == {"hidden_states"}
    torch.testing.assert_close(stage["hidden_states"], hidden)


def test_pop_refuses_a_non_tensor_entry_before_the_observer_sees_it(helpers):
    """Upstream: test_pop_rejects_non_tensor_payload_before_observer."""
    observer = RecordsReceipt(rebuilt=object())
    with pytest.raises(RuntimeError, match="received a non-tensor"):
        helpers.pop_auxiliary_output_from_pp_tensors({prefixed(helpers, "scores"): [0.4, 0.6]}, observer)
    assert observer.got is None


def test_pop_refuses_an_observer_that_rebuilds_nothing(helpers):
    """Upstream: test_pop_rejects_failed_reconstruction."""
    scores = torch.tensor([0.4, 0.6])
    observer = RecordsReceipt(rebuilt=None)
    with pytest.raises(RuntimeError, match="did not reconstruct its PP output"):
        helpers.pop_auxiliary_output_from_pp_tensors({prefixed(helpers, "scores"): scores}, observer)
    assert set(observer.got) == {"scores"}
    torch.testing.assert_close(observer.got["scores"], scores)
