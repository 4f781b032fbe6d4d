"""Wrap any obsforge observer to time-stamp what it produces.

The wrapper output forwards every attribute it does not have (``to_pp_tensors`` included) to the output it
wraps, so it crosses stages exactly as the wrapped output does.
"""

from __future__ import annotations

import time

from obsforge.hosts import TimedHost


class TimedOutput:
    def __init__(self, inner, produced_at: float):
        self._inner = inner
        self.produced_at = produced_at

    def __getattr__(self, name):
        if name.startswith("__") or name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def copy_to_host(self, copy_tensor):
        return TimedHost(self._inner.copy_to_host(copy_tensor), self.produced_at)


class TimedObserver:
    def __init__(self, inner):
        self.inner = inner

    def is_active(self, sampling_info):
        return self.inner.is_active(sampling_info)

    def before_grammar(self, logits, sampling_info):
        return self.inner.before_grammar(logits, sampling_info)

    def after_sample(self, state, token_ids):
        output = self.inner.after_sample(state, token_ids)
        if output is None:
            return None
        return TimedOutput(output, time.monotonic())

    def from_pp_tensors(self, tensors):
        return TimedOutput(self.inner.from_pp_tensors(tensors), time.monotonic())
