"""verify prints what a plugin raised, and where it lives, as written: never as Rich markup or emoji codes.

A ``[/cache]`` in an exception used to stop the run with ``internal error: MarkupError`` and no table, and
``[rank]`` or ``:smile:`` vanished or turned into an emoji; on a terminal (rich styles what it writes) and
piped alike.
"""

from __future__ import annotations

import io
import sys
import types

import pytest
from rich.text import Text

from .conftest import Project, observer_class, plain_output, plugin_module

pytest.importorskip("torch")

WORDS = ("[/cache]", "[bold]x[/]", "[rank]", ":smile:")
DIRECTORY = "[rank] [bold]x :smile: [red]"  # a directory name cannot hold the closing tags' "/"
TERMINAL = {"NO_COLOR": "", "TTY_COMPATIBLE": "1"}
PIPED = {"NO_COLOR": "", "TTY_COMPATIBLE": "0"}
WHERE = pytest.mark.parametrize("environ", [TERMINAL, PIPED], ids=["terminal", "piped"])


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """An observer whose ``from_pp_tensors`` raises ``WORDS``, in a project under ``DIRECTORY``."""
    project = Project(tmp_path_factory.mktemp("literal") / DIRECTORY)
    project.package("plug", {"m": plugin_module(
        "import torch",
        plain_output("Out", 'return {"x": torch.ones(3)}', example=True),
        observer_class("Obs", "Out", "Out()", f"raise KeyError({' '.join(WORDS)!r})"),
    )})
    return project


@WHERE
def test_the_table_shows_an_exception_as_raised(plugin: Project, run_cli, monkeypatch: pytest.MonkeyPatch,
                                                environ: dict[str, str]) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    result = run_cli(str(plugin.root), "--device", "cpu")
    assert result.exit_code == 1, result.output
    shown = Text.from_ansi(result.stdout).plain
    assert "plug.m.Obs" in shown and "2 classes verified: 2 fail" in shown
    for word in WORDS:
        assert word in shown, word
    assert ("\x1b[" in result.stdout) is (environ is TERMINAL)


def test_the_progress_bar_shows_a_class_as_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from ppaux_lint.cli.verify import _with_progress

    for name, value in TERMINAL.items():
        monkeypatch.setenv(name, value)
    target = types.SimpleNamespace(symbol=f"plug.{' '.join(WORDS)}")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)

    def run(on_start, on_result):
        on_start(target)
        on_result(None)
        return "ran"

    assert _with_progress([target], True, run) == "ran"
    assert target.symbol in Text.from_ansi(err.getvalue()).plain
