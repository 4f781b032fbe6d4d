"""Profile any kvstats observer: times its hooks and forwards everything else to it."""

from __future__ import annotations

import time

from sglang.srt.sampling.sampling_observer import SamplingObserver


class ObserverProxy:
    def __init__(self, inner: SamplingObserver):
        self._inner = inner
        self.seconds = 0.0

    def __getattr__(self, name):
        if name.startswith("__") or name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def is_active(self, sampling_info):
        return self._inner.is_active(sampling_info)

    def before_grammar(self, logits, sampling_info):
        start = time.perf_counter()
        try:
            return self._inner.before_grammar(logits, sampling_info)
        finally:
            self.seconds += time.perf_counter() - start

    def after_sample(self, state, token_ids):
        start = time.perf_counter()
        try:
            return self._inner.after_sample(state, token_ids)
        finally:
            self.seconds += time.perf_counter() - start
