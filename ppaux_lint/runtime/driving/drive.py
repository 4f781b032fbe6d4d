"""Driving an observer through the hooks SGLang's last stage calls, to get the output it really makes.

An example built from the output's annotations is a fresh contiguous tensor per field, so it passes where
the observer's own code would not: an output that keeps ``topk.indices[:, 0]`` holds a strided view that
SGLang's send refuses, a ``squeeze()`` changes rank at batch 1, a state kept on the observer never reaches
the first stage. So verify runs what SGLang runs on the last stage (``model_runner.sample``): ``is_active(
sampling_info)``; when active, ``state = before_grammar(logits, sampling_info)``; when there is a state,
SGLang's sampler on those very logits, then ``after_sample(state, token_ids)`` with the sampled ids; and
round-trips what that returns.

The sampler is SGLang 0.5.23's ``Sampler.forward`` as it treats the logits and the ids (``run_sampler``;
``tests/runtime/test_sglang_sampler.py`` holds it to SGLang's own, run from the wheel). A sampled batch
divides the logits by the temperatures and overwrites them with their softmax, in place, after
``before_grammar`` and before ``after_sample``, and returns int32 ids (``layers/sampler.py``: ``logits.div_``,
``logits[:] = softmax``; the torch paths gather from an int32 index or convert ``.to(torch.int32)``), so a
state or output that is a view of the logits holds probabilities by the time it is sent. A greedy batch
(every request ``top_k`` 1) takes ``torch.argmax``, int64, and leaves the logits alone. The logits are
``[batch, vocab]`` in the drive's dtype, drawn from a seeded generator (so a failure repeats).

A plain verify drives sampled batches 1, 2 and an odd one above 2 (``DEFAULT_BATCHES``: batch-dependent bugs
hide at one size) over a small vocabulary, a greedy batch, and a sampled single request over a real vocabulary
(``REAL_VOCAB``, Qwen's 151,936 tokens) whose id lies at its top, so that ids narrowed below int32 fail by
default (one row: its logits cost as much as 1,200 rows of the small vocabulary); in float32, and on devices
with fast half types in bfloat16 and float16 too. ``--explore`` draws more (``explore_drive.py``). No drive
has 0 rows: SGLang 0.5.23 never samples the idle batches DP attention makes (they are built from no requests,
so ``is_prefill_only`` is true and ``tp_worker`` skips ``model_runner.sample``), so no observer meets one;
docs/verify.md gives the lines.
"""

from __future__ import annotations

from typing import Any

import torch

from ppaux_lint.contract.pp_errors import OUTPUT_NOT_PP, raised
from ppaux_lint.runtime.driving.batch_info import sampling_info
from ppaux_lint.runtime.sending.roundtrip import Outcome, Steps
from ppaux_lint.runtime.terms.results import FAIL
from ppaux_lint.support.records import dataclass

HOOKS = ("is_active", "before_grammar", "after_sample")
"""What SGLang's last stage calls, in order; an observer without one of them cannot be driven at all."""
DEFAULT_BATCHES = (1, 2, 3)
DEFAULT_VOCAB = 128
REAL_VOCAB = 151936
"""Qwen2's vocabulary, the largest in common use: its top ids need 18 bits."""
HALF_TYPES = ("bfloat16", "float16")
VALUE_KINDS = ("normal", "peaked", "flat", "extreme", "top")
"""How the logits are drawn: ``normal`` N(0, 3); ``peaked`` one token per row far above the rest; ``flat``
all equal (ties everywhere); ``extreme`` values near the dtype's range with most tokens masked to -inf,
as a grammar mask leaves them; ``top`` peaked at the vocabulary's last ids (row i at ``vocab - 1 - i``), so
the sampled ids are the largest the vocabulary has."""
SAMPLED, GREEDY = "sampled", "greedy"
SAMPLERS = (SAMPLED, GREEDY)
"""SGLang's two sampler paths: ``sampled`` (temperature and softmax in place, int32 ids) and ``greedy``
(argmax, int64 ids, logits untouched)."""


@dataclass(frozen=True)
class Drive:
    """The inputs of one drive: the batch, the vocabulary, the logits' dtype, how their values are drawn,
    the generator's seed and the sampler path."""

    batch: int
    vocab: int = DEFAULT_VOCAB
    dtype: str = "float32"
    values: str = "normal"
    seed: int = 0
    sampler: str = SAMPLED

    def describe(self) -> str:
        """``batch 3``, with whatever else differs from the defaults."""
        parts = [f"batch {self.batch}"]
        if self.sampler != SAMPLED:
            parts.append(self.sampler)
        if self.vocab != DEFAULT_VOCAB:
            parts.append(f"vocab {self.vocab}")
        if self.dtype != "float32":
            parts.append(self.dtype)
        if self.values == "top":
            parts.append("ids at its top")
        elif self.values != "normal":
            parts.append(f"{self.values} logits")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"batch": self.batch, "vocab": self.vocab, "dtype": self.dtype, "values": self.values,
                "seed": self.seed, "sampler": self.sampler}


class Refused(Outcome):
    """What ``after_sample`` returned cannot be sent at all (an ``int``, ``object()``: no ``to_pp_tensors``): under
    PP, SGLang's send raises at every batch. The observer's own failure, not a drive to fall back from."""


class NotDriven(Exception):
    """The observer produced no output on this drive (inactive, no state, ``None``, another class); the
    message says which, in words that complete "the observer ...". Not a failure: SGLang sends nothing then."""


@dataclass(frozen=True)
class Driven:
    """What one drive produced: the output, and the token ids the sampler picked (the requests' new tokens)."""

    output: Any
    token_ids: tuple[int, ...]
    drive: Drive


def default_drives(device: torch.device) -> list[Drive]:
    """The drives a plain verify runs: each default batch sampled in float32, a greedy batch, a sampled batch
    over ``REAL_VOCAB`` with ids at its top, and on CUDA the largest default batch in each half type (CPU
    kernels for them are slow and often missing, so only ``--explore`` tries them there)."""
    drives = [Drive(batch) for batch in DEFAULT_BATCHES]
    drives += [Drive(2, sampler=GREEDY), Drive(1, vocab=REAL_VOCAB, values="top")]
    if device.type == "cuda":
        drives += [Drive(DEFAULT_BATCHES[-1], dtype=dtype) for dtype in HALF_TYPES]
    return drives


def drive(observer: Any, plan: Drive, device: torch.device, steps: Steps, expected: type | None = None) -> Driven:
    """Run the last stage's hooks once; raise ``NotDriven`` when they produce no output (of ``expected``),
    or an ``Outcome`` (through ``steps``) when a hook raises."""
    logits = make_logits(plan, device)
    info = sampling_info(plan.batch, plan.vocab, device, greedy=plan.sampler == GREEDY)
    with steps.step("observer.is_active"):
        active = observer.is_active(info)
    if not active:
        raise NotDriven("is not active for the stand-in batch (is_active returned a false value)")
    with steps.step("observer.before_grammar"):
        state = observer.before_grammar(logits, info)
    if state is None:
        raise NotDriven("returned no state from before_grammar, so SGLang skips after_sample")
    with steps.step("the sampler, on the logits before_grammar saw"):
        token_ids = run_sampler(logits, info, plan)
    with steps.step("observer.after_sample"):
        output = observer.after_sample(state, token_ids)
    if output is None:
        raise NotDriven("returned None from after_sample, so nothing crosses the stage")
    if expected is not None and not isinstance(output, expected):
        if not callable(getattr(output, "to_pp_tensors", None)):
            raise Refused(FAIL, f"observer.after_sample returned a {type(output).__qualname__}, which has no "
                                f"to_pp_tensors: add_auxiliary_output_to_pp_tensors: {raised(OUTPUT_NOT_PP)}")
        raise NotDriven(f"returned a {type(output).__qualname__} from after_sample, not a {expected.__qualname__}")
    return Driven(output, tuple(int(t) for t in token_ids.tolist()), plan)


def make_logits(plan: Drive, device: torch.device) -> torch.Tensor:
    """``[batch, vocab]`` logits drawn from the plan's seed on the CPU (the same on every device), then moved."""
    generator = torch.Generator().manual_seed(plan.seed)
    shape = (plan.batch, plan.vocab)
    dtype = getattr(torch, plan.dtype)
    if plan.values == "flat":
        logits = torch.zeros(shape)
    elif plan.values in ("peaked", "top"):
        logits = torch.randn(shape, generator=generator)
        rows = torch.arange(plan.batch)
        peaks = (torch.randint(plan.vocab, (plan.batch,), generator=generator) if plan.values == "peaked"
                 else plan.vocab - 1 - rows % plan.vocab)
        logits[rows, peaks] += 30.0
    elif plan.values == "extreme":
        bound = float(torch.finfo(dtype).max) / 4
        logits = (torch.rand(shape, generator=generator) * 2 - 1) * bound
        masked = torch.rand(shape, generator=generator) < 0.9
        masked[:, 0] = False  # every row keeps a token it can sample
        logits = logits.masked_fill(masked, float("-inf"))
    else:
        logits = torch.randn(shape, generator=generator) * 3
    return logits.to(device=device, dtype=dtype)


def run_sampler(logits: torch.Tensor, info: Any, plan: Drive) -> torch.Tensor:
    """``[batch]`` token ids on the logits' device, treating ``logits`` as SGLang's sampler does (see the module
    doc): greedy, their argmax (int64), the logits untouched; sampled, the logits divided by
    ``info.temperatures`` and overwritten by their softmax in place, then ids drawn from those probabilities
    with the plan's seed, as int32."""
    if plan.sampler == GREEDY:
        return torch.argmax(logits, dim=-1)
    logits.div_(info.temperatures)
    logits[:] = torch.softmax(logits, dim=-1)
    return _draw(logits.detach().float().cpu(), plan.seed + 1).to(device=logits.device, dtype=torch.int32)


def _draw(probs: torch.Tensor, seed: int) -> torch.Tensor:
    """One token a row, drawn by inverting each row's cumulative distribution at a seeded uniform point: a
    token with no probability is never drawn (the first cumulative value above the point has a share of its
    own). ``torch.multinomial`` draws the same way in distribution but costs 8 ms a row of 151,936 tokens
    on a CPU, this a tenth of that."""
    cdf = probs.cumsum(dim=-1)
    point = torch.rand((probs.shape[0], 1), generator=torch.Generator().manual_seed(seed)) * cdf[:, -1:]
    drawn = torch.searchsorted(cdf, point, side="right").squeeze(1)
    return torch.where(drawn < probs.shape[1], drawn, probs.argmax(dim=-1))  # a point rounded up to the total
