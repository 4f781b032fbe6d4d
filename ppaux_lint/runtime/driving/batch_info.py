"""The ``sampling_info`` an observer's hooks are called with: SGLang's ``SamplingBatchInfo`` when it imports.

Observers read a handful of its fields (the per-request ``temperatures``, ``top_ps``, ``top_ks`` and
``min_ps``, ``vocab_size``, ``device``, the ``need_*`` flags). Where SGLang is installed the value is its
own dataclass, built from those fields with every other one left at its default, so an observer that reads
a field we do not know still sees what SGLang would give it. Where SGLang is not installed, or its dataclass
asks for a field this module does not know how to fill (a newer release), a stand-in with the same common
fields is used instead; an observer that reads anything else fails to be driven, and its row says so.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from typing import Any

import torch

from ppaux_lint.support.records import dataclass

SGLANG_MODULE = "sglang.srt.sampling.sampling_batch_info"
TEMPERATURE = 0.7
TOP_P = 0.9
TOP_K = 20


@dataclass
class SamplingInfoStandIn:
    """The fields of SGLang's ``SamplingBatchInfo`` that observers commonly read, shaped as SGLang's are
    (``temperatures`` is ``[batch, 1]``, ``top_ks`` int32); the optional ones at SGLang's defaults."""

    temperatures: torch.Tensor
    top_ps: torch.Tensor
    top_ks: torch.Tensor
    min_ps: torch.Tensor
    is_all_greedy: bool
    is_any_greedy: bool
    need_top_p_sampling: bool
    need_top_k_sampling: bool
    need_min_p_sampling: bool
    vocab_size: int
    grammars: Any = None
    logit_bias: Any = None
    custom_params: Any = None
    sampling_seed: Any = None
    penalizer_orchestrator: Any = None
    has_custom_logit_processor: bool = False
    max_top_k: int | None = None
    device: str = "cpu"


def sampling_info(batch: int, vocab: int, device: torch.device, greedy: bool = False) -> Any:
    """A sampling batch of ``batch`` requests over ``vocab`` tokens on ``device``, all sampled or (``greedy``)
    all greedy: SGLang's class if it can be built, else the stand-in."""
    values = _values(batch, vocab, device, greedy)
    real = _sglang_class()
    if real is not None:
        fields = {f.name for f in dataclasses.fields(real)}
        required = {f.name for f in dataclasses.fields(real)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        if required <= values.keys():
            try:
                return real(**{name: value for name, value in values.items() if name in fields})
            except Exception:  # noqa: BLE001 - a release whose constructor checks more: use the stand-in
                pass
    return SamplingInfoStandIn(**values)


def _values(batch: int, vocab: int, device: torch.device, greedy: bool) -> dict[str, Any]:
    """The fields as SGLang's ``from_schedule_batch`` sets them; a greedy request is one whose ``SamplingParams``
    turned temperature 0 into temperature 1 and ``top_k`` 1, and a batch of them ``is_all_greedy``."""
    top_k = 1 if greedy else min(TOP_K, vocab)
    return {
        "temperatures": torch.full((batch, 1), 1.0 if greedy else TEMPERATURE, dtype=torch.float32, device=device),
        "top_ps": torch.full((batch,), 1.0 if greedy else TOP_P, dtype=torch.float32, device=device),
        "top_ks": torch.full((batch,), top_k, dtype=torch.int32, device=device),
        "min_ps": torch.zeros((batch,), dtype=torch.float32, device=device),
        "is_all_greedy": greedy,
        "is_any_greedy": greedy,
        "need_top_p_sampling": not greedy,
        "need_top_k_sampling": True,
        "need_min_p_sampling": False,
        "vocab_size": vocab,
        "max_top_k": top_k,
        "device": str(device),
    }


@functools.lru_cache(maxsize=1)
def _sglang_class() -> type | None:
    """SGLang's dataclass, when its module imports (its import may raise anything) and it is a dataclass."""
    try:
        module = importlib.import_module(SGLANG_MODULE)
    except Exception:  # noqa: BLE001 - SGLang absent or broken: the stand-in serves
        return None
    cls = getattr(module, "SamplingBatchInfo", None)
    return cls if isinstance(cls, type) and dataclasses.is_dataclass(cls) else None
