"""The manual's editor examples (docs/editors.md: stdin, ``--fix`` on stdin, the server's diagnostics) give the
output the page shows, so the two cannot drift apart. They run on the bundled sample plugin, from the
repository's root."""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ppaux_lint.cli.main import cli

from .client import LspClient

REPO = Path(__file__).resolve().parents[2]


def section() -> str:
    return (REPO / "docs" / "editors.md").read_text(encoding="utf-8")


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", section(), re.DOTALL)


DRAFT = blocks("python")[0]


def check(command: str) -> tuple[str, str]:
    """A command line of the page (``$ ppaux-lint check ... - < draft.py``), run with the page's buffer."""
    args = list(itertools.takewhile(lambda word: word not in ("<", ">", "|"),
                                    shlex.split(command.partition("ppaux-lint ")[2])))
    result = CliRunner().invoke(cli, [*args[:1], "--no-cache", *args[1:]], input=DRAFT.encode("utf-8"))
    return result.stdout, result.stderr


def test_the_stdin_example(monkeypatch):
    monkeypatch.chdir(REPO)
    command, _, shown = blocks("console")[0].partition("\n")
    stdout, _ = check(command)
    assert stdout == shown


def test_the_fix_example(monkeypatch):
    monkeypatch.chdir(REPO)
    lines = blocks("console")[1].splitlines()
    stdout, stderr = check(lines[0])
    assert stderr == lines[1] + "\n"
    assert stdout == DRAFT.replace("def to_pp_tensor(self):", "def to_pp_tensors(self):")
    assert lines[2:] == ["$ diff draft.py fixed.py", "18c18", "<     def to_pp_tensor(self):", "---",
                         ">     def to_pp_tensors(self):"]


@pytest.fixture
def server():
    client = LspClient(REPO)
    yield client
    client.kill()
    assert client.leftovers() == []


def test_the_servers_diagnostics(server):
    shown = json.loads(blocks("json")[0])["params"]
    relative = shown["uri"].partition("/fixtures/")[2]
    address = (REPO / "fixtures" / relative).as_uri()  # the page shows the checkout it was captured in
    server.request("initialize", {"processId": None, "rootUri": REPO.as_uri(), "capabilities": {}})
    server.notify("initialized", {})
    server.notify("textDocument/didOpen", {"textDocument": {"uri": address, "languageId": "python", "version": 1,
                                                            "text": DRAFT}})
    assert server.diagnostics(address) == shown["diagnostics"]
