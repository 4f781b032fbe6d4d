"""``ppaux-lint verify``: the static pass, then a real PP round trip for every class it found.

Torch is imported only once this command runs, so ``ppaux-lint --help`` and
``check`` never pay for it. Exit codes follow ``check``: 0 all passed (skips
allowed unless ``--strict``), 1 a class failed or errored, 2 usage,
configuration or internal errors, always as one line on stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ppaux_lint.cli.click_errors import Command
from ppaux_lint.project.config import MAX_TIMEOUT, valid_timeout
from ppaux_lint.runtime.run.plan import DEFAULT_TIMEOUT, VerifyUsageError
from ppaux_lint.runtime.terms.helpers import CHOICES as HELPERS_CHOICES
from ppaux_lint.support.command import exit_codes_help, guarded

if TYPE_CHECKING:
    from ppaux_lint.runtime.run.plan import Plan
    from ppaux_lint.runtime.terms.results import VerifyResult


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """``--timeout nan`` passes FloatRange's bounds (every comparison with nan is false): refused as they are."""
    if value is not None and not valid_timeout(value):
        raise click.BadParameter(f"{value} is not a positive number of seconds (at most {MAX_TIMEOUT:g})")
    return value


@click.command("verify", cls=Command, epilog=exit_codes_help())
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--device", default="auto", show_default=True, metavar="auto|cpu|cuda|cuda:N",
              help="Where the round trips run; auto means CUDA when it is there.")
@click.option("--transport", type=click.Choice(("local", "dist")), default="local", show_default=True,
              help="Either way the first stage is a process of its own, with its own observer, receiving the "
                   "pieces SGLang sends (see --attn-tp-size). local: gloo, both stages on the device; "
                   "dist: NCCL across two GPUs where there are, or under "
                   "torchrun the launch's own ranks (the last one sends, rank 0 receives and reports).")
@click.option("--output-format", type=click.Choice(("full", "json")), default="full", show_default=True,
              help="A table for people, or JSON for tools.")
@click.option("--junit-xml", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="Also write a JUnit XML report here.")
@click.option("--strict", is_flag=True, help="Treat skipped classes as failures.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True, max=MAX_TIMEOUT), callback=_finite,
              metavar="SECONDS",
              help=f"Per-class time limit (default: [tool.ppaux-lint.verify] timeout, else {DEFAULT_TIMEOUT:g}).")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Read settings from this TOML file instead of the project's pyproject.toml.")
@click.option("--helpers", type=click.Choice(HELPERS_CHOICES),
              help="Whose PP helpers judge: SGLang's (sglang.srt.sampling.sampling_observer_pp), the bundled "
                   "core, or auto: SGLang's when they import (default: [tool.ppaux-lint.verify] helpers, else auto).")
@click.option("--explore", type=click.IntRange(min=0), metavar="N",
              help="After a class passes, round-trip N variants of its example (other batch sizes and values) "
                   "and shrink any failure to a counterexample (default: [tool.ppaux-lint.verify] explore, else 0).")
@click.option("--seed", type=click.IntRange(min=0), metavar="S",
              help="Draw the explored variants from this seed, to repeat a run (default: [tool.ppaux-lint.verify] "
                   "seed, else a random one, printed).")
@click.option("--attn-tp-size", type=click.IntRange(min=1), metavar="N",
              help="Send as SGLang's scheduler does between stages of N attention-TP ranks: a tensor whose numel "
                   "divides by N crosses as N rows of tensor.reshape(N, -1), any other whole, and a row or tensor "
                   "that is a non-contiguous view is refused, as torch.distributed.send refuses it (default: "
                   "[tool.ppaux-lint.verify] attn-tp-size, else 1).")
@click.pass_context
def verify(ctx: click.Context, paths: tuple[Path, ...], device: str, transport: str, output_format: str,
           junit_xml: Path | None, strict: bool, timeout: float | None, config_path: Path | None,
           helpers: str | None, explore: int | None, seed: int | None, attn_tp_size: int | None) -> None:
    """Import the classes found in PATHS and put each through a real pipeline-parallel round trip."""
    ctx.exit(guarded(ctx.obj, lambda: _verify(list(paths), device, transport, output_format, junit_xml, strict,
                                              timeout, config_path, helpers, explore, seed, attn_tp_size)))


def _verify(paths: list[Path], device: str, transport: str, output_format: str, junit_xml: Path | None,
            strict: bool, timeout: float | None, config_path: Path | None, helpers: str | None,
            explore: int | None, seed: int | None, attn_tp_size: int | None) -> int:
    from ppaux_lint.runtime.torchrun.launch import Launch

    launch = Launch.from_env(os.environ) if transport == "dist" else None

    def plan() -> Plan:
        from ppaux_lint.runtime.run.plan import plan_verify

        if junit_xml is not None and (launch is None or launch.rank == 0) and not junit_xml.resolve().parent.is_dir():
            raise VerifyUsageError(f"--junit-xml: cannot write {junit_xml}: its directory does not exist")
        planned = plan_verify(paths, device=device, transport=transport, timeout=timeout, config_path=config_path,
                              helpers=helpers, explore=explore, seed=seed, attn_tp_size=attn_tp_size)
        for warning in planned.warnings:
            click.echo(f"ppaux-lint: warning: {warning}", err=True)
        if planned.explore is not None and (launch is None or launch.rank == 0):
            # As hypothesis does: the seed that repeats this run (under a launch, rank 0's is every rank's).
            click.echo(f"ppaux-lint: exploring {planned.explore.count} examples per class with "
                       f"--seed {planned.explore.seed}", err=True)
        return planned

    def report(planned: Plan, results: list[VerifyResult]) -> int:
        return _report(planned, results, output_format, junit_xml, strict)

    show = output_format == "full" and sys.stderr.isatty()
    if launch is not None:  # started by torchrun: its ranks are the stages (see runtime/torchrun/launch.py)
        from ppaux_lint.runtime.torchrun.launch import run_launched

        return run_launched(launch, plan, report, lambda targets, run: _with_progress(targets, show, run), device)
    planned = plan()
    return report(planned, _with_progress(planned.targets, show, planned.run))


def _report(plan: Plan, results: list[VerifyResult], output_format: str, junit_xml: Path | None,
            strict: bool) -> int:
    """Print the results, write the JUnit report, and return the exit code."""
    from ppaux_lint.runtime.run.report import render_json, render_table, write_junit
    from ppaux_lint.runtime.terms.results import exit_code

    if output_format == "json":
        click.echo(render_json(results), nl=False)
    else:
        from ppaux_lint.report.console import make_console

        render_table(results, make_console(highlight=False, width=None if sys.stdout.isatty() else 160),
                     plan.helpers.label)
    if junit_xml is not None:
        try:
            write_junit(results, junit_xml)
        except OSError as exc:
            raise VerifyUsageError(f"--junit-xml: cannot write {junit_xml}: {exc.strerror or exc}") from None
    return exit_code(results, strict=strict)


def _with_progress(targets, show: bool, run):
    """Run ``run(on_start, on_result)``, with a progress bar on stderr when someone is watching."""
    if not show:
        return run(None, None)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from ppaux_lint.report.console import make_console

    columns = (TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}", markup=False))  # the class, as written
    with Progress(*columns, console=make_console(stderr=True), transient=True) as progress:
        task = progress.add_task("", total=len(targets))
        return run(lambda target: progress.update(task, description=target.symbol),
                   lambda result: progress.advance(task))
