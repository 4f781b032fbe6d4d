"""``check_options.parse`` reads a ``check`` command line exactly as click does, or leaves it to click.

``cli.main`` runs ``check`` with what ``parse`` gives, without importing click, so every parameter it gives
must be the one click's ``check`` would get from the same line; where it is unsure it gives None and click
parses. Both are compared here over hand-picked lines and thousands of random ones, in a directory holding
each kind of path the options check (a file, a directory, a missing path).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import click
import pytest

from ppaux_lint.cli.check_options import CHECK_OPTIONS, OUTPUT_FORMATS, parse
from ppaux_lint.cli.commands import check


@pytest.fixture()
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "file.py").write_text("x = 1\n")
    (tmp_path / "settings.toml").write_text("")
    (tmp_path / "directory").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def clicks(args: list[str]) -> dict[str, object] | None:
    """The parameters click's ``check`` gets from ``args`` (after ``check``), or None where click refuses them."""
    try:
        with check.make_context("check", list(args)) as context:
            return dict(context.params)
    except (click.ClickException, click.exceptions.Exit):  # a usage error, or --help
        return None


# Lines from the README, pre-commit, editors, CI and the benchmarks: read here, without click.
READ = [
    [],
    ["."],
    ["-q", "."],
    ["--no-cache", "-q", "."],
    ["--output-format", "json", "file.py"],
    ["--output-format=github", "--exit-zero", "."],
    ["--select", "PPA001,PPA002", "--select", "PPA010", "--ignore=PPA021", "file.py", "directory"],
    ["file.py", "--quiet", "--statistics", "--unsafe-fixes"],
    ["--fix", "--unsafe-fixes", "--show-fixes", "."],
    ["--diff", "."],
    ["--config", "settings.toml", "--cache-dir", "directory", "."],
    ["--cache-dir", "missing/cache", "--output-file", "report.txt", "."],
    ["--stdin-filename", "file.py", "-"],
    ["--exclude", "tests", "--force-exclude", "--extend-select", "PPA2", "--extend-ignore=PPA3", "."],
    ["--select", "-q", "."],  # an option's value is the next argument, whatever it looks like
    ["--select=", "."],
    ["--show-files", "."],
]

# Lines ``parse`` leaves to click: help, the end of options, options run together or abbreviated, unknown ones,
# values click refuses, a missing value, paths the options' types refuse.
LEFT = [
    ["--help"],
    ["-h"],
    ["--", "."],
    ["-qq", "."],
    ["--qui", "."],
    ["--bogus"],
    ["-x"],
    ["--output-format", "xml"],
    ["--output-format"],
    ["--quiet=yes"],
    ["--config", "directory"],
    ["--cache-dir", "file.py"],
    ["--output-file", "directory"],
    ["--stdin-filename", "directory"],
    [""],
    ["--config", ""],
]


@pytest.mark.parametrize("args", READ, ids=" ".join)
def test_a_plain_check_line_is_read_as_click_reads_it(here: Path, args: list[str]) -> None:
    params = parse(["check", *args])
    assert params is not None
    assert params == clicks(args)


@pytest.mark.parametrize("args", LEFT, ids=" ".join)
def test_what_only_click_can_say_is_left_to_click(here: Path, args: list[str]) -> None:
    assert parse(["check", *args]) is None


def test_only_check_is_read() -> None:
    for args in ([], ["inventory", "."], ["--debug", "check", "."], ["Check", "."], ["verify"]):
        assert parse(args) is None


def test_random_lines_are_read_as_click_reads_them_or_left_to_it(here: Path) -> None:
    """Every line ``parse`` reads, click reads the same; every line click refuses, ``parse`` leaves to it."""
    pieces = [option for spec in CHECK_OPTIONS for option in spec.flags]
    values = [*OUTPUT_FORMATS, "xml", "", "file.py", "directory", "missing", "settings.toml", "-", "--", "-q",
              "PPA001,PPA0", "a=b", "--quiet"]
    extra = ["-qq", "--qui", "--quiet=1", "--no-cache=", "--output-format=json", "--select=X", "--config=file.py",
             "--", "-", ".", "file.py", "directory", "missing", "-h", "--help", "--bogus"]
    chance = random.Random(20261205)
    read = refused = 0
    for _ in range(3000):
        args = []
        for _ in range(chance.randint(0, 7)):
            roll = chance.random()
            args.append(chance.choice(pieces) if roll < 0.5 else chance.choice(values) if roll < 0.8
                        else chance.choice(extra))
        mine, theirs = parse(["check", *args]), clicks(args)
        if mine is not None:
            assert mine == theirs, args
            read += 1
        if theirs is None:
            assert mine is None, args
            refused += 1
    assert read > 300 and refused > 300  # both kinds of line were tried


def test_a_path_that_cannot_be_read_is_left_to_click(here: Path) -> None:
    """``--config`` must be readable (click's default), ``--output-file`` writable too; ``os.access`` says."""
    if os.geteuid() == 0:
        pytest.skip("root may read and write any file")
    locked = here / "locked.toml"
    locked.write_text("")
    locked.chmod(0)
    try:
        assert parse(["check", "--config", str(locked), "."]) is None and clicks(["--config", str(locked)]) is None
        assert parse(["check", "--output-file", str(locked), "."]) is None
    finally:
        locked.chmod(0o600)


def test_the_table_is_every_option_click_has() -> None:
    """One declaration: click's ``check`` is built from ``CHECK_OPTIONS``, option for option, in its order."""
    options = [param for param in check.params if isinstance(param, click.Option)]
    assert [(tuple(o.opts + o.secondary_opts), o.name) for o in options] == \
        [(spec.flags, spec.name) for spec in CHECK_OPTIONS]
