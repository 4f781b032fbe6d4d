#!/usr/bin/env python3
"""How the language server's memory grows with edits (issue 24, item 15): the RSS curve over N didChange.

    python benchmarks/bench_server_memory.py [--edits 10000] [--every 2000] [--sync-every 10]
                                             [--mode both|incremental|full] [--debounce 0.001]

An editor sends a didChange per keystroke for as long as a file stays open, so whatever the server keeps per
edit (an analysis, a timer, a version of the text) adds up over a day's typing. This starts a real
``ppaux-lint server`` on a copy of ``fixtures/sample_plugin``, opens one file that has findings, and sends
``--edits`` changes to it: each rewrites the comment on the file's last line, as an incremental change, as
the whole text (full sync), or alternating. The debounce is set short through ``initializationOptions`` so
that analyses really run, and every ``--sync-every`` edits the driver waits for the diagnostics of the
version it just sent, so the server never merely queues edits. Every ``--every`` edits it prints the
server's VmRSS (from ``/proc/PID/status``) after waiting for the latest version's diagnostics.

What to read: the first rows grow while the analysis's imports and caches warm up; after that the curve
should be flat (within a few MiB of allocator noise). A figure that keeps rising row after row is a leak.
RSS is the allocator's view, so the tests assert the structural bound (what the server retains per edit)
instead, in ``tests/server/test_memory.py``; this script is the end-to-end picture, never part of the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sample_plugin"
DOCUMENT = "src/acme_observers/legacy/outputs.py"  # three findings, so every publish carries diagnostics
TIMEOUT = 60.0


class Server:
    """``ppaux-lint server`` in its own process group, and the newest diagnostics version it published."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "ppaux_lint", "server"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        self.published = 0
        self.replies: dict[int, Any] = {}
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def wait_until(self, done: Any) -> None:
        deadline = time.monotonic() + TIMEOUT
        with self._changed:
            while not done():
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise SystemExit(f"the server stopped answering (exit code {self.process.poll()})")
                self._changed.wait(0.5)

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise SystemExit("no VmRSS in /proc (Linux only)")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (header := stream.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if not header:
                return
            message = json.loads(stream.read(length))
            with self._changed:
                if message.get("method") == "textDocument/publishDiagnostics":
                    self.published = max(self.published, message["params"].get("version") or 0)
                elif "id" in message and "method" not in message:
                    self.replies[message["id"]] = message
                self._changed.notify_all()


def change(address: str, version: int, body: str, comment: str, incremental: bool) -> dict[str, Any]:
    """Rewrite the document's last line (a comment) to ``comment``: as a range edit, or the whole text."""
    lines = body.count("\n")  # the comment's line, after the body's
    edit: dict[str, Any] = {"range": {"start": {"line": lines, "character": 0},
                                      "end": {"line": lines + 1, "character": 0}}, "text": comment}
    return {"method": "textDocument/didChange",
            "params": {"textDocument": {"uri": address, "version": version},
                       "contentChanges": [edit if incremental else {"text": body + comment}]}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=2_000, help="print the RSS every this many edits")
    parser.add_argument("--sync-every", type=int, default=10, help="wait for diagnostics every this many edits")
    parser.add_argument("--mode", choices=("both", "incremental", "full"), default="both")
    parser.add_argument("--debounce", type=float, default=0.001)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="ppaux-server-memory-") as temporary:
        project = Path(temporary) / "project"
        shutil.copytree(FIXTURE, project)
        subprocess.run(["git", "init", "-q", str(project)], check=True)  # the project root stops here
        path = project / DOCUMENT
        address = path.as_uri()
        body = path.read_text(encoding="utf-8")
        server = Server(project)
        try:
            server.send({"id": 0, "method": "initialize", "params": {
                "processId": None, "rootUri": project.as_uri(), "capabilities": {},
                "initializationOptions": {"debounce": args.debounce}}})
            server.wait_until(lambda: 0 in server.replies)
            server.send({"method": "initialized", "params": {}})
            server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": address, "languageId": "python", "version": 1, "text": body + "# edit 0\n"}}})
            server.wait_until(lambda: server.published >= 1)
            print(f"{'edits':>8} {'VmRSS MiB':>10}   (mode {args.mode}, debounce {args.debounce}s, "
                  f"diagnostics awaited every {args.sync_every} edits)")
            print(f"{0:>8} {server.rss_mib():>10.1f}", flush=True)
            started = time.perf_counter()
            for version in range(2, args.edits + 2):
                comment = f"# edit {version}\n"
                incremental = args.mode == "incremental" or (args.mode == "both" and version % 2 == 0)
                server.send(change(address, version, body, comment, incremental))
                edits = version - 1
                if edits % args.sync_every == 0 or edits % args.every == 0:
                    server.wait_until(lambda v=version: server.published >= v)
                if edits % args.every == 0:
                    print(f"{edits:>8} {server.rss_mib():>10.1f}", flush=True)
            print(f"{args.edits} edits in {time.perf_counter() - started:.1f}s", file=sys.stderr)
            server.send({"id": 1, "method": "shutdown"})
            server.wait_until(lambda: 1 in server.replies)
            server.send({"method": "exit"})
            server.process.wait(TIMEOUT)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
