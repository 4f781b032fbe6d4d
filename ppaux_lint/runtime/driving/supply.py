"""Which examples of an output a round trip sends: the ones its observer makes, when it can be driven.

The order of preference follows what is realistic. The outputs the producing observer's own hooks return
(``drive.py``) are what production sends, so they come first; a user's own ``ppaux_example`` (or
configured factory) is sent beside them, since the user asked for it. Only when the observer cannot be
driven (there is none, it cannot be built, it is not active or returns nothing for the stand-in batch,
every drive raised) are the examples built as before (``examples.py``), and the row says why.

A hook that raises at some of the drives while the others produce an output is a failure of its own: the
bug depends on the batch, and SGLang would meet it at that batch whether or not the pipeline is split.
"""

from __future__ import annotations

from typing import Any

import torch

from ppaux_lint.runtime.driving.drive import HOOKS, Drive, Driven, NotDriven, Refused, default_drives, drive
from ppaux_lint.runtime.driving.examples import Example, examples_of, instantiate, own_example
from ppaux_lint.runtime.driving.loader import load_class
from ppaux_lint.runtime.sending.consume import Scene
from ppaux_lint.runtime.sending.roundtrip import Outcome, Steps
from ppaux_lint.runtime.terms.results import ERROR, SKIP
from ppaux_lint.runtime.terms.targets import VerifyTarget
from ppaux_lint.support.records import dataclass


@dataclass(frozen=True)
class Supply:
    """The examples to send, and ``note``: how they were made, for the row (``driven by its observer's hooks
    at batches 1, 2, 3; batch 2, greedy; ...``, ``driven through X at ...`` when X, not the rebuilding observer,
    returns the output, or why they were built from annotations instead). ``observer`` and ``drives`` are the
    driven observer and the drives that produced an output, which ``--explore`` goes on from."""

    examples: list[Example]
    note: str
    observer: Any = None
    drives: tuple[Drive, ...] = ()


@dataclass(frozen=True)
class Drove:
    """What driving the producer gave: the outputs it made (each with its drive), why it made none ("" when
    it made some), and the observer instance."""

    made: list[Driven]
    why_not: str
    observer: Any = None


def drive_outputs(target: VerifyTarget, device: torch.device, steps: Steps,
                  drives: list[Drive] | None = None) -> Drove:
    """Drive ``target``'s producer once per drive (by default ``default_drives``); raise the hook's failure
    when it raised at some drives while others made an output (see the module doc)."""
    return _drive_all(target, device, steps, drives or default_drives(device))


def supply(target: VerifyTarget, device: torch.device, steps: Steps, drove: Drove) -> Supply:
    """The examples for ``target``'s output on ``device``, given what driving its producer gave."""
    assert target.output is not None
    if drove.made:
        assert target.producer is not None
        with steps.step(f"example of {target.output.symbol}", ERROR):
            own = own_example(load_class(target.output), device, target.output.factory)
        by = ("by its observer's hooks" if target.observer and target.observer.symbol == target.producer.symbol
              else f"through {target.producer.symbol}") + target.producer.exposed_as
        note = f"driven {by} at {describe_drives([d.drive for d in drove.made])}"
        examples = [driven_example(d) for d in drove.made] + ([own] if own is not None else [])
        return Supply(examples, note, drove.observer, tuple(d.drive for d in drove.made))
    try:
        examples = examples_of(target.output, device, steps)
    except Outcome as outcome:
        if outcome.status == SKIP and drove.why_not and target.producer is not None:
            raise Outcome(SKIP, f"{outcome.message}; and it could not be driven: {drove.why_not}") from None
        raise
    kind = examples[0].how
    note = f"example {'built from annotations' if kind == 'annotations' else 'of your own'}"
    return Supply(examples, f"{note}: {drove.why_not}" if drove.why_not else note)


def driven_example(driven: Driven) -> Example:
    """The example a drive made: the observer's output, with the scene its host object then consumes."""
    return Example(driven.output, False, f"driven at {driven.drive.describe()}", Scene(driven.token_ids))


def _drive_all(target: VerifyTarget, device: torch.device, steps: Steps, drives: list[Drive]) -> Drove:
    """Drive the producer once per drive."""
    producer, output = target.producer, target.output
    if producer is None:
        return Drove([], "no observer is known to return it")
    try:
        observer = instantiate(producer, device, steps)
        with steps.step(f"import {output.symbol}", ERROR):
            expected = load_class(output)
    except Outcome as outcome:
        return Drove([], f"{producer.symbol} cannot be built ({outcome.message})")
    missing = [hook for hook in HOOKS if not callable(getattr(observer, hook, None))]
    if missing:
        return Drove([], f"{producer.symbol} has no {' or '.join(missing)} for SGLang's sampler to call", observer)
    made: list[Driven] = []
    idle: list[str] = []
    raised: list[tuple[Drive, Outcome]] = []
    for plan in drives:
        try:
            made.append(drive(observer, plan, device, steps, expected))
        except NotDriven as exc:
            idle.append(f"{producer.symbol} {exc} at {plan.describe()}")
            continue
        except Outcome as outcome:
            if isinstance(outcome, Refused) or not isinstance(outcome.__cause__, Exception):  # SystemExit,
                # KeyboardInterrupt, a return SGLang cannot send: what the class does, never the stand-in batch
                raise outcome.within(f"driving {producer.symbol} at {plan.describe()}") from None
            raised.append((plan, outcome))
            continue
    if raised and made:
        plan, outcome = raised[0]
        worked = describe_drives([d.drive for d in made])
        raise outcome.within(f"driving {producer.symbol} at {plan.describe()} ({worked} drove fine)")
    if raised:
        plan, outcome = raised[0]
        return Drove([], f"driving {producer.symbol} raised at every drive, first at {plan.describe()}: "
                         f"{outcome.message}", observer)
    return Drove(made, "" if made else idle[0], observer)


def describe_drives(drives: list[Drive]) -> str:
    """``batches 1, 2, 3`` for the drives where only the batch differs from the defaults, then each other drive
    described (``batches 1, 2, 3; batch 2, greedy``)."""
    plain = [d for d in drives if d.describe() == f"batch {d.batch}"]
    parts = [f"batch{'es' if len(plain) > 1 else ''} {', '.join(str(d.batch) for d in plain)}"] if plain else []
    return "; ".join(parts + [d.describe() for d in drives if d not in plain])
