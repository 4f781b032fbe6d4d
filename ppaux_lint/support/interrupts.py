"""A Ctrl-C that Python swallowed still ends the command as one.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT arrives. Where that is inside a
callback the interpreter calls for itself (a weakref's, an import lock's, a ``__del__``), the exception cannot
propagate: the interpreter prints "Exception ignored in ..." with a traceback, and the run goes on as if nothing
had happened, to exit 0 or 1 where a terminal's user asked it to stop (exit 130, one line). A CI run of the
suite met it once: a check interrupted while it imported a module, in ``importlib``'s lock callback.

:func:`watched` notes every SIGINT that arrives while a command runs (raising ``KeyboardInterrupt`` as Python's own
handler does), and keeps an interrupt that had to be ignored off standard error, since the command reports it
itself: ``cli.main`` then ends the run as interrupted. An interrupt that was raised where it could be caught is the
command's to handle, as before. Only where Python's own handler is in place, in the main
thread: a program that set its own (a test runner, an IDE) keeps it.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import Any


class Watch:
    """Whether a SIGINT arrived while watched, and whether Python had to ignore the ``KeyboardInterrupt`` it raised
    (a command that catches the interrupt itself, as the language server does, keeps its own exit code)."""

    def __init__(self) -> None:
        self.interrupted = False
        self.swallowed = False

    def _handler(self, signum: int, frame: Any) -> None:
        self.interrupted = True
        raise KeyboardInterrupt


@contextlib.contextmanager
def watched() -> Iterator[Watch]:
    """Note SIGINTs inside (``Watch.interrupted``), and print none that Python could not raise."""
    watch = Watch()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield watch
        return
    previous_hook = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if watch.interrupted and issubclass(unraisable.exc_type, KeyboardInterrupt):
            watch.swallowed = True  # the command reports it (``cli.main``)
        else:
            previous_hook(unraisable)

    installed = False
    sys.unraisablehook = hook
    try:
        with contextlib.suppress(ValueError):  # not the main thread: no handler can be set, nor SIGINT arrive
            signal.signal(signal.SIGINT, watch._handler)
            installed = True
        yield watch
    finally:
        if installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = previous_hook
