"""``check``'s options, declared once, and the parse of a plain ``check`` command line that needs no click.

An editor, a git hook and CI start ``check`` far more often than any other command, and importing click and
building its commands took 13 ms of every such start: a one-file check took about 50 ms in all, a cold check of
1,000 files about 200. So ``cli.main`` first asks :func:`parse` for the command's parameters, which it reads from the
table below with the standard library alone, and runs ``check`` with them (``check_command.run``); click
builds its ``check`` from the same table (``cli/commands.py``), so both read the same options.

:func:`parse` answers only where click's answer is certain and the same: ``check`` first, then long options
spelt in full (``--name value`` or ``--name=value``), ``-q``, and paths, in any order. Everything else (help,
``--``, short options run together, an unknown or incomplete option, a choice or a path that click would
refuse) is None, and click parses the line as before, with its own messages. ``tests/test_check_options.py``
holds both parses to the same parameters over many command lines.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github")


class PathRule:
    """What click's ``Path`` type checks of an existing path: a regular file, a directory, read and write access
    (the defaults are click's). A plain class, as ``Option``: a ``NamedTuple`` costs a millisecond to define."""

    __slots__ = ("dir_okay", "file_okay", "readable", "writable")

    def __init__(self, file_okay: bool = True, dir_okay: bool = True, readable: bool = True,
                 writable: bool = False) -> None:
        self.file_okay, self.dir_okay, self.readable, self.writable = file_okay, dir_okay, readable, writable


class Option:
    """One option of ``check``: its spellings, its parameter, and what it takes (nothing for a ``flag``, text,
    one of ``choices``, or a path checked as ``path`` says)."""

    __slots__ = ("choices", "default", "flag", "flags", "help", "metavar", "multiple", "name", "path")

    def __init__(self, flags: tuple[str, ...], name: str, help: str, flag: bool = False,
                 multiple: bool = False, choices: tuple[str, ...] | None = None, path: PathRule | None = None,
                 metavar: str | None = None, default: str | None = None) -> None:
        self.flags, self.name, self.help, self.flag, self.multiple = flags, name, help, flag, multiple
        self.choices, self.path, self.metavar, self.default = choices, path, metavar, default

    @property
    def initial(self) -> object:
        """The parameter's value when the option is not given, as click gives it."""
        return False if self.flag else () if self.multiple else self.default


PATHS = PathRule(readable=False)  # the paths to check: an unreadable one is its own PPA000, not a usage error

CHECK_OPTIONS = (
    Option(("--output-format",), "output_format", "How to print findings.", choices=OUTPUT_FORMATS, default="full"),
    Option(("--select",), "select", "Only these rule codes or prefixes (comma-separated).", multiple=True,
           metavar="CODES"),
    Option(("--ignore",), "ignore", "Skip these rule codes or prefixes (comma-separated).", multiple=True,
           metavar="CODES"),
    Option(("--extend-select",), "extend_select",
           "Also these rule codes or prefixes, on top of --select or the config's select.", multiple=True,
           metavar="CODES"),
    Option(("--extend-ignore",), "extend_ignore",
           "Also skip these rule codes or prefixes, on top of the config's ignore.", multiple=True, metavar="CODES"),
    Option(("--exclude",), "exclude", "Also exclude paths matching this gitignore-style pattern.", multiple=True,
           metavar="PATTERN"),
    Option(("--force-exclude",), "force_exclude", "Apply excludes even to files passed explicitly.", flag=True),
    Option(("--config",), "config_path", "Read settings from this TOML file instead of the project's pyproject.toml.",
           path=PathRule(dir_okay=False)),
    Option(("--no-cache",), "no_cache", "Neither read nor write the cache.", flag=True),
    Option(("--cache-dir",), "cache_dir", "Where to keep the cache (default: .ppaux_lint_cache at the project root).",
           path=PathRule(file_okay=False, readable=False)),
    Option(("--exit-zero",), "exit_zero", "Exit 0 even when there are findings.", flag=True),
    Option(("--statistics",), "statistics",
           "Print the number of findings per rule, with a [*] where they are fixable, instead of the findings.",
           flag=True),
    Option(("--output-file",), "output_file",
           "Write the report to PATH instead of standard output (replaced atomically).",
           path=PathRule(dir_okay=False, writable=True), metavar="PATH"),
    Option(("--show-files",), "show_files", "List the files that would be checked, and check nothing.", flag=True),
    Option(("--show-settings",), "show_settings",
           "Print the settings that apply to the first of PATHS, and where each came from; check nothing.", flag=True),
    Option(("--add-noqa",), "add_noqa", "Add a `# noqa: CODE` comment for each finding on the line that silences it.",
           flag=True),
    Option(("--quiet", "-q"), "quiet", "Print findings only, no summary.", flag=True),
    Option(("--fix",), "apply_fix", "Apply fixes (safe ones; unsafe ones too with --unsafe-fixes).", flag=True),
    Option(("--diff",), "show_diff",
           "Print the fixes as a unified diff and write nothing; exit 1 if there would be changes.", flag=True),
    Option(("--unsafe-fixes",), "unsafe_fixes", "Also apply fixes that add behaviour (generated methods).", flag=True),
    Option(("--show-fixes",), "show_fixes", "With --fix, list what was fixed.", flag=True),
    Option(("--stdin-filename",), "stdin_filename",
           "Check standard input as the contents of PATH (pass `-` or no PATHS); with --fix, print the fixed source "
           "and report what remains on stderr.", path=PathRule(dir_okay=False, readable=False), metavar="PATH"),
)

_BY_FLAG = {flag: option for option in CHECK_OPTIONS for flag in option.flags}


def parse(args: Sequence[str]) -> dict[str, object] | None:
    """The parameters click would give ``check`` for ``args`` (``check`` and its arguments), or None where this
    cannot be sure of them: then click parses ``args`` (see the module's docstring)."""
    if not args or args[0] != "check":
        return None
    params: dict[str, object] = {option.name: option.initial for option in CHECK_OPTIONS}
    paths: list[Path] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg[:1] != "-" or arg == "-":  # a path ("-": standard input)
            value = _path(arg, PATHS)
            if value is None:
                return None
            paths.append(value)
            continue
        name, equals, text = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        option = _BY_FLAG.get(name)
        if option is None:  # "--", help, an unknown or abbreviated option, short options run together
            return None
        if option.flag:
            if equals:  # a flag given a value: click's error
                return None
            params[option.name] = True
            continue
        if not equals:
            text = next(rest, None)  # the next argument, whatever it looks like, as click takes it
            if text is None:
                return None
        value = _value(option, text)
        if value is None:
            return None
        params[option.name] = (*params[option.name], value) if option.multiple else value  # type: ignore[misc]
    params["paths"] = tuple(paths)
    return params


def file_named_like_an_option(args: Sequence[str]) -> str | None:
    """The first of ``check``'s arguments (``args``, after ``check``) that click would read as an option, and that
    names a file (or anything) in the working directory; None where none does. pre-commit puts the staged file
    names after the hook's options as they are, so a commit adding ``--exclude=*.py`` would make every later run
    exclude every file and pass: such a name is refused, not guessed at (``--`` ends the options). The value of
    an option spelt ``--name value`` is that option's, whatever it looks like, as click takes it."""
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            return None
        if arg[:1] == "-" and arg != "-" and "\0" not in arg and os.path.lexists(arg):
            return arg
        option = _BY_FLAG.get(arg)
        if option is not None and not option.flag:
            next(rest, None)
    return None


def _value(option: Option, text: str) -> object | None:
    """What click makes of ``text`` given to ``option``; None where it would refuse it."""
    if option.choices is not None:
        return text if text in option.choices else None
    if option.path is not None:
        return _path(text, option.path)
    return text


def _path(text: str, rule: PathRule) -> Path | None:
    """``text`` as click's ``Path(path_type=Path)`` under ``rule`` converts it, and ``cli.commands``'s refusal of
    what names no file; None where either would fail. Like click, only an existing path is checked."""
    if not text or "\0" in text:
        return None
    try:
        status = os.stat(text)
    except OSError:
        return Path(text)
    if ((not rule.file_okay and stat.S_ISREG(status.st_mode)) or (not rule.dir_okay and stat.S_ISDIR(status.st_mode))
            or (rule.readable and not os.access(text, os.R_OK)) or (rule.writable and not os.access(text, os.W_OK))):
        return None
    return Path(text)
