"""The commands as click declares them: their options, their help, and what each runs.

``check``'s options come from ``check_options.CHECK_OPTIONS`` and its body from ``check_command.run``, which
``cli.main`` also runs without click for a command line it can read; the other commands live here whole.
Errors of ours leave them as click's own (``click_errors.py``).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import click

from ppaux_lint import __version__
from ppaux_lint.cli.check_command import progress, run, warn
from ppaux_lint.cli.check_options import CHECK_OPTIONS, PATHS, Option, PathRule
from ppaux_lint.cli.click_errors import ClickError, Group
from ppaux_lint.support.command import EXIT_ERROR, ExitError, Interrupted, exit_codes_help, guarded


class _Path(click.Path):
    """click's Path, refusing what names no file: ``""`` (which ``Path`` reads as the current directory, so that
    ``--cache-dir "$UNSET"`` put the cache's ``.gitignore`` of ``*`` into the project) and a NUL byte. Paths to
    check are never refused as unreadable here: such a file is its own PPA000, not the end of the run."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and (not value or "\0" in value):
            self.fail(f"{value!r} is not a path", param, ctx)
        return super().convert(value, param, ctx)

    @classmethod
    def of(cls, rule: PathRule) -> _Path:
        """The type that checks a path as ``rule`` says (``check_options.PathRule``)."""
        return cls(path_type=Path, file_okay=rule.file_okay, dir_okay=rule.dir_okay, readable=rule.readable,
                   writable=rule.writable)


class _Commands(Group):
    """A group whose ``lazy`` commands, ``name -> "module:attribute"``, are imported when first looked up."""

    def __init__(self, *args, lazy: dict[str, str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, attribute = self.lazy[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """A bare ``ppaux-lint`` prints the help as ``--help`` does, line by line, on standard error and exits 2,
        as ruff does: click raises it as a usage error, which ``main`` would squeeze into one "error:" line."""
        if not args and not ctx.resilient_parsing:
            click.echo(ctx.get_help(), err=True, color=ctx.color)
            ctx.exit(EXIT_ERROR)
        return super().parse_args(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List each command with the whole first paragraph of its help, wrapped: click cuts it to one line, and
        at the first word that ends in a full stop ("Explain the rule CODE (e.g.")."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.short_help or " ".join((command.help or "").split("\n\n")[0].split())))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        """A Ctrl-C anywhere in a command (its report too) is one line and exit code 130; click's own
        handling would print an empty line first."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise ClickError(Interrupted()) from None


@click.group(cls=_Commands, lazy={"verify": "ppaux_lint.cli.verify:verify"},  # torch-free until it runs
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=exit_codes_help())
@click.version_option(__version__, "--version", "-V", prog_name="ppaux-lint")
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Check that SGLang sampling-observer outputs can cross a pipeline-parallel stage."""
    ctx.ensure_object(dict)["debug"] = debug  # the run's state: ``main`` may have put its own dict there


def _with_check_options(function):
    """``function`` with ``check``'s argument and options, in the order ``--help`` lists them."""
    for option in reversed(CHECK_OPTIONS):
        function = click.option(*option.flags, option.name, **_settings(option))(function)
    return click.argument("paths", nargs=-1, type=_Path.of(PATHS))(function)


def _settings(option: Option) -> dict[str, object]:
    """What click's ``option`` is given for ``option``."""
    if option.flag:
        return {"is_flag": True, "help": option.help}
    settings: dict[str, object] = {"help": option.help, "multiple": option.multiple, "metavar": option.metavar}
    if option.choices is not None:
        settings.update(type=click.Choice(option.choices), default=option.default, show_default=True)
    elif option.path is not None:
        settings["type"] = _Path.of(option.path)
    return settings


@cli.command(epilog=exit_codes_help())
@_with_check_options
@click.pass_context
def check(ctx: click.Context, **params) -> None:
    """Check PATHS (default: the current directory) for classes that cannot cross a PP stage.

    `-` checks standard input, named by --stdin-filename, against the rest of the project on disk, as an
    editor plugin needs for an unsaved buffer."""
    ctx.exit(run(ctx.obj, **params))


@cli.command()
@click.argument("paths", nargs=-1, type=_Path.of(PATHS))
@click.option("--cache-dir", type=_Path(path_type=Path, file_okay=False, readable=False), help="The cache to remove.")
@click.pass_context
def clean(ctx: click.Context, paths: tuple[Path, ...], cache_dir: Path | None) -> None:
    """Remove the cache of the project that contains PATHS (default: the current directory).

    Only a directory ppaux-lint made, and only ppaux-lint's files in it; what it keeps, it names (exit 2)."""
    from ppaux_lint.cache.clean import clean as clean_cache
    from ppaux_lint.cache.directory import cache_directory
    from ppaux_lint.project.loading import Options, asked, load_project

    project = guarded(ctx.obj, lambda: load_project(asked(paths), Options()))
    cleaned = guarded(ctx.obj, lambda: clean_cache(project, cache_dir))
    if cleaned is None:
        click.echo(f"No cache at {cache_directory(project, cache_dir)}")
    elif not cleaned.gone:
        raise ExitError(cleaned.summary())
    else:
        click.echo(f"Removed cache at {cleaned.directory}")


@cli.command()
@click.argument("code")
def rule(code: str) -> None:
    """Explain the rule CODE (e.g. PPA001)."""
    from ppaux_lint.rules import by_code, rule_document

    code = code.upper()
    if by_code(code) is None:
        raise ExitError(f"CODE: unknown rule {code!r} (see `ppaux-lint rules`)")
    text = rule_document(code)
    stream = sys.stdout
    if stream.isatty():
        from rich.markdown import Markdown

        from ppaux_lint.report.console import make_console

        make_console().print(Markdown(text))
    else:
        stream.write(text if text.endswith("\n") else text + "\n")


@cli.command()
@click.argument("paths", nargs=-1, type=_Path.of(PATHS))
@click.option("--output-format", type=click.Choice(("tree", "json")), default="tree", show_default=True,
              help="A tree for people, or JSON for tools.")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Also exclude paths matching this gitignore-style pattern.")
@click.option("--config", "config_path", type=_Path(path_type=Path, dir_okay=False),
              help="Read settings from this TOML file instead of the project's pyproject.toml.")
@click.pass_context
def inventory(ctx: click.Context, paths: tuple[Path, ...], output_format: str, exclude: tuple[str, ...],
              config_path: Path | None) -> None:
    """Show every output and observer in PATHS: how it was recognised, its pairing and its PP status."""
    from ppaux_lint.check.engine import Options, analyze
    from ppaux_lint.cli import inventory as inv

    options = Options(config_path=config_path, exclude=exclude)
    with progress(output_format == "tree"):
        analysis = guarded(ctx.obj, lambda: analyze(list(paths), options))
    warn(ctx.obj, analysis.discovery.warnings)
    data = guarded(ctx.obj, lambda: inv.build(analysis))
    out = sys.stdout
    (inv.render_json if output_format == "json" else inv.render_tree)(data, out)


@cli.command("rules")
@click.option("--output-format", type=click.Choice(("table", "json")), default="table", show_default=True)
def rules_command(output_format: str) -> None:
    """List every rule: code, name, summary and fix availability."""
    from ppaux_lint.rules import all_rules

    if output_format == "json":
        click.echo(json.dumps([{"code": r.code, "name": r.name, "summary": r.summary, "fix": r.fix}
                               for r in all_rules()], indent=2))
        return
    from rich.table import Table
    from rich.text import Text

    from ppaux_lint.report.console import make_console

    table = Table(show_edge=False, header_style="bold")
    for column in ("Code", "Name", "Fix", "Summary"):
        table.add_column(column, overflow="fold")
    for r in all_rules():
        table.add_row(*map(Text, (r.code, r.name, r.fix, r.summary)))  # literally: a summary may quote `[]`
    make_console(width=max(120, make_console().width)).print(table)


@cli.command()
@click.pass_context
def server(ctx: click.Context) -> None:
    """Run the language server on stdin/stdout (needs pygls: the `lsp` extra of ppaux-lint)."""
    from ppaux_lint.server import serve

    ctx.exit(guarded(ctx.obj, serve))
