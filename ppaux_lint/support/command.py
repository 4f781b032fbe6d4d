"""How every command turns failures into exit codes and one-line messages.

Exit codes (the contract CI scripts rely on): 0 clean, 1 findings (or, for ``verify``, failures), 2 usage,
configuration or internal errors and standard output that cannot be written, 130 interrupted (Ctrl-C, 128 +
SIGINT, as shells, ruff and pytest say it).
A :class:`~ppaux_lint.support.errors.UsageError` is the user's to fix and prints as it is; any other exception is a
bug, printed as "internal error" with the traceback under ``--debug``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TypeVar

from ppaux_lint.support.errors import UsageError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
# What each code means, as ``--help`` lists it (``exit_codes_help``): the one statement of the policy.
EXIT_CODES = (
    (EXIT_CLEAN, "no findings (verify: no failure)"),
    (EXIT_FINDINGS, "findings (verify: a failure)"),
    (EXIT_ERROR, "a usage, configuration or internal error, or output that cannot be written"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)
PREFIX = "ppaux-lint: error: "

T = TypeVar("T")


class ExitError(Exception):
    """A one-line error with exit code 2, printed without a traceback (by ``cli.main``, as click's own usage
    errors are). Not click's exception: ``check`` runs without importing click (``cli/check_options.py``)."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def format_message(self) -> str:
        return self.message


class OutputFailed(ExitError):
    """Standard output could not be written (closed, a broken pipe, a full disk): one line, exit code 2, as
    ``support.streams`` arranges. Not an OSError, which click would turn into a silent exit 1 for a broken pipe."""

    def __init__(self, error: OSError) -> None:
        super().__init__(f"cannot write to standard output: {error.strerror or error}")


class Interrupted(ExitError):
    """Ctrl-C: one line, exit code 130."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")


def exit_codes_help() -> str:
    """The epilog of ``--help``: click keeps a paragraph that starts with ``\\b`` as it is written."""
    return "\b\nExit codes:\n" + "\n".join(f"  {code:<3}  {meaning}" for code, meaning in EXIT_CODES)


def debugging(state: Mapping[str, object] | None) -> bool:
    """Whether the run's state (click's ``obj``: ``cli.main`` makes it) asks for tracebacks (``--debug``)."""
    return bool((state or {}).get("debug"))


def guarded(state: Mapping[str, object] | None, action: Callable[[], T]) -> T:
    """Run ``action``, turning usage errors and bugs into one-line errors with exit code 2, interrupts into
    one line with exit code 130; ``state``: the run's, which says whether to print tracebacks."""
    try:
        return action()
    except ExitError:  # one line already (standard output that failed, say)
        raise
    except UsageError as exc:
        raise ExitError(str(exc)) from None
    except KeyboardInterrupt:
        raise Interrupted from None
    except Exception as exc:  # the promise is "never a traceback"
        if is_click_error(exc):  # one line already (click's own)
            raise
        if debugging(state):
            import traceback  # only under --debug: every run imports this module

            traceback.print_exc()
        hint = "" if debugging(state) else " (run with --debug for the traceback)"
        raise ExitError(f"internal error: {type(exc).__name__}: {exc}{hint}") from None


def is_click_error(error: BaseException) -> bool:
    """Whether ``error`` is one of click's own (a usage error it found): only where click was imported can one
    have been raised, so this never imports it."""
    click = sys.modules.get("click")
    return click is not None and isinstance(error, click.ClickException)


def one_line(error: Exception) -> str:
    """An error of ours, or one of click's own usage errors (an unknown option, a bad choice), as one line."""
    message = error.format_message()  # type: ignore[attr-defined]  # both kinds have it
    context = getattr(error, "ctx", None)  # click's UsageError: the command whose help to point at
    if context is not None and not isinstance(error, ExitError):
        message += f" (see `{context.command_path} --help`)"
    return " ".join(message.split())
