"""Blocking reads for the event loop, on a daemon thread, so that nothing waits for one at exit.

The server's input is a pipe that can stay silent for hours. A read on an executor's thread holds up the
end of the process (``asyncio.run`` and the interpreter both join executor threads), so a Ctrl-C that came
while the client was silent left the server hanging until the client wrote again; pygls's reader did this.
Here one daemon thread does the reads, one at a time, each only when the loop asks for it, so the loop
decides what happens between two reads (a body found not to be JSON is handed back first). The thread
ends with the input (a read that returns None) or with the first read that fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable


class DaemonReader:
    """``await reader()`` runs ``read()`` on the reader's daemon thread and returns what it returned."""

    def __init__(self, read: Callable[[], bytes | None], name: str) -> None:
        self._read = read
        self._asked: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name=name, daemon=True).start()

    async def __call__(self) -> bytes | None:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future = loop.create_future()
        self._asked.put((loop, answer))
        return await answer

    def _serve(self) -> None:
        result: bytes | None = b""
        while result is not None:
            loop, answer = self._asked.get()
            try:
                result, error = self._read(), None
            except Exception as failure:  # noqa: BLE001 - raised where the loop awaits the read
                result, error = None, failure
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this read any more
                loop.call_soon_threadsafe(_settle, answer, result, error)


def _settle(answer: asyncio.Future, result: object, error: BaseException | None) -> None:
    if answer.done():  # cancelled while the read blocked (the loop is ending)
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(result)
