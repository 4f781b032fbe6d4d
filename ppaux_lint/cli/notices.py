"""ppaux-lint's own lines on standard error: its warnings, and the one line of an error.

Each is ``ppaux-lint: <kind>: <text>``, and the text can hold anything a checked repository holds (a file name,
a value from its config) or a user typed. Under ``--output-format github`` the Actions runner reads standard
error for workflow commands as it reads standard output, so a file name holding ``\\n::stop-commands::x``
would silence every annotation after it. There each line is written as a command of ours, ``::warning::`` or
``::error::``, with the line as its escaped data (:func:`ppaux_lint.report.github.command`); the runner shows
it as a warning or an error, and nothing in it can end that command or start another.

Whether a run is in that format is known for certain only once ``check`` has its options, and an error can come
before (an unknown option); so ``main`` guesses from the arguments first (:func:`asks_for_github`), and ``check``
settles it.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence

GITHUB = "github"  # the key of the run's state (click's ``obj``) that says the format is github


def say(state: dict | None, kind: str, text: str) -> None:
    """One line of ``kind`` (``warning`` or ``error``) on standard error, as the run's format needs it."""
    line = f"ppaux-lint: {kind}: {text}"
    if (state or {}).get(GITHUB):
        from ppaux_lint.report.github import command

        line = command(kind, line)
    else:
        from ppaux_lint.report.paths import printable

        line = printable(line)
    echo(line, err=True)


def echo(line: str, err: bool = False) -> None:
    """``line`` on standard output (error, with ``err``), flushed at once, as click's ``echo`` writes a message:
    ``check`` runs without importing click (``cli/check_options.py``). Nothing when the stream is gone."""
    stream = sys.stderr if err else sys.stdout
    if stream is not None:
        stream.write(line + "\n")
        stream.flush()


def asks_for_github(args: Sequence[str]) -> bool:
    """Whether the arguments ask for ``--output-format github``, before click has parsed them."""
    return "--output-format=github" in args or ("--output-format", "github") in itertools.pairwise(args)
