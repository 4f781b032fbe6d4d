"""The server's input split into message bodies, trusting no header: a bad frame costs only itself.

LSP frames each JSON body with headers (``Content-Length: N``, a blank line). pygls 2's reader matches one
exact spelling of that header, so after ``Content-Length: abc``, a missing or negative length, or headers
ending in ``\\n``, it read the bodies as header lines and never answered again; and it asked the stream
for all N bytes at once, so ``Content-Length: 1000000000000`` died of ``MemoryError``. Here:

- header lines may end in ``\\r\\n`` or ``\\n``, names are matched ignoring case, other headers are ignored,
  and blank lines between frames are skipped: a frame that is merely sloppy is read as meant;
- a frame that cannot be read (no usable ``Content-Length``, a length over :data:`MAX_BODY`, a line that is
  no header, or headers that do not end within :data:`MAX_HEADER` bytes) is a bad frame: it is logged once
  and skipped, and reading resumes at the next ``Content-Length`` in the stream (resynchronising), so the
  next good message, ``shutdown`` included, is answered;
- a body that turns out not to be JSON is handed back with :meth:`FrameReader.reject`, and the stream is
  searched again from just after where its frame began: a length that claimed too much swallowed the
  messages after it, and they are found again inside it;
- a body is collected from what the stream delivers, in chunks of at most :data:`CHUNK` bytes, never
  allocated at the size a header claims; the input ending inside a frame is logged once and ends the
  server, as the input ending between frames does silently (the client has gone).

Memory stays bounded: the buffer holds at most one frame (:data:`MAX_BODY`) and what one read brought in
beyond it, and while skipping it keeps only the bytes that could still begin a header.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable
from typing import BinaryIO

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024 * 1024  # far above any buffer an editor sends for one Python file
MAX_HEADER = 8 * 1024  # the headers of one frame; LSP defines two, each well under 100 bytes
CHUNK = 64 * 1024
_HEADER_START = re.compile(rb"content-length", re.IGNORECASE)  # where a resynchronisation may land
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP header name (RFC 9110's token)
_MAX_DIGITS = 20  # more digits than this is over MAX_BODY anyway; never int() an unbounded string


class BadFrame(Exception):
    """A frame that cannot be read; the message says why."""


class FrameReader:
    """Message bodies from a byte stream, one :meth:`next_body` call per message (blocking)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._read = _reader(stream)
        self._buffer = bytearray()
        self._frame_end = 0  # the last frame returned stays buffered until the next call (see reject)
        self._rejected = False

    def next_body(self) -> bytes | None:
        """The next message's body, or None once the input has ended."""
        if self._rejected:
            self._rejected = False
            if not self._skip_to_header(1):
                return None
        else:
            del self._buffer[:self._frame_end]
        self._frame_end = 0
        while True:
            try:
                return self._frame()
            except BadFrame as fault:
                logger.error("bad frame: %s; skipping to the next Content-Length header", fault)
                if not self._skip_to_header(1):
                    return None
            except EOFError as ended:
                if str(ended):
                    logger.error("the input ended %s", ended)
                return None

    def reject(self) -> None:
        """The body last returned is not a message: look for the next header from just after its frame's
        start (the frame claimed too long a body if one is found inside it)."""
        self._rejected = True

    # -- one frame -------------------------------------------------------------------------------------------
    def _frame(self) -> bytes:
        """A whole frame at the start of the buffer: its body (the frame stays buffered until the next call).
        EOFError (with what was cut off, empty between frames) at the end of the input."""
        self._skip_blank_lines()
        start, length = 0, None
        while True:
            end = self._line_end(start)
            line = bytes(self._buffer[start:end]).rstrip(b"\r\n")
            start = end
            if not line:
                break
            length = _content_length(line, length)
        if length is None:
            raise BadFrame("no Content-Length header")
        if length > MAX_BODY:
            raise BadFrame(f"a body of {length} bytes is over the {MAX_BODY}-byte limit")
        while len(self._buffer) < start + length:
            if not self._fill():
                raise EOFError(f"inside a message body ({len(self._buffer) - start} of {length} bytes)")
        self._frame_end = start + length
        return bytes(self._buffer[start:self._frame_end])

    def _skip_blank_lines(self) -> None:
        while True:
            blank = len(self._buffer) - len(self._buffer.lstrip(b"\r\n"))
            del self._buffer[:blank]
            if self._buffer:
                return
            if not self._fill():
                raise EOFError("")

    def _line_end(self, start: int) -> int:
        """Where the header line at ``start`` ends (after its ``\\n``), reading as much as that takes."""
        while (newline := self._buffer.find(b"\n", start)) < 0:
            if len(self._buffer) > MAX_HEADER:
                break
            if not self._fill():
                raise EOFError(f"inside a message header ({len(self._buffer)} bytes)")
        if not 0 <= newline < MAX_HEADER:
            raise BadFrame(f"the headers do not end within {MAX_HEADER} bytes")
        return newline + 1

    # -- between frames ------------------------------------------------------------------------------------
    def _skip_to_header(self, start: int) -> bool:
        """Drop everything before the first ``Content-Length`` at or after ``start``; False if the input
        ends first. Only a possible beginning of one is kept while reading on."""
        keep = len(b"content-length") - 1
        while (found := _HEADER_START.search(self._buffer, start)) is None:
            del self._buffer[:max(len(self._buffer) - keep, 0)]
            start = 0
            if not self._fill():
                return False
        del self._buffer[:found.start()]
        return True

    def _fill(self) -> bool:
        """Read what the stream has (at most CHUNK bytes) onto the buffer; False at the end of the input."""
        data = self._read(CHUNK)
        self._buffer += data
        return bool(data)


def _reader(stream: BinaryIO) -> Callable[[int], bytes]:
    """What the stream has, up to n bytes, blocking only while it has nothing. Straight from the file
    descriptor when there is one: a read blocked inside the buffered object holds that object's lock, and a
    daemon thread holding sys.stdin's lock when the interpreter finalizes aborts the process."""
    try:
        return functools.partial(os.read, stream.fileno())
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both of the last two
        return getattr(stream, "read1", stream.read)


def _content_length(line: bytes, known: int | None) -> int | None:
    """The length a header line gives, else ``known`` (another header); BadFrame for a line that is no
    header or a Content-Length that is no byte count."""
    name, colon, value = line.partition(b":")
    if not colon or not _TOKEN.fullmatch(name):
        raise BadFrame(f"{_shown(line)} is not a header")
    if name.lower() != b"content-length":
        return known
    value = value.strip()
    if not (value.isdigit() and len(value) <= _MAX_DIGITS):
        raise BadFrame(f"Content-Length {_shown(value)} is not a byte count")
    return int(value)


def _shown(data: bytes) -> str:
    text = data[:60].decode("ascii", "backslashreplace")
    return repr(text + ("..." if len(data) > 60 else ""))
