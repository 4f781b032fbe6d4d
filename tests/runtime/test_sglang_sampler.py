"""verify's sampler and sampling info against SGLang 0.5.23's own ``Sampler.forward`` and ``SamplingBatchInfo``.

``drive.run_sampler`` stands for what SGLang's sampler does between ``before_grammar`` and ``after_sample``
(the logits rewritten in place on a sampled batch, untouched on a greedy one; int32 ids sampled, int64 greedy).
Here SGLang's own ``layers/sampler.py`` runs on the same logits and sampling info, and both must leave the
logits alike and give ids of the same dtype (and, greedy, the same ids). Where SGLang is installed the drives'
``sampling_info`` is its own ``SamplingBatchInfo``, built from verify's fields; that dataclass, from the
wheel, must take them for sampled and greedy batches alike. The modules are executed from the wheel's
source; the names they import from the rest of SGLang (kernels, server settings, tracing, penalties) are
bound to inert placeholders, since the torch paths exercised here (the greedy argmax, the ``pytorch``
backend's top-k/top-p sampling, the sampling without filters, the dataclass's constructor) call none of them
but the softmax, which is given ``torch.softmax`` as SGLang's own CPU fallback is.
"""

from __future__ import annotations

import ast
import sys
import types
import zipfile
from types import SimpleNamespace

import pytest

from .conftest import sglang_modules_set_aside

torch = pytest.importorskip("torch")

from ppaux_lint.runtime.driving.batch_info import sampling_info  # noqa: E402
from ppaux_lint.runtime.driving.drive import GREEDY, Drive, make_logits, run_sampler  # noqa: E402

SAMPLER = "sglang/srt/layers/sampler.py"
BATCH_INFO = "sglang/srt/sampling/sampling_batch_info.py"
CPU = torch.device("cpu")


def _inert(*args, **kwargs):
    return None


def _load(wheel, member: str) -> types.ModuleType:
    """The wheel's ``member`` executed as its module, every ``sglang`` name it imports bound to a placeholder."""
    source = zipfile.ZipFile(wheel).read(member).decode("utf-8")
    module = types.ModuleType(member[:-3].replace("/", "."))
    module.__file__ = f"{wheel}/{member}"
    with sglang_modules_set_aside():
        for node in ast.parse(source).body:
            imported = ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                        else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            for name in (n for n in imported if n.startswith("sglang")):
                parts = name.split(".")
                for depth in range(1, len(parts) + 1):
                    sys.modules.setdefault(".".join(parts[:depth]), types.ModuleType(".".join(parts[:depth])))
                for alias in node.names if isinstance(node, ast.ImportFrom) else []:
                    setattr(sys.modules[name], alias.name, _inert)
        common = sys.modules["sglang.srt.utils.common"]  # both modules import from it
        for name in ("is_cuda", "is_hip", "is_musa", "is_npu", "is_xpu", "is_gfx1250_supported", "get_bool_env_var"):
            setattr(common, name, lambda *args, **kwargs: False)
        environ = sys.modules.get("sglang.srt.environ")
        if environ is not None:
            environ.envs = SimpleNamespace(SGLANG_TRACE_SAMPLER_E2E=SimpleNamespace(get=lambda: False),
                                           SGLANG_OPT_USE_GUMBEL_SAMPLE=SimpleNamespace(get=lambda: False))
        sys.modules["sglang.srt.sampling.sampling_params"].TOP_K_ALL = 1 << 30
        sys.modules[module.__name__] = module  # dataclasses read its string annotations through it
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def sglang_sampler(sglang_wheel):
    """SGLang's ``Sampler``, built without its ``__init__`` (which reads the server's parallel state), set up
    as a plain server has it: no deterministic or RL mode, the ``pytorch`` sampling backend."""
    module = _load(sglang_wheel, SAMPLER)
    module.sampler_softmax = lambda logits: torch.softmax(logits, dim=-1)
    module.get_exec = lambda: SimpleNamespace(kernel=SimpleNamespace(sampling_backend="pytorch"))
    sampler = module.Sampler.__new__(module.Sampler)
    torch.nn.Module.__init__(sampler)
    sampler.rl_on_policy_target = None
    sampler.enable_deterministic = False
    sampler.use_log_softmax_logprob = False
    sampler.use_ascend_backend = False
    return sampler


def _sglang_info(info):
    """verify's sampling info with the fields SGLang's sampler reads beyond the common ones, at their defaults."""
    extra = {"sampling_seed": None, "sampling_mask_batch_indices": None, "has_custom_logit_processor": False,
             "sampling_support_logprobs_capture_indices": None, "grammars": None}
    return SimpleNamespace(**{**vars(info), **extra})


def _run_sglang(sampler, logits, info):
    positions = torch.zeros(logits.shape[0], dtype=torch.int64)
    return sampler.forward(SimpleNamespace(next_token_logits=logits), _sglang_info(info), False, [], [], positions)


@pytest.mark.parametrize("plan", [Drive(3), Drive(2, sampler=GREEDY), Drive(3, vocab=151936, values="top"),
                                  Drive(4, values="extreme"), Drive(2, dtype="bfloat16")],
                         ids=lambda plan: plan.describe())
def test_run_sampler_treats_the_logits_and_the_ids_as_sglangs_sampler_does(sglang_sampler, plan):
    info = sampling_info(plan.batch, plan.vocab, CPU, greedy=plan.sampler == GREEDY)
    ours, theirs = make_logits(plan, CPU), make_logits(plan, CPU)
    our_ids = run_sampler(ours, info, plan)
    their_ids = _run_sglang(sglang_sampler, theirs, info)
    assert our_ids.dtype == their_ids.dtype and our_ids.shape == their_ids.shape
    assert torch.allclose(ours.float(), theirs.float(), atol=1e-6, equal_nan=True)
    if plan.sampler == GREEDY:
        assert torch.equal(our_ids, their_ids)
    if plan.values == "top":  # both sample the peaked ids at the vocabulary's top
        assert torch.equal(our_ids, their_ids)


def test_sglangs_sampled_path_without_filters_returns_int32_too(sglang_sampler):
    plan = Drive(2)
    info = _sglang_info(sampling_info(2, 128, CPU))
    info.need_top_k_sampling = info.need_top_p_sampling = False
    ids = sglang_sampler.forward(SimpleNamespace(next_token_logits=make_logits(plan, CPU)), info, False, [], [],
                                 torch.zeros(2, dtype=torch.int64))
    assert ids.dtype == torch.int32


@pytest.mark.parametrize("greedy", [False, True], ids=["sampled", "greedy"])
def test_where_sglang_is_installed_the_drives_get_its_own_sampling_batch_info(sglang_wheel, monkeypatch, greedy):
    from ppaux_lint.runtime.driving import batch_info

    module = _load(sglang_wheel, BATCH_INFO)
    monkeypatch.setitem(sys.modules, batch_info.SGLANG_MODULE, module)
    batch_info._sglang_class.cache_clear()
    try:
        info = sampling_info(2, 128, CPU, greedy=greedy)
        assert type(info) is module.SamplingBatchInfo
        assert info.is_all_greedy is greedy and info.temperatures.shape == (2, 1)
        assert bool((info.top_ks == 1).all()) is greedy
        plan = Drive(2, sampler=GREEDY if greedy else "sampled")
        ids = run_sampler(make_logits(plan, CPU), info, plan)
        assert ids.dtype == (torch.int64 if greedy else torch.int32)
    finally:
        batch_info._sglang_class.cache_clear()
