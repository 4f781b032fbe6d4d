"""A minimal LSP client for the tests: ``ppaux-lint server`` in a real process, JSON-RPC framed by hand.

The framing is written out here, not borrowed from pygls, so the tests check the server against the
protocol rather than against pygls talking to itself. A reader thread collects what the server sends;
the tests wait for the message they expect, with a timeout, so a server that never answers fails the
test instead of hanging it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TIMEOUT = 30.0


class LspClient:
    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "ppaux_lint", "server"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env={**os.environ, **(env or {})})
        self.stderr: list[str] = []
        self._inbox: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        self._ids = iter(range(1, 1 << 30))
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # -- sending ---------------------------------------------------------------------------------------
    def send_raw(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Send a request and return its whole response (``result`` or ``error``)."""
        number = next(self._ids)
        self.send({"id": number, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == number and "method" not in m, timeout)

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
                if left <= 0 or (self.process.poll() is not None and not self._inbox):
                    raise AssertionError(f"no such message within {timeout}s; got {self._inbox}; "
                                         f"server stderr: {''.join(self.stderr)}")
                self._arrived.wait(min(left, 0.5))

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

    def _read_messages(self) -> None:
        stream = self.process.stdout
        assert stream is not None
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

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.process.stderr:
                self.stderr.append(line.decode("utf-8", "replace"))

    # -- ending ------------------------------------------------------------------------------------------
    def wait(self, timeout: float = TIMEOUT) -> int:
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
