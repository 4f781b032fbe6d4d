"""The command line. It parses options, calls the engine, picks a renderer, and maps outcomes to exit codes
(the policy, shared by every command, is in :mod:`ppaux_lint.command`)."""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import click

from ppaux_lint import __version__
from ppaux_lint.command import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, PREFIX, ExitError, guarded, one_line
from ppaux_lint.rules import all_rules, by_code, rule_document
from ppaux_lint.verify_cli import verify  # torch-free until the command runs

OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github")


def _codes(values: Sequence[str]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C)."""
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", "-V", prog_name="ppaux-lint")
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Check that SGLang sampling-observer outputs can cross a pipeline-parallel stage."""
    ctx.obj = {"debug": debug}


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default="full", show_default=True,
              help="How to print findings.")
@click.option("--select", multiple=True, metavar="CODES", help="Only these rule codes or prefixes (comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule codes or prefixes (comma-separated).")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Also exclude paths matching this gitignore-style pattern.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes even to files passed explicitly.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Read settings from this TOML file instead of the project's pyproject.toml.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
              help="Where to keep the cache (default: .ppaux_lint_cache at the project root).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of the findings.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary.")
@click.option("--fix", "apply_fix", is_flag=True, help="Apply fixes (safe ones; unsafe ones too with --unsafe-fixes).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the fixes as a unified diff and write nothing; exit 1 if there would be changes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that add behaviour (generated methods).")
@click.option("--show-fixes", is_flag=True, help="With --fix, list what was fixed.")
@click.option("--stdin-filename", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="Check standard input as the contents of PATH (pass `-` or no PATHS); with --fix, print the "
                   "fixed source and report what remains on stderr.")
@click.pass_context
def check(ctx: click.Context, paths: tuple[Path, ...], output_format: str, select: tuple[str, ...],
          ignore: tuple[str, ...], exclude: tuple[str, ...], force_exclude: bool, config_path: Path | None,
          no_cache: bool, cache_dir: Path | None, exit_zero: bool, statistics: bool, quiet: bool,
          apply_fix: bool = False, show_diff: bool = False, unsafe_fixes: bool = False,
          show_fixes: bool = False, stdin_filename: Path | None = None) -> None:
    """Check PATHS (default: the current directory) for classes that cannot cross a PP stage.

    `-` checks standard input, named by --stdin-filename, against the rest of the project on disk, as an
    editor plugin needs for an unsaved buffer."""
    from ppaux_lint.engine import Options, analyze
    from ppaux_lint.report import RENDERERS

    stdin = _stdin_path(paths, stdin_filename)
    if stdin is not None:
        paths = (stdin,)
    overlays = {str(stdin.absolute()): sys.stdin.buffer.read()} if stdin is not None else {}
    options = Options(config_path=config_path, select=_codes(select), ignore=_codes(ignore), exclude=exclude,
                      force_exclude=force_exclude, no_cache=no_cache, cache_dir=cache_dir, overlays=overlays)
    from ppaux_lint import fixes

    with _progress(output_format in ("full", "concise") and not quiet):
        analysis = guarded(ctx, lambda: analyze(list(paths), options))
    for warning in analysis.discovery.warnings:
        click.echo(f"ppaux-lint: warning: {warning}", err=True)
    out = sys.stdout
    if show_diff:  # as ruff: the diff only, a count on stderr, exit 1 when something would change
        preview = guarded(ctx, lambda: fixes.preview(analysis, unsafe=unsafe_fixes))
        fixes.report_failures(preview.failed)
        out.write(fixes.unified_diff(preview.files.values()))
        count = len(preview.applied)
        click.echo(f"Would fix {count} error{'s' if count != 1 else ''}." if count else "No errors would be fixed.",
                   err=True)
        ctx.exit(EXIT_FINDINGS if preview.files and not exit_zero else EXIT_CLEAN)
    fixed: list = []
    if apply_fix and stdin is not None:  # as ruff: the fixed source on stdout, what remains on stderr
        outcome = guarded(ctx, lambda: _fix_in_memory(analysis, paths, options, unsafe_fixes))
        fixes.report_failures(outcome.failed)
        analysis, fixed = outcome.analysis, outcome.fixed
        sys.stdout.flush()
        sys.stdout.buffer.write(next(iter(analysis.overlays.values())))
        sys.stdout.buffer.flush()
        out = sys.stderr
    elif apply_fix:
        outcome = guarded(ctx, lambda: fixes.fix_project(analysis, lambda: analyze(list(paths), options),
                                                          unsafe=unsafe_fixes))
        fixes.report_failures(outcome.failed)
        analysis, fixed = outcome.analysis, outcome.fixed
    findings = guarded(ctx, lambda: fixes.attach_fixes(analysis))
    if statistics:
        _print_statistics(findings, output_format, out)
    else:
        render = RENDERERS[output_format]
        if output_format == "full":  # the only format that quotes source lines: the overlay's, where checked
            render = functools.partial(render, overlays=analysis.overlays)
        render(findings, out)
        if output_format in ("full", "concise") and not quiet:
            if show_fixes and fixed:
                _print_fixed(fixed, out)
            _print_summary(findings, len(analysis.discovery.targets), out, fixed=len(fixed), unsafe=unsafe_fixes)
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
    return stdin_filename


def _fix_in_memory(analysis, paths: tuple[Path, ...], options, unsafe: bool):
    """``--fix`` on standard input: each round's result goes back into the overlay, and the next round
    analyses that; nothing is written to disk."""
    import dataclasses

    from ppaux_lint import fixes
    from ppaux_lint.engine import analyze

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
    from ppaux_lint.report.console import make_console

    return make_console(stderr=True).status("Checking…", spinner="dots")


def _print_fixed(fixed, out) -> None:
    from ppaux_lint.report.paths import display_path

    out.write(f"Fixed {len(fixed)} error{'s' if len(fixed) != 1 else ''}:\n")
    by_path: dict[str, Counter] = {}
    for f in fixed:
        by_path.setdefault(display_path(f.path), Counter())[f.code] += 1
    for path in sorted(by_path):
        out.write(f"- {path}:\n")
        for code, count in sorted(by_path[path].items()):
            known = by_code(code)
            name = known.name if known is not None else ""
            out.write(f"    {count} × {code} ({name})\n")
    out.write("\n")


def _print_summary(findings, checked: int, out, fixed: int = 0, unsafe: bool = False) -> None:
    if fixed:
        total = fixed + len(findings)
        out.write(f"Found {total} error{'s' if total != 1 else ''} ({fixed} fixed, {len(findings)} remaining).\n")
    elif not findings:
        out.write(f"All checks passed! ({checked} file{'s' if checked != 1 else ''} checked)\n")
        return
    else:
        out.write(f"Found {len(findings)} error{'s' if len(findings) != 1 else ''}.\n")
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


def _print_statistics(findings, output_format: str, out) -> None:
    counts = Counter(f.code for f in findings)
    rows = [(code, counts[code], by_code(code).name) for code in sorted(counts)]
    if output_format == "json":
        json.dump([{"code": c, "name": n, "count": k} for c, k, n in rows], out, indent=2)
        out.write("\n")
        return
    width = max((len(str(k)) for _, k, _ in rows), default=1)
    for code, count, name in rows:
        out.write(f"{count:>{width}}\t{code}\t{name}\n")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False), help="The cache to remove.")
@click.pass_context
def clean(ctx: click.Context, paths: tuple[Path, ...], cache_dir: Path | None) -> None:
    """Remove the cache of the project that contains PATHS (default: the current directory)."""
    import shutil

    from ppaux_lint.cache import CACHE_DIR_NAME
    from ppaux_lint.engine import Options, load_project

    project = guarded(ctx, lambda: load_project(list(paths) or [Path(".")], Options()))
    configured = Path(project.config.cache_dir) if project.config.cache_dir else None
    target = cache_dir or configured or Path(CACHE_DIR_NAME)
    target = target if target.is_absolute() else project.root / target
    if target.is_dir():
        shutil.rmtree(target, ignore_errors=True)
        click.echo(f"Removed cache at {target}")
    else:
        click.echo(f"No cache at {target}")


@cli.command()
@click.argument("code")
def rule(code: str) -> None:
    """Explain the rule CODE (e.g. PPA001)."""
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
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--output-format", type=click.Choice(("tree", "json")), default="tree", show_default=True,
              help="A tree for people, or JSON for tools.")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Also exclude paths matching this gitignore-style pattern.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Read settings from this TOML file instead of the project's pyproject.toml.")
@click.pass_context
def inventory(ctx: click.Context, paths: tuple[Path, ...], output_format: str, exclude: tuple[str, ...],
              config_path: Path | None) -> None:
    """Show every output and observer in PATHS: how it was recognised, its pairing and its PP status."""
    from ppaux_lint import inventory as inv
    from ppaux_lint.engine import Options, analyze

    options = Options(config_path=config_path, exclude=exclude)
    with _progress(output_format == "tree"):
        analysis = guarded(ctx, lambda: analyze(list(paths), options))
    for warning in analysis.discovery.warnings:
        click.echo(f"ppaux-lint: warning: {warning}", err=True)
    data = guarded(ctx, lambda: inv.build(analysis))
    out = sys.stdout
    (inv.render_json if output_format == "json" else inv.render_tree)(data, out)


@cli.command("rules")
@click.option("--output-format", type=click.Choice(("table", "json")), default="table", show_default=True)
def rules_command(output_format: str) -> None:
    """List every rule: code, name, summary and fix availability."""
    if output_format == "json":
        click.echo(json.dumps([{"code": r.code, "name": r.name, "summary": r.summary, "fix": r.fix}
                               for r in all_rules()], indent=2))
        return
    from rich.table import Table

    from ppaux_lint.report.console import make_console

    table = Table(show_edge=False, header_style="bold")
    for column in ("Code", "Name", "Fix", "Summary"):
        table.add_column(column, overflow="fold")
    for r in all_rules():
        table.add_row(r.code, r.name, r.fix, r.summary)
    make_console(width=max(120, make_console().width)).print(table)


@cli.command()
@click.pass_context
def server(ctx: click.Context) -> None:
    """Run the language server on stdin/stdout (needs the `lsp` extra: pip install 'ppaux-lint[lsp]')."""
    from ppaux_lint.server import serve

    ctx.exit(guarded(ctx, serve))


cli.add_command(verify)


def main(argv: Sequence[str] | None = None) -> None:
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 prints escaped, never raises
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        code = cli.main(args=argv, prog_name="ppaux-lint", standalone_mode=False)
    except click.ClickException as exc:  # click's own usage errors, and ours
        click.echo(f"{PREFIX}{one_line(exc)}", err=True)
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo(f"{PREFIX}interrupted", err=True)
        code = EXIT_ERROR
    except BaseException as exc:  # the last line of defence for "never a traceback"
        if isinstance(exc, SystemExit):
            raise
        click.echo(f"{PREFIX}internal error: {type(exc).__name__}: {exc}", err=True)
        code = EXIT_ERROR
    sys.exit(code if isinstance(code, int) else EXIT_CLEAN)
