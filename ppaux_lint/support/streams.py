"""Standard input, output and error as a command-line run needs them, whatever state its caller left them in.

A shell may start ppaux-lint with a standard descriptor closed (``>&-``, ``2>&-``, ``<&-``), with its output
on a pipe whose reader has gone (``| head``) or on a full disk. Python then leaves ``sys.stdout`` None, or
raises from whichever write or flush meets the failure, or from the flush at exit; and click turns a broken
pipe into a silent exit 1, which a script reads as "findings". :func:`prepare` gives each case one outcome:

- A closed descriptor is held open on the null device, so that no file the run opens takes its number: after
  ``>&-`` the first ``open`` gets descriptor 1, and whatever a library or a worker process writes to standard
  output would land in that file (a source file ``--fix`` rewrites, say). Standard output's stand-in is open
  for reading only and standard input's for writing only, so that a write to the one, and a read from the
  other, still fail with EBADF, as on the closed descriptor, in this process and in its children.
- Standard output that cannot be written raises :class:`~ppaux_lint.support.command.OutputFailed` from the
  write that met it (``main`` prints it as one line, exit code 2), and from then on the descriptor is the null
  device: what is left in the buffer, a later write, the flush at exit or a worker's output fails no more.
- Standard error that cannot be written is given up the same way, silently, since it is where that line would
  go: the exit code still says what happened.

Only the interpreter's own streams are replaced: a test harness or a program that captures ``sys.stdout``
keeps its streams, and sees the errors their writes raise.
"""

from __future__ import annotations

import errno
import io
import os
import sys

from ppaux_lint.support.command import OutputFailed

STDIN, STDOUT, STDERR = 0, 1, 2
_STAND_IN_MODE = {STDIN: os.O_WRONLY, STDOUT: os.O_RDONLY, STDERR: os.O_WRONLY}  # see the module docstring
# The streams put in place, referenced here for as long as the process runs, as ``sys.__stdout__`` keeps the
# interpreter's: a stream nothing refers to is closed, and the server writes on through ``sys.stdout.buffer``
# after it points ``sys.stdout`` elsewhere.
_KEPT: list[io.TextIOWrapper] = []
_LOST: list[OutputFailed] = []  # standard output's failure, once it met one (``lost``)


class _Output(io.TextIOWrapper):
    """Standard output or error, whose failed writes end as the module docstring says."""

    def __init__(self, fd: int, replacing: io.TextIOWrapper | None) -> None:
        """Buffered as the stream it replaces (``python -u``, a terminal), else as Python buffers a new one."""
        raw = io.FileIO(fd, "w", closefd=False)
        unbuffered = isinstance(getattr(replacing, "buffer", None), io.RawIOBase)  # as -u makes them
        super().__init__(raw if unbuffered else io.BufferedWriter(raw),
                         encoding=getattr(replacing, "encoding", None) or "utf-8",
                         errors="backslashreplace",  # a file name that is not UTF-8 prints escaped, never raises
                         line_buffering=getattr(replacing, "line_buffering", fd == STDERR),
                         write_through=getattr(replacing, "write_through", False))
        self._raises = fd == STDOUT

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except OSError as error:
            self.failed(error)
            return len(text)

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as error:
            self.failed(error)

    def failed(self, error: OSError) -> None:
        """The stream could not be written: the null device takes its place, and stdout says so."""
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, self.fileno())
        finally:
            os.close(null)
        if self._raises:
            failure = OutputFailed(error)
            _LOST.append(failure)
            raise failure from None


def lost() -> OutputFailed | None:
    """The failure that put the null device in standard output's place, if any: one a caller swallowed (click
    probes a stream with an empty write inside ``except Exception``) must still end the run as it would have."""
    return _LOST[0] if _LOST else None


def prepare() -> None:
    """Hold the closed standard descriptors, and put :class:`_Output` in place of the interpreter's standard
    output and error (for ``main``, before anything is read or written). Either way a file name that is not
    UTF-8 prints escaped, never raises."""
    _LOST.clear()  # a run in this process before this one (a test's) said its own failure
    for fd in (STDIN, STDOUT, STDERR):
        _hold_if_closed(fd)
    if sys.stdin is None:
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(STDIN, "r", closefd=False)))
    for name, fd in (("stdout", STDOUT), ("stderr", STDERR)):
        current = getattr(sys, name)
        if current is None or (current is getattr(sys, f"__{name}__") and _fileno(current) == fd):
            if current is not None:
                current.flush()
            _KEPT.append(_Output(fd, current))
            setattr(sys, name, _KEPT[-1])
        elif hasattr(current, "reconfigure"):  # someone else's stream: at least never raise on a file name
            current.reconfigure(errors="backslashreplace")


def write_binary(data: bytes) -> None:
    """``data`` on standard output as it is (``--fix`` on standard input prints the fixed source), failing as
    a text write does."""
    out = sys.stdout
    out.flush()
    try:
        out.buffer.write(data)
        out.buffer.flush()
    except OSError as error:
        if not isinstance(out, _Output):
            raise
        out.failed(error)


def _hold_if_closed(fd: int) -> None:
    """Called for 0, 1, 2 in turn: the lowest free descriptor, which ``os.open`` returns, is then ``fd``."""
    try:
        os.fstat(fd)
        return
    except OSError as error:
        if error.errno != errno.EBADF:
            return
    held = os.open(os.devnull, _STAND_IN_MODE[fd])
    os.set_inheritable(held, True)  # os.open's descriptors are not; a standard one is, for every child


def _fileno(stream) -> int | None:
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both an OSError and a ValueError
        return None
