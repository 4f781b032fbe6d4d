"""The cyclic garbage collector, tuned for a run of the command line.

A run allocates hundreds of thousands of objects that live until it ends (summaries, the index, the
workers' answers as they are unpickled) and makes almost no reference cycles, which is all the collector is
for. With the default thresholds it traverses that growing heap every 700 allocations: on the 10,000-file
benchmark monorepo, 491 collections took 0.27 s of the main process. Far rarer collections (mypy tunes the same
way, for the same reason) leave one; peak memory is unchanged (64 MiB), since reference counting frees all
but cycles. Forked workers inherit the setting.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

THRESHOLDS = (200_000, 30, 30)  # allocations before a young collection; young, then middle, per older one
# CPython's defaults through 3.12 (3.13 starts young collections at 2,000): for a long-lived process that drops
# what it made at every step, such as the language server (``server/app.py``).
USUAL_THRESHOLDS = (700, 10, 10)


@contextlib.contextmanager
def thresholds(values: tuple[int, int, int]) -> Iterator[None]:
    """Collect at ``values`` for the duration, then as before (``main`` can run inside another program: a
    test, an IDE)."""
    previous = gc.get_threshold()
    gc.set_threshold(*values)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def tuned() -> contextlib.AbstractContextManager[None]:
    """Collect rarely for the duration of a command-line run."""
    return thresholds(THRESHOLDS)
