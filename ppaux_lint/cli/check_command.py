"""``check`` itself: its parameters in, output and an exit code out, without click.

``cli.main`` runs it straight from a command line that ``check_options.parse`` could read, and click's ``check``
(``cli/commands.py``) runs it with the parameters click parsed: one body, whichever read the options.
"""

from __future__ import annotations

import io
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ppaux_lint.cli import notices
from ppaux_lint.support import collector, streams
from ppaux_lint.support.command import EXIT_CLEAN, EXIT_FINDINGS, ExitError, guarded

AT_ONCE = "exit at once"  # the run's state says the process may end without the interpreter's teardown
OWN_PROCESS = "own process"  # the run's state says the process is the command's own (``main.entry``'s)


def run(state: dict[str, object], paths: tuple[Path, ...], output_format: str, select: tuple[str, ...],
        ignore: tuple[str, ...], exclude: tuple[str, ...], force_exclude: bool, config_path: Path | None,
        no_cache: bool, cache_dir: Path | None, exit_zero: bool, statistics: bool, quiet: bool,
        apply_fix: bool = False, show_diff: bool = False, unsafe_fixes: bool = False,
        show_fixes: bool = False, stdin_filename: Path | None = None, extend_select: tuple[str, ...] = (),
        extend_ignore: tuple[str, ...] = (), output_file: Path | None = None, show_files: bool = False,
        show_settings: bool = False, add_noqa: bool = False) -> int:
    """``check`` with its parameters (``check_options.CHECK_OPTIONS``), in the run's ``state`` (click's ``obj``);
    its exit code."""
    from ppaux_lint.cli.checking import Checked, check_project, with_fixes
    from ppaux_lint.project.loading import Options

    state[notices.GITHUB] = output_format == "github"  # how warnings and errors are written from now on
    state[AT_ONCE] = True  # nothing of check's is left to clean up at exit (``entry``)
    own_process = bool(state.get(OWN_PROCESS))
    if own_process:
        collector.off_until_exit()
    _refuse_conflicts(apply_fix=apply_fix, show_diff=show_diff, add_noqa=add_noqa, show_files=show_files,
                      show_settings=show_settings, stdin=stdin_filename is not None)
    stdin = _stdin_path(paths, stdin_filename)
    if stdin is not None:
        paths = (stdin,)
    overlays = {str(stdin.absolute()): _read_stdin()} if stdin is not None else {}
    options = Options(config_path=config_path, select=_codes(select, "--select"), ignore=_codes(ignore, "--ignore"),
                      extend_select=_codes(extend_select, "--extend-select"),
                      extend_ignore=_codes(extend_ignore, "--extend-ignore"), exclude=exclude,
                      force_exclude=force_exclude, no_cache=no_cache, cache_dir=cache_dir, overlays=overlays)
    if show_files or show_settings:  # what a run would check, or by which settings: nothing is read or checked
        from ppaux_lint.cli import settings

        show = settings.show_files if show_files else settings.show_settings
        listing = io.StringIO()
        warn(state, guarded(state, lambda: show(list(paths), options, listing)))
        sys.stdout.write(_verbatim(listing.getvalue(), output_format, sys.stdout))  # file names, printable
        return EXIT_CLEAN
    if add_noqa:
        from ppaux_lint.cli.add_noqa import add_noqa as add

        added = guarded(state, lambda: add(list(paths), options))
        warn(state, added.warnings)
        notices.echo(f"Added {added.count} noqa directive{'s' if added.count != 1 else ''}.")
        return EXIT_CLEAN
    if not (show_diff or apply_fix):  # a plain check: replayed when nothing changed since the same one (replay.py)
        with progress(output_format in ("full", "concise") and not quiet):
            hold = collector.keep_until_exit if own_process else None
            checked = guarded(state, lambda: check_project(list(paths), options, hold))
        warn(state, checked.warnings)
        return _report(checked, output_format, exit_zero=exit_zero, statistics=statistics, quiet=quiet,
                       unsafe=unsafe_fixes, output_file=output_file)
    from ppaux_lint import fixes  # the fix machinery, only when fixes are to be applied or shown
    from ppaux_lint.check.engine import analyze

    with progress(output_format in ("full", "concise") and not quiet):
        analysis = guarded(state, lambda: analyze(list(paths), options))
    warn(state, analysis.discovery.warnings)
    out = sys.stdout
    if show_diff:  # as ruff: the diff only, a count on stderr, exit 1 when something would change
        def again(overlays):  # each round analyses the previous one's result, in memory, as --fix would from disk
            import dataclasses

            return analyze(list(paths), dataclasses.replace(options, overlays=dict(overlays)))

        preview = guarded(state, lambda: fixes.preview(analysis, unsafe=unsafe_fixes, reanalyze=again))
        warn(state, fixes.failure_warnings(preview.failed))
        out.write(_verbatim(fixes.unified_diff(preview.files.values()), output_format, out))
        out.flush()  # a diff that cannot be written fails here, before the count says it was shown
        count = len(preview.applied)
        notices.echo(f"Would fix {count} error{'s' if count != 1 else ''}." if count else "No errors would be fixed.",
                     err=True)
        return EXIT_FINDINGS if preview.files and not exit_zero else EXIT_CLEAN
    fixed: list = []
    if apply_fix and stdin is not None:  # as ruff: the fixed source on stdout, what remains on stderr
        outcome = guarded(state, lambda: _fix_in_memory(analysis, paths, options, unsafe_fixes))
        warn(state, fixes.failure_warnings(outcome.failed, outcome.unwritten))
        analysis, fixed = outcome.analysis, outcome.fixed
        streams.write_binary(next(iter(analysis.overlays.values())))
        out = sys.stderr
    elif apply_fix:
        outcome = guarded(state, lambda: fixes.fix_project(analysis, lambda: analyze(list(paths), options),
                                                            unsafe=unsafe_fixes))
        warn(state, fixes.failure_warnings(outcome.failed, outcome.unwritten))
        analysis, fixed = outcome.analysis, outcome.fixed
    checked = Checked(guarded(state, lambda: with_fixes(analysis)), analysis.discovery.warnings,
                      len(analysis.discovery.targets), dict(analysis.overlays), unjudged=len(analysis.unjudged()),
                      output_file=analysis.project.config.output_path)
    return _report(checked, output_format, exit_zero=exit_zero, statistics=statistics, quiet=quiet, out=out,
                   fixed=fixed if show_fixes else [], fixed_count=len(fixed), unsafe=unsafe_fixes,
                   output_file=output_file)


def _codes(values: Sequence[str], option: str) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C). A value that names no code at all (``--select ''``, as a script
    passes an empty variable) is refused, as ruff refuses it: taken as absent, it selected every rule."""
    for value in values:
        if not value.replace(",", "").strip():
            raise ExitError(f"{option} {value!r}: names no rule code")
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


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


def warn(state: dict[str, object] | None, warnings: Sequence[str]) -> None:
    """Each of ``warnings`` as one line on standard error, as the run's format needs it."""
    for warning in warnings:
        notices.say(state, "warning", warning)


def _verbatim(text: str, output_format: str, out: IO[str]) -> str:
    """Text printed as it is (a diff quotes source lines), fenced off from the Actions runner under the github
    format (see report/github.py); on a terminal, each line with what the terminal would act on shown as its
    escape, as the human formats show it (piped, a diff stays one that ``patch`` applies)."""
    if not text:
        return text
    if output_format == "github":
        from ppaux_lint.report.github import fenced

        return fenced(text)
    if not out.isatty():
        return text
    from ppaux_lint.report.paths import printable

    return "".join(printable(line.rstrip("\n")) + "\n" for line in text.splitlines(keepends=True))


def _report(checked, output_format: str, *, exit_zero: bool, statistics: bool, quiet: bool,
            out=None, fixed: list | None = None, fixed_count: int = 0, unsafe: bool = False,
            output_file: Path | None = None) -> int:
    """Print what ``check`` found (and fixed) as ``output_format`` asks, or write it to ``output_file``, then
    give check's exit code."""
    from ppaux_lint.report import renderer

    follow = output_file is not None  # the user's own --output-file, followed where it leads; not a config's
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

        write_report(output_file, out.getvalue(), follow)
    return EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN


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
    from ppaux_lint.fixes.writing import encode_source

    current = dict(analysis.overlays)

    def save(result) -> None:
        current[result.path] = encode_source(result.fixed, result.encoding)

    return fixes.fix_project(analysis, lambda: analyze(list(paths), dataclasses.replace(options, overlays=current)),
                             unsafe=unsafe, save=save)


def progress(enabled: bool):
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
