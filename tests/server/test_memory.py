"""What the server holds does not grow with edits (issue 24: 54 -> 85 MiB over 10,000 didChange).

An editor sends a didChange per keystroke for as long as a file is open, so anything the server keeps per
message adds up over a day. RSS is the allocator's view and moves by itself, so these tests count objects
instead. The server runs in this process (on pipes, through its real stdio loop and frame reader, under the
command line's collector setting, as ``ppaux-lint server`` runs), every edit is analysed and published, and
after a warm-up and again after many more edits the tests count what an edit could leave behind: the
objects reachable from the server object (its protocol, workspace, publisher, debouncer, and through their
timers the event loop), and the objects in reference cycles that nothing has collected yet.
``benchmarks/bench_server_memory.py`` prints the RSS curve of a real server process.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import textwrap
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from lintkit import IMPORT_AUX, make_project

from ppaux_lint.server.app import PpauxLanguageServer
from ppaux_lint.support import collector

from .client import TIMEOUT, Connection

LEAF = IMPORT_AUX + textwrap.dedent("""

    class LeafOutput(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self
    """)  # PPA001, so every publish carries a diagnostic
WARM_UP, EDITS = 40, 400
_NOT_STATE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.CodeType)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[PpauxLanguageServer, Connection]]:
    """A server on a pair of pipes, its loop on a thread of this process; ended by closing its input."""
    monkeypatch.chdir(make_project(tmp_path / "proj", {"pkg/leaf.py": LEAF}))
    server = PpauxLanguageServer()
    into_server, from_client = os.pipe()
    to_client, out_of_server = os.pipe()
    server_in, server_out = os.fdopen(into_server, "rb"), os.fdopen(out_of_server, "wb")
    client = Connection(os.fdopen(from_client, "wb"), os.fdopen(to_client, "rb"))
    loop = threading.Thread(target=server.start_io, args=(server_in, server_out))
    with collector.tuned():  # the command line's setting, under which the server runs
        loop.start()
        try:
            yield server, client
        finally:
            with contextlib.suppress(OSError):
                client.close_input()
            loop.join(TIMEOUT)
    ended = not loop.is_alive()
    for stream in (server_out, client.from_server, server_in):  # the client's reader sees the end first
        with contextlib.suppress(OSError):
            stream.close()
    assert ended, "the server did not stop at the end of its input"

def retained(root: object) -> int:
    """How many objects ``root`` reaches: its state, not the code, classes and modules it refers to."""
    modules = {id(vars(module)) for module in list(sys.modules.values()) if module is not None}
    seen: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or id(item) in modules or isinstance(item, _NOT_STATE):
            continue
        seen.add(id(item))
        stack.extend(gc.get_referents(item))
    return len(seen)


def edit(client: Connection, address: str, version: int, full: bool) -> None:
    """Rewrite the comment on the last line, as the whole text or as a range, and wait until the analysis
    of that version is published (so every edit is analysed, none merely queued)."""
    comment = f"# edit {version}\n"
    change = {"text": LEAF + comment} if full else {
        "range": {"start": {"line": LEAF.count("\n"), "character": 0},
                  "end": {"line": LEAF.count("\n") + 1, "character": 0}}, "text": comment}
    client.notify("textDocument/didChange", {"textDocument": {"uri": address, "version": version},
                                             "contentChanges": [change]})
    client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["version"] == version and m["params"]["diagnostics"])


def open_document(client: Connection, root: Path) -> str:
    """Initialize (analyses right after each edit) and open ``pkg/leaf.py``; its URI."""
    client.initialize(root, debounce=0)
    address = (root / "proj" / "pkg" / "leaf.py").as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": address, "languageId": "python", "version": 1,
                                                            "text": LEAF + "# edit 1\n"}})
    return address


def test_edits_leave_nothing_behind(served, tmp_path):
    """pygls kept the finished future of every notification (issue 24's 54 -> 85 MiB)."""
    server, client = served
    address = open_document(client, tmp_path)
    counts = []
    for first, end in ((2, 2 + WARM_UP), (2 + WARM_UP, 2 + WARM_UP + EDITS)):
        for version in range(first, end):
            edit(client, address, version, full=version % 2 == 0)
        counts.append(retained(server))
    assert counts[1] - counts[0] < EDITS // 10, f"{counts[1] - counts[0]} more objects after {EDITS} edits"
    assert client.request("shutdown")["result"] is None


def test_the_cycles_analyses_leave_are_collected_while_serving(served, tmp_path):
    """What an analysis leaves in reference cycles is freed only by the collector, which the command line
    (the server's parent) sets to run rarely: the server must collect as often as Python does, or every edit
    adds a few objects that nothing frees for hundreds of thousands of edits.

    How much a collector at Python's usual rate leaves pending depends on the interpreter: the cycles that
    reach the oldest generation wait for its rarer collections, a fraction of the whole (about a twelfth of
    the edits' cycles on 3.11, a fifth on 3.14, whose incremental collector scans the old generation a slice
    at a time). So the bound is relative to what the same edits leave when nothing collects, measured here
    (3 objects an edit on 3.11, 6 on 3.14): collecting as Python does frees at least half of it, and a
    server that never collects frees none."""
    _, client = served
    address = open_document(client, tmp_path)
    for version in range(2, 2 + WARM_UP):
        edit(client, address, version, full=False)
    gc.collect()
    gc.disable()
    try:
        for version in range(2 + WARM_UP, 2 + 2 * WARM_UP):
            edit(client, address, version, full=False)
    finally:
        gc.enable()
    per_edit = gc.collect() / WARM_UP  # what an edit leaves when nothing collects
    assert per_edit > 0, "the edits made no cycles: this test would measure nothing"
    for version in range(2 + 2 * WARM_UP, 2 + 2 * WARM_UP + EDITS):
        edit(client, address, version, full=False)
    uncollected = gc.collect()
    assert uncollected < per_edit * EDITS / 2, f"{uncollected} objects in cycles left by {EDITS} edits"
