"""The human report is written literally, and the same whether or not rich writes it (report/styled.py).

Without styles to show, the report skips rich; these tests hold it to what rich itself writes for the same
pieces, on the text that could tell them apart: tabs after wide characters, markup and emoji codes in
messages and source lines, and control characters already made printable.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from ppaux_lint.report import styled
from ppaux_lint.report.console import make_console

from ._support import cli, write_tree

LINES = [
    [("pkg/mod.py", "bold"), (":3:7: ", ""), ("PPA001", "bold red"), (" sends [/cache] and :smile: [bold]x[/]", "")],
    [("  ", ""), ("2 |", "blue"), (" \tx = '日本\t語'\t# [red]", "")],
    [("  ", ""), ("12 |", "blue"), (" 語a\tb\t\tc ␛[31m", "")],
    [],
]


def _by_rich(lines: list[styled.Line], **options: object) -> str:
    out = io.StringIO()
    text = Text(end="")
    for line in lines:
        for piece, style in line:
            text.append(piece, style or None)
        text.append("\n")
    Console(file=out, highlight=False, soft_wrap=True, **options).print(text, end="")
    return out.getvalue()


def test_plain_report_is_what_rich_writes_without_styles(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    out = io.StringIO()
    styled.write(LINES, out)
    assert out.getvalue() == _by_rich(LINES, color_system=None)
    assert "[/cache] and :smile: [bold]x[/]" in out.getvalue()


@pytest.mark.parametrize(("environ", "shows"), [
    ({"TTY_COMPATIBLE": "1"}, True), ({"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}, False),
    ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": ""}, False), ({"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, False),
    ({"TTY_COMPATIBLE": "1", "TERM": "dumb"}, False), ({}, False),
])
def test_styles_show_where_rich_would_style(monkeypatch: pytest.MonkeyPatch, environ: dict[str, str],
                                            shows: bool) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    out = io.StringIO()  # no terminal
    assert styled.styles_show(out) is shows
    assert (make_console(file=out).color_system is not None) is shows  # as the styled report's console has it


@pytest.mark.parametrize("term", ["xterm-256color", "xterm", "linux", "screen", "vt100", ""])
@pytest.mark.parametrize("colorterm", ["", "truecolor"])
def test_styled_report_without_rich_is_what_rich_writes(monkeypatch: pytest.MonkeyPatch, term: str,
                                                        colorterm: str) -> None:
    """Lines without a tab are styled without rich (the usual report in a terminal): byte for byte what rich
    writes for every style the report uses, whatever colour system rich would pick. A line with a tab goes
    through rich itself."""
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("TERM", term)
    monkeypatch.setenv("COLORTERM", colorterm)
    monkeypatch.delenv("NO_COLOR", raising=False)
    lines = [[(f"{style or 'plain'} [b]x[/b] :smile: 語", style), ("", style), (" · ", "")] for style in styled.SGR]
    lines += [[("", "")], [], LINES[0]]
    out = io.StringIO()
    styled.write(lines, out)
    assert out.getvalue() == _by_rich(lines, force_terminal=True)
    assert out.getvalue().count("\x1b[") == 2 * (len(styled.SGR) + 2)  # each styled piece on and off


def test_styled_report_prints_markup_and_emoji_codes_literally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = io.StringIO()
    styled.write(LINES, out)
    assert "\x1b[" in out.getvalue()
    assert Text.from_ansi(out.getvalue()).plain == _by_rich(LINES, color_system=None)


@pytest.mark.parametrize("environ", [{}, {"NO_COLOR": "", "TTY_COMPATIBLE": "1"}])
def test_a_source_line_with_markup_and_emoji_codes_is_framed_as_written(tmp_path: Path,
                                                                        environ: dict[str, str]) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/out.py": (
        "from sglang.srt.sampling.sampling_observer import DeviceAuxiliaryOutput\n\n\n"
        "class Out(DeviceAuxiliaryOutput):  # [bold]:smile:[/]\n"
        "    def copy_to_host(self):\n        return None\n")})
    result = cli(["check", ".", "--no-cache"], root, env=environ)
    assert result.returncode == 1, result.stderr
    assert "# [bold]:smile:[/]" in Text.from_ansi(result.stdout).plain
