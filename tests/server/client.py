"""A minimal LSP client for the tests: ``ppaux-lint server`` in a real process, JSON-RPC framed by hand.

The framing is written out here, not borrowed from pygls, so the tests check the server against the
protocol rather than against pygls talking to itself. A reader thread collects what the server sends;
the tests wait for the message they expect, with a timeout, so a server that never answers fails the
test instead of hanging it. :class:`Connection` is the client over any pair of streams (a server run in
the test's own process, for looking inside it); :class:`LspClient` runs the server as a process of its own,
in a process group of its own, so killing the group leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

TIMEOUT = 30.0


class Connection:
    """The client's side of a server's two streams: ``to_server`` (its stdin), ``from_server`` (its stdout)."""

    def __init__(self, to_server: BinaryIO, from_server: BinaryIO) -> None:
        self.to_server, self.from_server = to_server, from_server
        self.stderr: list[str] = []
        self._inbox: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        self._ids = iter(range(1, 1 << 30))
        self._ended = False  # the server's output ended: nothing more will arrive
        threading.Thread(target=self._read, daemon=True).start()

    # -- sending ---------------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Bytes as they are, framed or not (the frame tests write bad frames)."""
        self.to_server.write(data)
        self.to_server.flush()

    def close_input(self) -> None:
        """End the server's input, as a client that goes away does."""
        self.to_server.close()

    def send_raw(self, body: bytes) -> None:
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send a request and return its whole response (``result`` or ``error``)."""
        number = next(self._ids)
        self.send({"id": number, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == number and "method" not in m, timeout)

    def initialize(self, root: Path, **options: Any) -> dict[str, Any]:
        """The opening handshake, with ``options`` as ``initializationOptions``; the server's capabilities."""
        reply = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                            "initializationOptions": options})
        self.notify("initialized", {})
        return reply["result"]["capabilities"]

    # -- receiving ---------------------------------------------------------------------------------------
    def wait_for(self, wanted: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first message not yet taken that ``wanted`` accepts (taken now); AssertionError after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                for message in self._inbox:
                    if wanted(message):
                        self._inbox.remove(message)
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or (self._ended and not self._inbox):
                    raise AssertionError(f"no such message within {timeout}s; got {self._inbox}; "
                                         f"server stderr: {''.join(self.stderr)}")
                self._arrived.wait(min(left, 0.5))

    def received(self) -> list[dict[str, Any]]:
        """The messages that arrived and were not taken yet."""
        with self._arrived:
            return list(self._inbox)

    def diagnostics(self, uri: str, accept: Callable[[list[dict]], bool] = lambda d: True,
                    timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """The diagnostics of the first publish for ``uri`` that ``accept`` takes, skipping earlier ones
        (the debounce may let the server publish an intermediate state first)."""
        def wanted(m: dict[str, Any]) -> bool:
            return (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                    and accept(m["params"]["diagnostics"]))

        return self.wait_for(wanted, timeout)["params"]["diagnostics"]

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the pipe closed under us: kill() at the end of a test
            self._read_messages()
        with self._arrived:
            self._ended = True
            self._arrived.notify_all()

    def _read_messages(self) -> None:
        stream = self.from_server
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None, "a message without Content-Length"
            message = json.loads(stream.read(length))
            with self._arrived:
                self._inbox.append(message)
                self._arrived.notify_all()


class LspClient(Connection):
    """``python -m ppaux_lint server`` started in ``cwd``, in a new session (its own process group)."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "ppaux_lint", "server"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env={**os.environ, **(env or {})}, start_new_session=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        super().__init__(self.process.stdin, self.process.stdout)
        self._stderr_drained = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_drained.start()

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.process.stderr:
                self.stderr.append(line.decode("utf-8", "replace"))

    # -- ending ------------------------------------------------------------------------------------------
    def wait(self, timeout: float = TIMEOUT) -> int:
        return self.process.wait(timeout)

    def log(self) -> str:
        """All the server wrote to stderr, once it has exited (:meth:`wait` first)."""
        assert self.process.poll() is not None, "the server is still running"
        self._stderr_drained.join(TIMEOUT)
        return "".join(self.stderr)

    def kill(self) -> None:
        """Kill the server's whole process group and reap the server."""
        with contextlib.suppress(ProcessLookupError):  # the group is empty already
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):  # a broken pipe on flushing what the server never read
                    stream.close()

    def leftovers(self) -> list[int]:
        """The processes still in the server's process group (after :meth:`kill`, there must be none)."""
        found = []
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
                if entry.name.isdigit() and int(fields[2]) == self.process.pid and fields[0] != "Z":
                    found.append(int(entry.name))
        return found
