"""Bad frames written to a real ``ppaux-lint server``: each costs only itself, and nothing hangs (issue 24).

What the server does, by kind of fault (``ppaux_lint/server/frames.py`` says why):

- a frame it cannot read (``Content-Length: abc``, a negative or missing length, a length over the limit,
  garbage before a header, a line that is no header): one ``bad frame`` line on stderr, then it reads on
  from the next ``Content-Length`` header, so the next request, ``shutdown`` here, is answered;
- headers ending in ``\\n`` rather than ``\\r\\n``: read as meant, nothing logged;
- a length that claims too little or too much: the body is not JSON, so it is logged and the messages it
  cut into or swallowed are found again;
- the input ending inside a frame (a header with no body, a body cut short): one line on stderr, exit 1, as
  for any end of the input before ``shutdown``.

Each test starts its server in a process group of its own and kills the group in teardown, then checks that
nothing of it is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from .client import LspClient

SHUTDOWN = 1 << 20  # the id of the one shutdown request each test sends, unlike any of the client's own


def framed(body: bytes, header: bytes | None = None) -> bytes:
    return (header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)) + body


def message(**fields: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}).encode()


SHUTDOWN_REQUEST = message(id=SHUTDOWN, method="shutdown")
LOST = message(id=SHUTDOWN + 1, method="shutdown")  # the body of a bad frame: never answered
SET_TRACE = message(method="$/setTrace", params={"value": "off"})


@contextlib.contextmanager
def running(root: Path, env: dict[str, str] | None = None) -> Iterator[LspClient]:
    """An initialized server; its process group killed and checked for leftovers whatever happened."""
    client = LspClient(root, env)
    try:
        client.initialize(root)
        yield client
    finally:
        client.kill()
        assert client.leftovers() == []


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LspClient]:
    with running(tmp_path) as client:
        yield client


def shut_down(client: LspClient) -> str:
    """Ask for shutdown (the answer must come), exit, and return what the server logged."""
    client.send_raw(SHUTDOWN_REQUEST)
    reply = client.wait_for(lambda m: m.get("id") == SHUTDOWN)
    assert "result" in reply and reply["result"] is None
    client.notify("exit")
    assert client.wait() == 0
    return client.log()


def bad_frame_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "bad frame" in line]


@pytest.mark.parametrize(("written", "reason"), [
    (framed(LOST, b"Content-Length: abc\r\n\r\n"), "Content-Length 'abc' is not a byte count"),
    (framed(LOST, b"Content-Length: -5\r\n\r\n"), "Content-Length '-5' is not a byte count"),
    (framed(LOST, b"Content-Type: application/vscode-jsonrpc\r\n\r\n"), "no Content-Length header"),
    (framed(LOST, b"Content-Length: 1000000000000\r\n\r\n"), "a body of 1000000000000 bytes is over the"),
    (b"xyz garbage\r\n" + framed(SET_TRACE), "'xyz garbage' is not a header"),
    (b"garbage" + framed(SET_TRACE), "no Content-Length header"),  # no line of its own: an unknown header
    (b"{}}" + framed(SET_TRACE), f"'{{}}}}Content-Length: {len(SET_TRACE)}' is not a header"),  # a cut body's end
    (b"x" * 10_000 + b"\r\n" + framed(SET_TRACE), "the headers do not end within"),
], ids=["not-a-number", "negative", "missing", "over-the-limit", "garbage-line", "garbage-glued", "cut-body-tail",
        "endless-line"])
def test_a_bad_frame_is_skipped_and_the_next_request_answered(server, written, reason):
    server.write(written)
    log = shut_down(server)
    (line,) = bad_frame_lines(log)
    assert reason in line and "skipping to the next Content-Length header" in line
    assert "MemoryError" not in log and "Traceback" not in log
    with pytest.raises(AssertionError):  # a bad frame's own message is dropped, never misread as another
        server.wait_for(lambda m: m.get("id") == SHUTDOWN + 1, timeout=0)


def test_lf_only_headers_are_read_as_meant(server):
    server.write(framed(SHUTDOWN_REQUEST, b"Content-Length: %d\n\n" % len(SHUTDOWN_REQUEST)))
    assert server.wait_for(lambda m: m.get("id") == SHUTDOWN)["result"] is None
    server.notify("exit")
    assert server.wait() == 0
    assert server.log() == ""


def test_a_length_that_claims_too_little_costs_only_its_message(server):
    """The usual client bug: the length counted in characters, the body sent in UTF-8. The cut body is not
    JSON, and what is left of it is skipped on the way to the next header: one line for the one fault."""
    text = json.dumps({"jsonrpc": "2.0", "method": "$/setTrace", "params": {"value": "off", "note": "éé"}},
                      ensure_ascii=False)
    server.write(framed(text.encode(), b"Content-Length: %d\r\n\r\n" % len(text)))
    (line,) = shut_down(server).splitlines()
    assert "Unable to handle message" in line


def test_a_length_that_claims_too_much_gives_back_what_it_swallowed(server):
    """The frame's body runs into the shutdown request and on; once the claimed bytes have arrived it is not
    JSON, and the messages inside it are read again from there."""
    swallowed = framed(SHUTDOWN_REQUEST) + framed(SET_TRACE)
    server.write(framed(SET_TRACE, b"Content-Length: %d\r\n\r\n" % (len(SET_TRACE) + len(swallowed) + 5)))
    server.write(swallowed + framed(SET_TRACE))  # 5 bytes of the last one complete the claimed length
    assert server.wait_for(lambda m: m.get("id") == SHUTDOWN)["result"] is None
    server.notify("exit")
    assert server.wait() == 0
    log = server.log()
    assert "Unable to handle message" in log and "Traceback" not in log


@pytest.mark.parametrize(("written", "said"), [
    (b"Content-Length: 50\r\n\r\n", "inside a message body (0 of 50 bytes)"),
    (b'Content-Length: 50\r\n\r\n{"jsonrpc"', "inside a message body (10 of 50 bytes)"),
    (b"Content-Length: 5", "inside a message header (17 bytes)"),
], ids=["no-body", "cut-body", "cut-header"])
def test_the_input_ending_inside_a_frame_exits_with_one_line(server, written, said):
    server.write(written)
    server.close_input()
    assert server.wait() == 1  # the input ended before shutdown, as LSP has it
    assert server.log().splitlines() == [f"ppaux-lint server: ERROR: the input ended {said}"]


def test_a_claimed_length_is_not_allocated_before_it_arrives(tmp_path):
    """A length under the limit but over what the process may still map: read as it arrives, the body never
    needs it, and a little of it followed by the end of the input ends the server with one line. (One
    malloc arena: a thread's own arena reserves 64 MiB of address space up front, which would hide an
    allocation of the claimed size from the limit.)"""
    claimed = 48 * 1024 * 1024
    with running(tmp_path, {"MALLOC_ARENA_MAX": "1"}) as server:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.prlimit(server.process.pid, resource.RLIMIT_AS, (mapped(server.process.pid) + claimed // 3, hard))
        server.write(b"Content-Length: %d\r\n\r\n" % claimed + SET_TRACE)
        server.close_input()
        assert server.wait() == 1
        assert server.log().splitlines() == [
            f"ppaux-lint server: ERROR: the input ended inside a message body ({len(SET_TRACE)} of {claimed} bytes)"]


def test_ctrl_c_while_the_client_is_silent_ends_the_server(server):
    """A read blocked on a silent client must not keep the process from ending."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        pytest.skip("SIGINT is ignored here, so it is in the server too")
    assert server.request("ppaux/noSuchMethod")["error"]["code"] == -32601  # answered: now it waits to read
    os.kill(server.process.pid, signal.SIGINT)
    assert server.wait() == 1
    assert "Traceback" not in server.log()


def mapped(pid: int) -> int:
    """The process's address space now, in bytes (VmSize)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc")
