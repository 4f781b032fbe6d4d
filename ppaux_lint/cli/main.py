"""The command line's way in: ``entry`` (the console script's), ``main`` (argv in, an exit code out), and the
policy shared by every command for errors and exit codes (:mod:`ppaux_lint.support.command`).

An editor or a git hook starts ``check`` on a file or two many times a day, so what a run imports is what
it needs: a ``check`` whose options ``check_options.parse`` can read runs without click (``check_command``),
the other commands through click (``commands``); the rule catalogue, the renderer of the chosen format, rich
(only for findings to frame) and the fix machinery (only for findings to plan fixes for) are imported where
they are used, and ``verify``'s module, which names the runtime's defaults, only when that command is asked for
(or listed in help). ``tests/test_laziness.py`` keeps it so.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from ppaux_lint.cli import notices
from ppaux_lint.cli.check_command import AT_ONCE, OWN_PROCESS, run
from ppaux_lint.cli.check_options import file_named_like_an_option, parse
from ppaux_lint.support import collector, interrupts, records, streams
from ppaux_lint.support.command import (
    EXIT_CLEAN,
    EXIT_ERROR,
    ExitError,
    Interrupted,
    OutputFailed,
    is_click_error,
    one_line,
)


def entry() -> None:
    """The console script's and ``python -m ppaux_lint``'s way in: ``main``, then, after ``check``, the end of the
    process without the interpreter's teardown, which frees every object one by one: 9 ms of a 70 ms check of one
    file, 15 ms of a cold check of 1,000 files (mypy ends the same way). ``check`` has written and closed all it
    writes, its workers are gone and no thread is left. In a process of its own, ``check`` collects no garbage
    either (``collector.off_until_exit``). Other commands (``verify`` and torch's own exit hooks, the server) end
    as Python does; so does ``main`` called from a program or a test."""
    state: dict[str, object] = {OWN_PROCESS: True}
    try:
        main(state=state)
    except SystemExit as done:
        if not state.get(AT_ONCE) or _observed():
            raise
        code = done.code if isinstance(done.code, int) else EXIT_CLEAN if done.code is None else EXIT_ERROR
        records.save()  # the dataclasses' code this run compiled, which an exit handler would have kept
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        os._exit(code)


def _observed() -> bool:
    """Whether a profiler, a tracer or a coverage tool watches this process: they write what they saw at the
    interpreter's exit (``python -m cProfile -m ppaux_lint``), so it must come."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12: coverage's way in
    return monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6))


def main(argv: Sequence[str] | None = None, state: dict[str, object] | None = None) -> None:
    streams.prepare()  # closed or failing standard streams: one line and exit 2 (support/streams.py)
    args = list(sys.argv[1:] if argv is None else argv)
    state = {} if state is None else state
    state[notices.GITHUB] = notices.asks_for_github(args)  # until ``check`` knows (notices.py)
    with interrupts.watched() as watch:
        try:
            with collector.tuned():
                code = _run(args, state)
            sys.stdout.flush()  # what is still buffered fails here, as one line, and not at the interpreter's exit
            lost = streams.lost()
            if lost is not None:  # a failed write that something caught and went on from (click's probe)
                raise lost
        except KeyboardInterrupt:  # Ctrl-C while click parses, or before it, or in a check run without click
            code = _interrupted(state)
        except BaseException as exc:
            if isinstance(exc, SystemExit):
                raise
            code = _failed(state, exc)
        if watch.swallowed and code != Interrupted.exit_code:  # a Ctrl-C that Python swallowed (interrupts.py)
            code = _interrupted(state)
    with contextlib.suppress(OutputFailed, OSError, ValueError):  # after an error, not at exit: it said enough
        sys.stdout.flush()
    sys.exit(code if isinstance(code, int) else EXIT_CLEAN)


def _run(args: list[str], state: dict[str, object]) -> object:
    """The command ``args`` ask for: a ``check`` whose command line ``check_options.parse`` reads runs without
    click (importing it and building its commands took 13 ms of a one-file check's 50); the rest through click."""
    command = next((at for at, arg in enumerate(args) if arg[:1] != "-"), len(args))  # after ``--debug``, say
    if args[command:command + 1] == ["check"]:
        ambiguous = file_named_like_an_option(args[command + 1:])
        if ambiguous is not None:
            raise ExitError(f"{ambiguous!r} is an option, and a file here is named so: it is read as neither; "
                            f"pass the file as './{ambiguous}' or after '--'")
    params = parse(args)
    if params is not None:
        state["debug"] = False  # what click's group would say: ``--debug`` comes before the command
        return run(state, **params)
    from ppaux_lint.cli.commands import cli

    return cli.main(args=args, prog_name="ppaux-lint", standalone_mode=False, obj=state)


def _failed(state: dict[str, object], error: BaseException) -> int:
    """The exit code of a run that raised ``error``, said as one line on standard error."""
    if isinstance(error, ExitError) or is_click_error(error):  # ours, and click's own usage errors
        notices.say(state, "error", one_line(error))  # type: ignore[arg-type]
        return error.exit_code  # type: ignore[attr-defined]
    if "click" in sys.modules and isinstance(error, sys.modules["click"].exceptions.Abort):  # Ctrl-C in click
        return _interrupted(state)
    notices.say(state, "error", f"internal error: {type(error).__name__}: {error}")  # "never a traceback"
    return EXIT_ERROR


def _interrupted(state: dict[str, object]) -> int:
    """The exit code of an interrupted run, said as one line."""
    notices.say(state, "error", "interrupted")
    return Interrupted.exit_code


def __getattr__(name: str) -> Any:
    """``cli``, click's group of every command, from ``commands`` on first use: a ``check`` needs none of it."""
    if name != "cli":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ppaux_lint.cli.commands import cli

    return cli
