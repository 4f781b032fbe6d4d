"""``ppaux-lint server`` end to end: a real process, JSON-RPC over its pipes, as an editor drives it.

Every test starts the server with ``python -m ppaux_lint server``, talks to it with the hand-framed client
of ``client.py`` and kills it in teardown whatever happened. The debounce is shortened through
``initializationOptions``, as an editor would configure it.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from lintkit import IMPORT_AUX, SCORE_OBSERVERS, SCORE_OUTPUTS, locate, make_project

from .client import LspClient

BASE = IMPORT_AUX + textwrap.dedent("""

    class Base(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self
    """)
LEAF = textwrap.dedent("""\
    from dataclasses import dataclass

    import torch

    from pkg.base import Base


    @dataclass
    class LeafOutput(Base):
        scores: torch.Tensor
    """)  # PPA001, with an unsafe fix: send `scores`
OUTPUTS, OBSERVERS = SCORE_OUTPUTS, SCORE_OBSERVERS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", {"pkg/base.py": BASE, "pkg/outputs.py": OUTPUTS,
                                            "pkg/observers.py": OBSERVERS})


@pytest.fixture
def start(root: Path) -> Iterator[Callable[[], LspClient]]:
    """Start a server, initialized; every server started is killed at the end of the test."""
    started: list[LspClient] = []

    def launch() -> LspClient:
        client = LspClient(root)
        started.append(client)
        capabilities = client.initialize(root, debounce=0.05)
        assert capabilities["codeActionProvider"] == {"codeActionKinds": ["quickfix"]}
        assert capabilities["textDocumentSync"]["change"] == 2  # incremental
        return client

    yield launch
    for client in started:
        client.kill()
    assert [client.leftovers() for client in started] == [[] for _ in started]


def uri(root: Path, relative: str) -> str:
    return (root / relative).as_uri()


def open_document(client: LspClient, address: str, text: str) -> None:
    client.notify("textDocument/didOpen", {"textDocument": {"uri": address, "languageId": "python", "version": 1,
                                                            "text": text}})


def change(client: LspClient, address: str, version: int, text: str) -> None:
    client.notify("textDocument/didChange", {"textDocument": {"uri": address, "version": version},
                                             "contentChanges": [{"text": text}]})


def apply(text: str, edits: list[dict]) -> str:
    """A client applying TextEdits (the tests' texts are ASCII, so UTF-16 columns are characters)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(position: dict) -> int:
        return starts[min(position["line"], len(starts) - 1)] + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = text[:offset(edit["range"]["start"])] + edit["newText"] + text[offset(edit["range"]["end"]):]
    return text


def lsp_range(text: str, needle: str) -> dict:
    line, column = locate(text, needle)
    return {"start": {"line": line - 1, "character": column - 1},
            "end": {"line": line - 1, "character": column - 1 + len(needle)}}


def codes(diagnostics: list[dict]) -> list[str]:
    return [d["code"] for d in diagnostics]


def test_open_change_fix_and_exit(start, root):
    """The issue's scenario: didOpen -> diagnostics, a change that fixes it -> cleared, code actions whose
    edits really fix, and a clean shutdown/exit. The document is a new file that exists only in the editor."""
    client = start()
    leaf = uri(root, "pkg/leaf.py")
    open_document(client, leaf, LEAF)
    (found,) = client.diagnostics(leaf)
    assert found["code"] == "PPA001" and found["source"] == "ppaux-lint" and found["severity"] == 1
    assert found["codeDescription"]["href"].endswith("/ppaux_lint/rules/PPA001.md")
    assert found["range"] == lsp_range(LEAF, "LeafOutput")
    assert "pkg.leaf.LeafOutput" in found["message"] and "via pkg.base.Base" in found["message"]

    reply = client.request("textDocument/codeAction", {"textDocument": {"uri": leaf}, "range": found["range"],
                                                       "context": {"diagnostics": [found]}})
    actions = {action["title"]: action for action in reply["result"]}
    fix = actions["(unsafe) Add `to_pp_tensors` returning `scores`"]
    assert fix["kind"] == "quickfix" and not fix["isPreferred"] and fix["diagnostics"][0]["code"] == "PPA001"
    fixed = apply(LEAF, fix["edit"]["changes"][leaf])
    assert fixed.endswith('    def to_pp_tensors(self):\n        return {"scores": self.scores}\n')

    change(client, leaf, 2, fixed)  # the user applied the fix: the diagnostic goes away
    assert client.diagnostics(leaf, lambda d: not d) == []
    # Undone with an incremental change: the method's three lines deleted again.
    start_line = fixed.splitlines().index("    def to_pp_tensors(self):") - 1
    client.notify("textDocument/didChange", {"textDocument": {"uri": leaf, "version": 3}, "contentChanges": [
        {"range": {"start": {"line": start_line, "character": 0}, "end": {"line": start_line + 3, "character": 0}},
         "text": ""}]})
    assert codes(client.diagnostics(leaf, bool)) == ["PPA001"]

    silence = actions["Disable PPA001 for this line"]
    silenced = apply(LEAF, silence["edit"]["changes"][leaf])
    assert "class LeafOutput(Base):  # noqa: PPA001\n" in silenced
    change(client, leaf, 4, silenced)
    assert client.diagnostics(leaf, lambda d: not d) == []

    reply = client.request("shutdown")
    assert reply["result"] is None and "error" not in reply
    client.notify("exit")
    assert client.wait(timeout=10) == 0
    assert not (root / "pkg" / "leaf.py").exists()  # nothing was written


def test_a_safe_fix_is_the_preferred_quick_fix(start, root):
    client = start()
    observers = uri(root, "pkg/observers.py")
    near_miss = OBSERVERS.replace("def from_pp_tensors", "def from_pp_tensor")  # PPA017: a rename
    open_document(client, observers, near_miss)
    found = [d for d in client.diagnostics(observers, bool) if d["code"] == "PPA017"]
    reply = client.request("textDocument/codeAction", {"textDocument": {"uri": observers},
                                                       "range": found[0]["range"], "context": {"diagnostics": []}})
    (fix,) = [a for a in reply["result"] if a["title"].startswith("Rename")]
    assert fix["isPreferred"] is True
    assert apply(near_miss, fix["edit"]["changes"][observers]) == OBSERVERS


def test_a_cross_file_pair_updates_when_either_file_changes(start, root):
    """observers.py is edited to read a key outputs.py never sends: both ends get a PPA015 that names the
    other, outputs.py's although it is not open; fixing the sender clears both."""
    client = start()
    observers, outputs = uri(root, "pkg/observers.py"), uri(root, "pkg/outputs.py")
    open_document(client, observers, OBSERVERS)
    assert client.diagnostics(observers) == []
    change(client, observers, 2, OBSERVERS.replace('tensors["ranks"]', 'tensors["rank"]'))
    (receiver,) = client.diagnostics(observers, bool)
    (sender,) = client.diagnostics(outputs, bool)
    assert receiver["code"] == sender["code"] == "PPA015"
    assert "'rank'" in receiver["message"] and "KeyError" in receiver["message"]
    assert "'ranks'" in sender["message"]
    assert [r["location"]["uri"] for r in receiver["relatedInformation"]] == [outputs]
    assert [r["location"]["uri"] for r in sender["relatedInformation"]] == [observers]

    open_document(client, outputs, OUTPUTS)
    change(client, outputs, 2, OUTPUTS.replace('"ranks": self.ranks', '"rank": self.ranks'))  # the other end
    assert client.diagnostics(observers, lambda d: not d) == []
    assert client.diagnostics(outputs, lambda d: not d) == []


def test_save_reanalyses_and_close_clears(start, root):
    client = start()
    observers, outputs = uri(root, "pkg/observers.py"), uri(root, "pkg/outputs.py")
    open_document(client, observers, OBSERVERS)
    assert client.diagnostics(observers) == []
    (root / "pkg" / "outputs.py").write_text(OUTPUTS.replace('"ranks": self.ranks', '"rank": self.ranks'),
                                             encoding="utf-8")  # changed behind the editor's back
    client.notify("textDocument/didSave", {"textDocument": {"uri": observers}})
    assert codes(client.diagnostics(observers, bool)) == ["PPA015"]
    assert codes(client.diagnostics(outputs, bool)) == ["PPA015"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": observers}})
    assert client.diagnostics(observers, lambda d: not d) == []
    assert client.diagnostics(outputs, lambda d: not d) == []  # it was shown only through observers.py


def test_malformed_messages_are_logged_and_answered(start, root):
    client = start()
    client.send_raw(b"{this is not json")
    client.send_raw(b"[1, 2]")
    unknown = client.request("ppaux/noSuchMethod", {})
    assert unknown["error"]["code"] == -32601
    invalid = client.request("textDocument/codeAction", {"textDocument": 5})
    assert invalid["error"]["code"] == -32602
    client.send_raw(json.dumps({"id": 77, "method": "shutdown"}).encode())  # no "jsonrpc": not a message
    assert client.wait_for(lambda m: m.get("id") == 77)["error"]["code"] == -32600

    leaf = uri(root, "pkg/leaf.py")  # and the server carries on
    open_document(client, leaf, LEAF)
    assert codes(client.diagnostics(leaf, bool)) == ["PPA001"]
    assert "result" in client.request("shutdown")
    client.notify("exit")
    assert client.wait(timeout=10) == 0
    log = "".join(client.stderr)
    assert "Unable to handle message" in log and "not a JSON-RPC message" in log


def test_requests_after_shutdown_are_refused_and_exit_exits_0(start, root):
    """LSP: after ``shutdown`` every request but ``exit`` is answered with InvalidRequest, notifications are
    dropped, and ``exit`` exits 0. pygls never answered them (the client waited forever)."""
    client = start()
    leaf = uri(root, "pkg/leaf.py")
    assert "result" in client.request("shutdown")
    for method, params in [
        ("shutdown", None),
        ("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}),
        ("textDocument/codeAction", {"textDocument": {"uri": leaf}, "context": {"diagnostics": []},
                                     "range": {"start": {"line": 0, "character": 0},
                                               "end": {"line": 0, "character": 0}}}),
        ("textDocument/codeAction", {"textDocument": 5}),  # bad params: still refused as after shutdown
        ("ppaux/noSuchMethod", {}),
    ]:
        error = client.request(method, params, timeout=10)["error"]
        assert error["code"] == -32600 and "shut down" in error["message"], (method, error)
    open_document(client, leaf, LEAF)  # a notification: dropped, never analysed
    assert client.request("shutdown", timeout=10)["error"]["code"] == -32600  # answered after the open
    client.notify("exit")
    assert client.wait(timeout=10) == 0
    assert not [m for m in client.received() if m.get("method") == "textDocument/publishDiagnostics"]


def test_exit_without_shutdown_exits_1(start):
    client = start()
    client.notify("exit")
    assert client.wait(timeout=10) == 1


def test_a_broken_config_is_shown_and_the_server_carries_on(start, root):
    pyproject = root / "pyproject.toml"
    good = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(good + "\n[tool.ppaux-lint]\nselekt = []\n", encoding="utf-8")
    client = start()
    leaf = uri(root, "pkg/leaf.py")
    open_document(client, leaf, LEAF)
    shown = client.wait_for(lambda m: m.get("method") == "window/showMessage")["params"]
    assert shown["type"] == 1 and "selekt" in shown["message"] and "pyproject.toml" in shown["message"]
    pyproject.write_text(good, encoding="utf-8")
    client.notify("textDocument/didSave", {"textDocument": {"uri": leaf}})
    assert codes(client.diagnostics(leaf, bool)) == ["PPA001"]


def test_a_broken_config_in_another_repository_leaves_this_ones_documents_diagnosed(start, root, tmp_path):
    """A file opened from another repository whose ppaux-lint table is broken (a hostile one, a colleague's) made
    every analysis a config error: the message was shown and no open document got diagnostics any more. Now the
    documents its config keeps out are left out, the message is shown, and the others are diagnosed."""
    other = make_project(tmp_path / "other", {"pkg/base.py": BASE})
    (other / "pyproject.toml").write_text("[tool.ppaux-lint]\nselekt = []\n", encoding="utf-8")
    client = start()
    open_document(client, uri(other, "pkg/leaf.py"), LEAF)
    shown = client.wait_for(lambda m: m.get("method") == "window/showMessage")["params"]
    assert "selekt" in shown["message"]
    leaf = uri(root, "pkg/leaf.py")
    open_document(client, leaf, LEAF)
    assert codes(client.diagnostics(leaf, bool)) == ["PPA001"]
    assert client.diagnostics(uri(other, "pkg/leaf.py")) == []


@pytest.mark.parametrize("poison", ["surrogate", "nul-in-uri"])
def test_a_document_no_file_can_be_leaves_the_others_diagnosed(start, root, poison):
    """A buffer holding a lone surrogate (valid JSON, no valid UTF-8) or a URI with ``%00`` (no path can hold it)
    stopped every later analysis; now the buffer is PPA000 (or no file), and the other documents get theirs."""
    client = start()
    if poison == "surrogate":
        open_document(client, uri(root, "pkg/odd.py"), "x = 1  # \ud800\n")
    else:
        open_document(client, uri(root, "pkg/odd.py").replace("odd.py", "odd%00.py"), "x = 1\n")
    leaf = uri(root, "pkg/leaf.py")
    open_document(client, leaf, LEAF)
    assert codes(client.diagnostics(leaf, bool)) == ["PPA001"]
