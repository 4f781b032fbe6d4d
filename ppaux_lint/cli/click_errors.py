"""Our errors as click's own, in the commands click runs.

``ExitError`` is not click's exception, since ``check`` runs without importing click (``check_options.py``).
Where click runs a command, one leaving it becomes :class:`ClickError`, so that a program that runs the
commands through click (``CliRunner``, click's standalone mode) still sees one line and the exit code, as
``cli.main`` prints them.
"""

from __future__ import annotations

import click

from ppaux_lint.support.command import PREFIX, ExitError


class ClickError(click.ClickException):
    """An error of ours, raised from a command, as click's own: its message on one line, its exit code."""

    def __init__(self, error: ExitError) -> None:
        super().__init__(error.message)
        self.exit_code = error.exit_code

    def show(self, file=None) -> None:
        click.echo(f"{PREFIX}{self.format_message()}", err=True)


class Command(click.Command):
    """A command whose errors of ours leave it as :class:`ClickError`."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ExitError as error:
            raise ClickError(error) from None


class Group(click.Group):
    """A group whose commands are :class:`Command`."""

    command_class = Command
