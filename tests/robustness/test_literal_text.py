"""Text from the checked project (its paths) and ppaux-lint's own words reach every human format as written.

Rich reads ``[...]`` as markup and ``:name:`` as an emoji code in any plain string it is given; here a project
lives under a directory whose name holds both, and each human format must show that name literally, on a
terminal (rich writes it) and piped. A directory name cannot hold ``/``, so the closing tags (``[/cache]``,
``[/]``) are left to verify's messages (tests/runtime/test_verify_literal.py) and the rule summary below.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.text import Text

from ._support import BROKEN_OUTPUT, cli, write_tree

NAME = "[rank] [bold]x :smile: [red]"
TERMINAL = {"NO_COLOR": "", "TTY_COMPATIBLE": "1"}
PIPED = {"NO_COLOR": "", "TTY_COMPATIBLE": "0"}
WHERE = pytest.mark.parametrize("environ", [TERMINAL, PIPED], ids=["terminal", "piped"])


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the project ``NAME``, with one finding in ``NAME/pkg/out.py``."""
    directory = tmp_path_factory.mktemp("literal")
    write_tree(directory / NAME, {"pkg/__init__.py": "", "pkg/out.py": BROKEN_OUTPUT})
    return directory


def _shown(stdout: str) -> str:
    return Text.from_ansi(stdout).plain


@WHERE
@pytest.mark.parametrize("output_format", ["full", "concise"])
def test_check_shows_a_path_as_written(parent: Path, environ: dict[str, str], output_format: str) -> None:
    result = cli(["check", NAME, "--no-cache", f"--output-format={output_format}"], parent, env=environ)
    assert result.returncode == 1, result.stderr
    assert f"{NAME}/pkg/out.py:4:7:" in _shown(result.stdout)
    if output_format == "full":  # concise is never styled
        assert ("\x1b[" in result.stdout) is (environ is TERMINAL)


@WHERE
def test_inventory_shows_a_path_as_written(parent: Path, environ: dict[str, str]) -> None:
    result = cli(["inventory", str(parent / NAME)], parent, env=environ)
    assert result.returncode == 0, result.stderr
    shown = _shown(result.stdout)
    assert str(parent / NAME) in shown.splitlines()[0]
    assert f"pkg.out.Broken  {NAME}/pkg/out.py:4" in shown
    assert ("\x1b[" in result.stdout) is (environ is TERMINAL)


@WHERE
def test_the_rules_table_shows_a_summary_as_written(monkeypatch: pytest.MonkeyPatch,
                                                    environ: dict[str, str]) -> None:
    """ppaux-lint's own words are printed literally too: a summary may quote ``[]`` or ``[/]``."""
    import dataclasses

    import ppaux_lint.rules as rules
    from ppaux_lint.cli.main import cli as group

    summary = "returns `[/cache]` or `[bold]x[/]` or `[rank]` :smile:"
    first, *others = rules.all_rules()
    monkeypatch.setattr(rules, "all_rules", lambda: [dataclasses.replace(first, summary=summary), *others])
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("COLUMNS", "400")
    result = CliRunner().invoke(group, ["rules"], catch_exceptions=False)
    assert result.exit_code == 0
    assert summary in _shown(result.stdout)
