"""``verify --explore N`` for a driven output: the observer driven with drawn inputs, failures shrunk.

When the output's examples come from its observer (``supply.py``), the variants worth trying are the
observer's inputs, not the output's fields: other batch sizes, vocabularies, logits dtypes, kinds of
values (``drive.VALUE_KINDS``) and both of SGLang's sampler paths (``drive.SAMPLERS``). Each draw drives the
observer once and sends what it returns through the same round trip as the base examples; hypothesis shrinks
a failure towards batch 1, the default vocabulary, float32, normal logits and the sampled path, so the drive
a failure is reported at is the simplest one that shows it. Batches start at 1, as the plain drives do:
SGLang never samples a 0-row batch (``drive.py``).

A draw on which the observer produces nothing is not a failure (SGLang sends nothing then), and neither is
a half-precision kernel that this device's torch lacks: the draw is discarded. A hook that raises on any
other draw is a failure, as on the base drives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from hypothesis import assume, example, given
from hypothesis import strategies as st

from ppaux_lint.runtime.driving.drive import (
    DEFAULT_VOCAB,
    GREEDY,
    HALF_TYPES,
    REAL_VOCAB,
    SAMPLERS,
    VALUE_KINDS,
    Drive,
    NotDriven,
    drive,
)
from ppaux_lint.runtime.driving.examples import Example
from ppaux_lint.runtime.driving.explore import run_quietly
from ppaux_lint.runtime.driving.supply import driven_example
from ppaux_lint.runtime.sending.roundtrip import Falsified, Outcome, Steps

MAX_BATCH = 8
VOCABS = (DEFAULT_VOCAB, 1000, 4096, 32000, REAL_VOCAB)
"""Vocabularies drawn: never below the default, as a real one never is (an observer's ``topk(20)`` is
right to assume twenty tokens)."""

DRIVES = st.builds(
    Drive,
    batch=st.integers(1, MAX_BATCH),
    vocab=st.sampled_from(VOCABS),
    dtype=st.sampled_from(("float32", *HALF_TYPES)),
    values=st.sampled_from(VALUE_KINDS),
    seed=st.integers(0, 2**16),
    sampler=st.sampled_from(SAMPLERS),
)


def explore_drives(observer: Any, expected: type, judge: Callable[[Example], None], count: int, seed: int,
                   device: torch.device, steps: Steps) -> str:
    """Drive ``observer`` with ``count`` drawn inputs and ``judge`` each output (``judge`` raises an
    ``Outcome`` on failure); return what was explored, or raise ``Falsified`` at the smallest failing drive."""
    tried = 0
    failed: dict[str, Any] = {}

    @given(DRIVES)
    @example(Drive(MAX_BATCH - 1, values="extreme"))
    @example(Drive(1, dtype=HALF_TYPES[0]))
    def check(plan: Drive) -> None:
        nonlocal tried
        try:
            driven = drive(observer, plan, device, steps, expected)
        except NotDriven:
            assume(False)
        except Outcome as outcome:
            assume("not implemented for" not in outcome.message)
            failed.update(plan=plan, outcome=outcome)
            raise
        tried += 1
        try:
            judge(driven_example(driven))
        except Outcome as outcome:
            failed.update(plan=plan, outcome=outcome)
            raise

    try:
        run_quietly(check, count, seed)
    except Outcome:
        plan, outcome = failed["plan"], failed["outcome"]
        message = f"explored, seed {seed}: fails driven at {plan.describe()}: {outcome.message}"
        raise Falsified(Outcome(outcome.status, message, outcome.detail, outcome.provoked),
                        {"drive": plan.to_json()}, reproducer(type(observer), plan)) from None
    return f"explored {tried} drives around them, seed {seed}"


def reproducer(observer: type, plan: Drive) -> str:
    """Python that drives the observer as the failing draw did, to paste into a test."""
    name = observer.__qualname__
    return "\n".join([
        "import torch",
        "from ppaux_lint.runtime.driving.batch_info import sampling_info",
        "from ppaux_lint.runtime.driving.drive import Drive, make_logits, run_sampler",
        f"from {observer.__module__} import {name.split('.')[0]}",
        "",
        f"plan = Drive(batch={plan.batch}, vocab={plan.vocab}, dtype={plan.dtype!r}, values={plan.values!r}, "
        f"seed={plan.seed}, sampler={plan.sampler!r})",
        'device = torch.device("cpu")',
        f"observer = {name}()  # built as in your deployment",
        "logits = make_logits(plan, device)",
        f"info = sampling_info(plan.batch, plan.vocab, device, greedy={plan.sampler == GREEDY})",
        "state = observer.before_grammar(logits, info)",
        "token_ids = run_sampler(logits, info, plan)  # SGLang's sampler: in place on the logits",
        "output = observer.after_sample(state, token_ids)",
    ])
