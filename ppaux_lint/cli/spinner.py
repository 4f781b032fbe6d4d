"""A spinner on a terminal while an analysis runs: one line, redrawn by a thread of its own.

A fork copies only the thread that forks, with every lock as it was, so a process must run one thread when
it forks a worker (``support/children.py``). The spinner used to be rich's status, whose thread then made
every run in a terminal start its workers the slow way, and a way that let the checked tree's modules run.
This spinner stops its thread while a child is forked (``children.pausing``) and starts it again after, so a
run in a terminal starts its workers exactly as a piped one does. It draws with plain escapes (clear the
line, hide the cursor), so it costs no import of rich's live display either.
"""

from __future__ import annotations

import threading
from typing import TextIO

from ppaux_lint.support import children

_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_INTERVAL = 0.08  # seconds a frame shows, as rich's "dots"


class Spinner:
    def __init__(self, text: str, stream: TextIO, colour: bool = True) -> None:
        self._text = text
        self._stream = stream
        self._colour = colour
        self._frame = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._registered = children.pausing(self)

    def __enter__(self) -> Spinner:
        self._registered.__enter__()
        self._write("\x1b[?25l")  # hide the cursor
        self.resume()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.pause()
        self._registered.__exit__(None, None, None)
        self._write("\r\x1b[2K\x1b[?25h")  # clear the line, show the cursor

    def pause(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def resume(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._spin, name="ppaux-lint-spinner", daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while True:
            frame = _FRAMES[self._frame % len(_FRAMES)]
            self._frame += 1
            self._write(f"\r\x1b[2K\x1b[32m{frame}\x1b[0m {self._text}" if self._colour
                        else f"\r\x1b[2K{frame} {self._text}")
            if self._stop.wait(_INTERVAL):
                return

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a terminal that went away: the spinner is only decoration
            pass
