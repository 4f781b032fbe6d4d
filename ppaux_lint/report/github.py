"""GitHub Actions workflow commands: one ``::error`` annotation per finding.

``::error file=<path>,line=<l>,col=<c>,endLine=<l>,endColumn=<c>,title=<CODE name>::<CODE message>``

GitHub unescapes ``%25`` ``%0D`` ``%0A`` in the message, and additionally
``%3A`` ``%2C`` in property values (where ``:`` and ``,`` would end the value).
Paths are relative to the working directory, as in the other formats; a
workflow runs from the repository root, which is where GitHub resolves them.

The runner reads every line of both streams for commands: one that starts with
``::`` (after spaces), or, failing that, holds the older ``##[name]`` anywhere;
it splits lines at ``\r`` as well as ``\n``. A line whose command is ours, with
the text escaped, is the only kind that no text can turn into another command,
so whatever else ppaux-lint says in this format is a command too
(:func:`command`), and text printed as it is (a diff) is :func:`fenced`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TextIO

from ppaux_lint.facts.findings import Finding
from ppaux_lint.report.paths import display_path, inert
from ppaux_lint.rules import by_code

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice", "note": "notice"}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding) -> str:
    rule = by_code(f.code)
    title = f"{f.code} {rule.name}" if rule is not None else f.code
    properties = [
        ("file", inert(display_path(f.path))),  # a link to the file, unless its name holds what a terminal acts on
        ("line", str(f.span.line)),
        ("col", str(f.span.column)),
        ("endLine", str(max(f.span.end_line, f.span.line))),
        ("endColumn", str(f.span.end_column)),
        ("title", title),
    ]
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{_COMMANDS.get(f.severity, 'error')} {props}::{escape_data(inert(f'{f.code} {f.message}'))}"


def render(findings: Sequence[Finding], out: TextIO) -> None:
    for f in findings:
        out.write(annotation(f) + "\n")


def command(name: str, text: str) -> str:
    """``text`` as the data of the workflow command ``name`` (``warning``, ``error``): one line, whatever it
    holds, and nothing in it that a terminal acts on (``inert``), as in an annotation."""
    return f"::{name}::{escape_data(inert(text))}"


def fenced(text: str) -> str:
    """``text`` as it is, between ``stop-commands`` and a token nobody can guess: the runner acts on nothing
    in between, whatever the text holds."""
    token = secrets.token_hex(16)
    end = "" if text.endswith(("\n", "\r")) else "\n"  # the runner ends a line at either
    return f"::stop-commands::{token}\n{text}{end}::{token}::\n"
