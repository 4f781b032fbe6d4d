"""What the GitHub Actions runner does with a step's output: the workflow commands it acts on.

Written after actions/runner (``ActionCommand.TryParseV2``/``TryParse`` and ``ActionCommandManager``), so that
the tests check ppaux-lint's output against the runner rather than against ppaux-lint's own escaping:

- the runner reads each stream line by line as .NET's ``ReadLine`` splits it: at ``\\r\\n``, ``\\r`` or ``\\n``;
- a line that starts with ``::`` (after leading whitespace) is a command, ``::name k=v,k=v::data``, when
  ``name`` is a command it knows, ignoring case; its data unescapes ``%0D`` ``%0A`` ``%25``, its property
  values also ``%3A`` ``%2C``;
- failing that, the older form ``##[name k=v;k=v]data`` is a command wherever it starts in the line (data
  and values unescape ``%3B`` ``%0D`` ``%0A`` ``%5D`` ``%25``);
- after ``stop-commands`` with data TOKEN, nothing is a command until ``::TOKEN::`` (either form) comes.
"""

from __future__ import annotations

import re

COMMANDS = frozenset({"error", "warning", "notice", "debug", "group", "endgroup", "echo", "add-mask", "add-matcher",
                      "remove-matcher", "stop-commands", "set-output", "set-env", "add-path", "save-state"})
STOP = "stop-commands"
Command = tuple[str, dict[str, str], str]  # name (as written), properties, data


def unescape_data(value: str) -> str:
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(value: str) -> str:
    return unescape_data(value.replace("%3A", ":").replace("%2C", ","))


def _unescape_legacy(value: str) -> str:
    for escaped, raw in (("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


def commands(log: str) -> list[Command]:
    """The commands the runner acts on in ``log``, in order: a ``stop-commands`` and its resuming token
    included, nothing between them."""
    found: list[Command] = []
    token: str | None = None
    for line in re.split(r"\r\n|\r|\n", log):
        known = COMMANDS if token is None else {token.lower()}
        command = _parse(line, known) or _parse_legacy(line, known)
        if command is None:
            continue
        found.append(command)
        if token is not None:
            token = None  # the resuming token
        elif command[0].lower() == STOP:
            token = command[2]
    return found


def _parse(line: str, known: set[str] | frozenset[str]) -> Command | None:
    message = line.lstrip()
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    name, space, rest = message[2:end].partition(" ")
    if name.lower() not in known:
        return None
    properties = {}
    for pair in rest.strip().split(",") if space else ():
        key, equals, value = pair.partition("=")
        if key and equals and value:
            properties[key] = unescape_property(value)
    return name, properties, unescape_data(message[end + 2:])


def _parse_legacy(line: str, known: set[str] | frozenset[str]) -> Command | None:
    start = line.find("##[")
    end = line.find("]", start) if start >= 0 else -1
    if end < 0:
        return None
    name, space, rest = line[start + 3:end].partition(" ")
    if name.lower() not in known:
        return None
    properties = {}
    for pair in rest.split(";") if space else ():
        key, equals, value = pair.partition("=")
        if key and equals and value:
            properties[key] = _unescape_legacy(value)
    return name, properties, _unescape_legacy(line[end + 1:])
