"""The command line. It parses options, calls the engine, picks a renderer, and maps outcomes to exit codes
(the policy, shared by every command, is in :mod:`ppaux_lint.support.command`).

An editor or a git hook starts ``check`` on a file or two many times a day, so what a run imports is what
it needs: the rule catalogue, the renderer of the chosen format, rich (only for findings to frame) and the
fix machinery (only for findings to plan fixes for) are imported where they are used, and ``verify``'s
module, which names the runtime's defaults, only when that command is asked for (or listed in help).
``tests/test_laziness.py`` keeps it so.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click

from ppaux_lint import __version__
from ppaux_lint.cli import notices
from ppaux_lint.support import collector, records, streams
from ppaux_lint.support.command import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    ExitError,
    Interrupted,
    OutputFailed,
    exit_codes_help,
    guarded,
    one_line,
)

OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github")


class _Path(click.Path):
    """click's Path, refusing what names no file: ``""`` (which ``Path`` reads as the current directory, so that
    ``--cache-dir "$UNSET"`` put the cache's ``.gitignore`` of ``*`` into the project) and a NUL byte. Paths to
    check are never refused as unreadable here: such a file is its own PPA000, not the end of the run."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and (not value or "\0" in value):
            self.fail(f"{value!r} is not a path", param, ctx)
        return super().convert(value, param, ctx)


def _codes(values: Sequence[str]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C)."""
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


class _Commands(click.Group):
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
            raise Interrupted from None


@click.group(cls=_Commands, lazy={"verify": "ppaux_lint.cli.verify:verify"},  # torch-free until it runs
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=exit_codes_help())
@click.version_option(__version__, "--version", "-V", prog_name="ppaux-lint")
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Check that SGLang sampling-observer outputs can cross a pipeline-parallel stage."""
    ctx.ensure_object(dict)["debug"] = debug  # the run's state: ``main`` may have put its own dict there


@cli.command(epilog=exit_codes_help())
@click.argument("paths", nargs=-1, type=_Path(path_type=Path, readable=False))
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default="full", show_default=True,
              help="How to print findings.")
@click.option("--select", multiple=True, metavar="CODES", help="Only these rule codes or prefixes (comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule codes or prefixes (comma-separated).")
@click.option("--extend-select", multiple=True, metavar="CODES",
              help="Also these rule codes or prefixes, on top of --select or the config's select.")
@click.option("--extend-ignore", multiple=True, metavar="CODES",
              help="Also skip these rule codes or prefixes, on top of the config's ignore.")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Also exclude paths matching this gitignore-style pattern.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes even to files passed explicitly.")
@click.option("--config", "config_path", type=_Path(path_type=Path, dir_okay=False),
              help="Read settings from this TOML file instead of the project's pyproject.toml.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--cache-dir", type=_Path(path_type=Path, file_okay=False, readable=False),
              help="Where to keep the cache (default: .ppaux_lint_cache at the project root).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True,
              help="Print the number of findings per rule, with a [*] where they are fixable, instead of the findings.")
@click.option("--output-file", type=_Path(path_type=Path, dir_okay=False, writable=True), metavar="PATH",
              help="Write the report to PATH instead of standard output (replaced atomically).")
@click.option("--show-files", is_flag=True, help="List the files that would be checked, and check nothing.")
@click.option("--show-settings", is_flag=True,
              help="Print the settings that apply to the first of PATHS, and where each came from; check nothing.")
@click.option("--add-noqa", is_flag=True,
              help="Add a `# noqa: CODE` comment for each finding on the line that silences it.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary.")
@click.option("--fix", "apply_fix", is_flag=True, help="Apply fixes (safe ones; unsafe ones too with --unsafe-fixes).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the fixes as a unified diff and write nothing; exit 1 if there would be changes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that add behaviour (generated methods).")
@click.option("--show-fixes", is_flag=True, help="With --fix, list what was fixed.")
@click.option("--stdin-filename", type=_Path(path_type=Path, dir_okay=False, readable=False), metavar="PATH",
              help="Check standard input as the contents of PATH (pass `-` or no PATHS); with --fix, print the "
                   "fixed source and report what remains on stderr.")
@click.pass_context
def check(ctx: click.Context, paths: tuple[Path, ...], output_format: str, select: tuple[str, ...],
          ignore: tuple[str, ...], exclude: tuple[str, ...], force_exclude: bool, config_path: Path | None,
          no_cache: bool, cache_dir: Path | None, exit_zero: bool, statistics: bool, quiet: bool,
          apply_fix: bool = False, show_diff: bool = False, unsafe_fixes: bool = False,
          show_fixes: bool = False, stdin_filename: Path | None = None, extend_select: tuple[str, ...] = (),
          extend_ignore: tuple[str, ...] = (), output_file: Path | None = None, show_files: bool = False,
          show_settings: bool = False, add_noqa: bool = False) -> None:
    """Check PATHS (default: the current directory) for classes that cannot cross a PP stage.

    `-` checks standard input, named by --stdin-filename, against the rest of the project on disk, as an
    editor plugin needs for an unsaved buffer."""
    from ppaux_lint.cli.checking import Checked, check_project, with_fixes
    from ppaux_lint.project.loading import Options

    ctx.obj[notices.GITHUB] = output_format == "github"  # how warnings and errors are written from now on
    ctx.obj[_AT_ONCE] = True  # nothing of check's is left to clean up at exit (``entry``)
    own_process = bool(ctx.obj.get(_OWN_PROCESS))
    if own_process:
        collector.off_until_exit()
    _refuse_conflicts(apply_fix=apply_fix, show_diff=show_diff, add_noqa=add_noqa, show_files=show_files,
                      show_settings=show_settings, stdin=stdin_filename is not None)
    stdin = _stdin_path(paths, stdin_filename)
    if stdin is not None:
        paths = (stdin,)
    overlays = {str(stdin.absolute()): _read_stdin()} if stdin is not None else {}
    options = Options(config_path=config_path, select=_codes(select), ignore=_codes(ignore),
                      extend_select=_codes(extend_select), extend_ignore=_codes(extend_ignore), exclude=exclude,
                      force_exclude=force_exclude, no_cache=no_cache, cache_dir=cache_dir, overlays=overlays)
    if show_files or show_settings:  # what a run would check, or by which settings: nothing is read or checked
        from ppaux_lint.cli import settings

        show = settings.show_files if show_files else settings.show_settings
        _warn(ctx, guarded(ctx, lambda: show(list(paths), options, sys.stdout)))
        ctx.exit(EXIT_CLEAN)
    if add_noqa:
        from ppaux_lint.cli.add_noqa import add_noqa as add

        added = guarded(ctx, lambda: add(list(paths), options))
        _warn(ctx, added.warnings)
        click.echo(f"Added {added.count} noqa directive{'s' if added.count != 1 else ''}.")
        ctx.exit(EXIT_CLEAN)
    if not (show_diff or apply_fix):  # a plain check: replayed when nothing changed since the same one (replay.py)
        with _progress(output_format in ("full", "concise") and not quiet):
            hold = collector.keep_until_exit if own_process else None
            checked = guarded(ctx, lambda: check_project(list(paths), options, hold))
        _warn(ctx, checked.warnings)
        return _report(ctx, checked, output_format, exit_zero=exit_zero, statistics=statistics, quiet=quiet,
                       unsafe=unsafe_fixes, output_file=output_file)
    from ppaux_lint import fixes  # the fix machinery, only when fixes are to be applied or shown
    from ppaux_lint.check.engine import analyze

    with _progress(output_format in ("full", "concise") and not quiet):
        analysis = guarded(ctx, lambda: analyze(list(paths), options))
    _warn(ctx, analysis.discovery.warnings)
    out = sys.stdout
    if show_diff:  # as ruff: the diff only, a count on stderr, exit 1 when something would change
        preview = guarded(ctx, lambda: fixes.preview(analysis, unsafe=unsafe_fixes))
        _warn(ctx, fixes.failure_warnings(preview.failed))
        out.write(_verbatim(fixes.unified_diff(preview.files.values()), output_format))
        out.flush()  # a diff that cannot be written fails here, before the count says it was shown
        count = len(preview.applied)
        click.echo(f"Would fix {count} error{'s' if count != 1 else ''}." if count else "No errors would be fixed.",
                   err=True)
        ctx.exit(EXIT_FINDINGS if preview.files and not exit_zero else EXIT_CLEAN)
    fixed: list = []
    if apply_fix and stdin is not None:  # as ruff: the fixed source on stdout, what remains on stderr
        outcome = guarded(ctx, lambda: _fix_in_memory(analysis, paths, options, unsafe_fixes))
        _warn(ctx, fixes.failure_warnings(outcome.failed))
        analysis, fixed = outcome.analysis, outcome.fixed
        streams.write_binary(next(iter(analysis.overlays.values())))
        out = sys.stderr
    elif apply_fix:
        outcome = guarded(ctx, lambda: fixes.fix_project(analysis, lambda: analyze(list(paths), options),
                                                          unsafe=unsafe_fixes))
        _warn(ctx, fixes.failure_warnings(outcome.failed, outcome.unwritten))
        analysis, fixed = outcome.analysis, outcome.fixed
    checked = Checked(guarded(ctx, lambda: with_fixes(analysis)), analysis.discovery.warnings,
                      len(analysis.discovery.targets), dict(analysis.overlays), unjudged=len(analysis.unjudged()),
                      output_file=analysis.project.config.output_path)
    _report(ctx, checked, output_format, exit_zero=exit_zero, statistics=statistics, quiet=quiet, out=out,
            fixed=fixed if show_fixes else [], fixed_count=len(fixed), unsafe=unsafe_fixes, output_file=output_file)


def _refuse_conflicts(**asked: bool) -> None:
    """Options that ask for different runs: --add-noqa writes comments where --fix or --diff would change code
    (and has no file to write for standard input); --show-files and --show-settings check nothing."""
    on = [name for name, value in asked.items() if value]
    for alone in ("add_noqa", "show_files", "show_settings"):
        if alone in on and len(on) > 1:
            others = ", ".join(_FLAGS[name] for name in on if name != alone)
            raise ExitError(f"{_FLAGS[alone]} cannot be used with {others}")


_FLAGS = {"apply_fix": "--fix", "show_diff": "--diff", "add_noqa": "--add-noqa", "show_files": "--show-files",
          "show_settings": "--show-settings", "stdin": "--stdin-filename"}


def _warn(ctx: click.Context, warnings: Sequence[str]) -> None:
    for warning in warnings:
        notices.say(ctx.obj, "warning", warning)


def _verbatim(text: str, output_format: str) -> str:
    """Text printed as it is (a diff quotes file names and source lines), fenced off from the Actions runner
    under the github format (see report/github.py)."""
    if output_format != "github" or not text:
        return text
    from ppaux_lint.report.github import fenced

    return fenced(text)


def _report(ctx: click.Context, checked, output_format: str, *, exit_zero: bool, statistics: bool, quiet: bool,
            out=None, fixed: list | None = None, fixed_count: int = 0, unsafe: bool = False,
            output_file: Path | None = None) -> None:
    """Print what ``check`` found (and fixed) as ``output_format`` asks, or write it to ``output_file``, then
    exit with check's code."""
    from ppaux_lint.report import renderer

    output_file = output_file or checked.output_file
    if output_file is not None:
        import io

        out = io.StringIO()
    out = out or sys.stdout
    findings = checked.findings
    if statistics:
        _print_statistics(findings, output_format, out, unsafe=unsafe)
    else:
        render = renderer(output_format)
        if output_format == "full":  # the only format that quotes source lines: the overlay's, where checked
            render(findings, out, overlays=checked.overlays)
        elif output_format == "sarif":  # the run's property bag counts the classes no rule could judge
            render(findings, out, unknown_classes=checked.unjudged)
        else:
            render(findings, out)
        if output_format in ("full", "concise") and not quiet:
            if fixed:
                _print_fixed(fixed, out)
            _print_summary(findings, checked.files_checked, out, fixed=fixed_count, unsafe=unsafe,
                           unjudged=checked.unjudged)
    if output_file is not None:
        from ppaux_lint.cli.output_file import write_report

        write_report(output_file, out.getvalue())
    ctx.exit(EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN)


def _stdin_path(paths: tuple[Path, ...], stdin_filename: Path | None) -> Path | None:
    """The file standard input stands for, or None when PATHS are files on disk. Only a name places it in a
    project (its module name, its config), so `-` needs --stdin-filename rather than a guess."""
    dash = Path("-")
    if stdin_filename is None:
        if dash in paths:
            raise ExitError("`-` reads standard input, which needs --stdin-filename PATH to say which file it is")
        return None
    if any(path != dash for path in paths):
        raise ExitError("--stdin-filename checks standard input: pass `-` or no PATHS, not "
                        + " ".join(str(p) for p in paths if p != dash))
    if stdin_filename.name in ("", ".", ".."):
        raise ExitError(f"--stdin-filename {str(stdin_filename)!r}: names a directory, not a file")
    return stdin_filename


def _read_stdin() -> bytes:
    try:
        return sys.stdin.buffer.read()
    except OSError as exc:  # closed (``<&-``: see support/streams.py), a directory, ...
        raise ExitError(f"cannot read standard input: {exc.strerror or exc}") from None


def _fix_in_memory(analysis, paths: tuple[Path, ...], options, unsafe: bool):
    """``--fix`` on standard input: each round's result goes back into the overlay, and the next round
    analyses that; nothing is written to disk."""
    import dataclasses

    from ppaux_lint import fixes
    from ppaux_lint.check.engine import analyze

    current = dict(analysis.overlays)

    def save(result) -> None:
        current[result.path] = result.fixed.encode(result.encoding)

    return fixes.fix_project(analysis, lambda: analyze(list(paths), dataclasses.replace(options, overlays=current)),
                             unsafe=unsafe, save=save)


def _progress(enabled: bool):
    """A spinner on stderr while the analysis runs, on a terminal only (never in pipes, CI logs or tests)."""
    import contextlib
    import os

    if not enabled or not sys.stderr.isatty() or os.environ.get("CI"):
        return contextlib.nullcontext()
    from ppaux_lint.cli.spinner import Spinner

    return Spinner("Checking…", sys.stderr, colour=not os.environ.get("NO_COLOR"))


def _print_fixed(fixed, out) -> None:
    from ppaux_lint.report.paths import display_path, printable
    from ppaux_lint.rules import by_code

    out.write(f"Fixed {len(fixed)} error{'s' if len(fixed) != 1 else ''}:\n")
    by_path: dict[str, Counter] = {}
    for f in fixed:
        by_path.setdefault(printable(display_path(f.path)), Counter())[f.code] += 1
    for path in sorted(by_path):
        out.write(f"- {path}:\n")
        for code, count in sorted(by_path[path].items()):
            known = by_code(code)
            name = known.name if known is not None else ""
            out.write(f"    {count} × {code} ({name})\n")
    out.write("\n")


def _print_summary(findings, checked: int, out, fixed: int = 0, unsafe: bool = False, unjudged: int = 0) -> None:
    unknown = f"; {_unknown_classes(unjudged)} (see `ppaux-lint inventory`)" if unjudged else ""
    if fixed:
        total = fixed + len(findings)
        out.write(f"Found {total} error{'s' if total != 1 else ''} ({fixed} fixed, {len(findings)} remaining)"
                  f"{unknown}.\n")
    elif not findings:
        unknown = f"; {_unknown_classes(unjudged)}: see `ppaux-lint inventory`" if unjudged else ""
        out.write(f"All checks passed! ({checked} file{'s' if checked != 1 else ''} checked{unknown})\n")
        return
    else:
        out.write(f"Found {len(findings)} error{'s' if len(findings) != 1 else ''}{unknown}.\n")
    fixable = sum(1 for f in findings if f.fix is not None and (f.fix.safe or unsafe))
    hidden = sum(1 for f in findings if f.fix is not None and not f.fix.safe and not unsafe)
    if fixable:
        needs_unsafe = unsafe and any(f.fix is not None and not f.fix.safe for f in findings)
        option = "`--fix --unsafe-fixes` options" if needs_unsafe else "`--fix` option"
        note = f" ({hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the `--unsafe-fixes` option)"
        out.write(f"[*] {fixable} fixable with the {option}{note if hidden else ''}.\n")
    elif hidden:
        out.write(f"No fixes available ({hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the "
                  f"`--unsafe-fixes` option).\n")


def _unknown_classes(unjudged: int) -> str:
    """How many classes no rule could judge, since code the analysis cannot follow touches them, said on the
    summary line itself: what was not proven stands beside what was found (``inventory`` lists them, with why)."""
    return f"{unjudged} unknown class{'es' if unjudged != 1 else ''}"


def _print_statistics(findings, output_format: str, out, unsafe: bool = False) -> None:
    """As ruff's: per rule its count, code, ``[*]`` where ``--fix`` (with ``--unsafe-fixes`` when given) fixes
    some of its findings, and name; then the summary's totals. JSON: a list of code, name, count, fixable."""
    from ppaux_lint.rules import by_code

    counts = Counter(f.code for f in findings)
    fixable = {f.code for f in findings if f.fix is not None and (f.fix.safe or unsafe)}
    rows = [(code, counts[code], by_code(code).name, code in fixable) for code in sorted(counts)]
    if output_format == "json":
        json.dump([{"code": c, "name": n, "count": k, "fixable": x} for c, k, n, x in rows], out, indent=2)
        out.write("\n")
        return
    width = max((len(str(k)) for _, k, _, _ in rows), default=1)
    for code, count, name, can_fix in rows:
        marker = ("[*] " if can_fix else "[ ] ") if fixable else ""
        out.write(f"{count:>{width}}\t{code}\t{marker}{name}\n")
    if findings and output_format in ("full", "concise"):
        _print_summary(findings, 0, out, unsafe=unsafe)


@cli.command()
@click.argument("paths", nargs=-1, type=_Path(path_type=Path, readable=False))
@click.option("--cache-dir", type=_Path(path_type=Path, file_okay=False, readable=False), help="The cache to remove.")
@click.pass_context
def clean(ctx: click.Context, paths: tuple[Path, ...], cache_dir: Path | None) -> None:
    """Remove the cache of the project that contains PATHS (default: the current directory).

    Only a directory ppaux-lint made, and only ppaux-lint's files in it; what it keeps, it names (exit 2)."""
    from ppaux_lint.cache.clean import clean as clean_cache
    from ppaux_lint.cache.directory import cache_directory
    from ppaux_lint.project.loading import Options, asked, load_project

    project = guarded(ctx, lambda: load_project(asked(paths), Options()))
    cleaned = guarded(ctx, lambda: clean_cache(project, cache_dir))
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
@click.argument("paths", nargs=-1, type=_Path(path_type=Path, readable=False))
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
    with _progress(output_format == "tree"):
        analysis = guarded(ctx, lambda: analyze(list(paths), options))
    _warn(ctx, analysis.discovery.warnings)
    data = guarded(ctx, lambda: inv.build(analysis))
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

    ctx.exit(guarded(ctx, serve))



_AT_ONCE = "exit at once"  # the run's state says the process may end without the interpreter's teardown
_OWN_PROCESS = "own process"  # the run's state says the process is the command's own (``entry``'s)


def entry() -> None:
    """The console script's and ``python -m ppaux_lint``'s way in: ``main``, then, after ``check``, the end of the
    process without the interpreter's teardown, which frees every object one by one: 9 ms of a 70 ms check of one
    file, 15 ms of a cold check of 1,000 files (mypy ends the same way). ``check`` has written and closed all it
    writes, its workers are gone and no thread is left. In a process of its own, ``check`` collects no garbage
    either (``collector.off_until_exit``). Other commands (``verify`` and torch's own exit hooks, the server) end
    as Python does; so does ``main`` called from a program or a test."""
    state: dict[str, object] = {_OWN_PROCESS: True}
    try:
        main(state=state)
    except SystemExit as done:
        if not state.get(_AT_ONCE) or _observed():
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
    try:
        with collector.tuned():
            code = cli.main(args=args, prog_name="ppaux-lint", standalone_mode=False, obj=state)
        sys.stdout.flush()  # what is still buffered fails here, as one line, and not at the interpreter's exit
    except click.ClickException as exc:  # click's own usage errors, and ours
        notices.say(state, "error", one_line(exc))
        code = exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):  # Ctrl-C while click parses, or before it
        notices.say(state, "error", "interrupted")
        code = Interrupted.exit_code
    except BaseException as exc:  # the last line of defence for "never a traceback"
        if isinstance(exc, SystemExit):
            raise
        notices.say(state, "error", f"internal error: {type(exc).__name__}: {exc}")
        code = EXIT_ERROR
    with contextlib.suppress(OutputFailed, OSError, ValueError):  # after an error, not at exit: it said enough
        sys.stdout.flush()
    sys.exit(code if isinstance(code, int) else EXIT_CLEAN)
