"""Debouncing: one analysis after a burst of edits, never two at once, and never a stale one last.

Typing sends a didChange per keystroke; analysing each would queue work faster than it completes. A request
(re)starts a timer; when it fires, the job runs; requests that arrive while it runs start a timer again,
so the last edit is always analysed after the analysis that was running when it came.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)


class Debouncer:
    def __init__(self, job: Callable[[], Awaitable[object]]) -> None:
        self._job = job
        self._timer: asyncio.TimerHandle | None = None
        self._due = asyncio.Event()
        self._worker: asyncio.Task | None = None

    def request(self, delay: float) -> None:
        """Run the job ``delay`` seconds from now, unless another request comes first (then from that one)."""
        loop = asyncio.get_running_loop()
        if self._worker is None:
            self._worker = loop.create_task(self._run())
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(delay, self._due.set)

    def cancel(self) -> None:
        """Stop: pending requests are dropped (the client is shutting down)."""
        if self._timer is not None:
            self._timer.cancel()
        if self._worker is not None:
            self._worker.cancel()

    async def _run(self) -> None:
        while True:
            await self._due.wait()
            self._due.clear()
            try:
                await self._job()
            except Exception:  # one failed analysis must not stop the next one
                logger.exception("analysis failed")
