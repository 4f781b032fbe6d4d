"""Under ``--output-format github`` nothing a checked repository holds can speak to the Actions runner
(issue 32, item 10).

The runner reads both of a step's streams for workflow commands (``tests/actions_runner.py``). A file name, a
message, an argument or a source line can hold ``\\n::stop-commands::x`` (every later annotation is ignored),
``::add-mask::`` or the older ``##[...]`` form, which counts anywhere in a line. So in that format every line
ppaux-lint writes is its own command with the text escaped as data: the annotations on standard output, the
warnings and errors on standard error, and a diff (verbatim source) is fenced off with ``stop-commands`` and
a token nobody can guess. Each test runs the installed command in a real process and reads its streams as the
runner would.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from actions_runner import commands

from ._support import AUX, BROKEN_OUTPUT, cli, write_tree

# File names that are commands: on a line of their own, after a carriage return, the old form anywhere, and one
# that starts its line (after spaces) if printed first.
HOSTILE = ("a\n::stop-commands::pwned\n.py", "b\r::add-mask::secret\r.py", "c ##[add-mask]legacy .py",
           "  ::error file=x.py::fake.py", "d%0A::warning::decoded.py")
FIXABLE = f"""\
from dataclasses import dataclass

import torch
from {AUX} import DeviceAuxiliaryOutput


@dataclass
class Scores(DeviceAuxiliaryOutput):
    scores: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return self  # ##[stop-commands]in-source
"""
"""PPA001 with an unsafe fix; its source line holds a command too, which a diff quotes."""


def github(args: list[str], cwd: Path):
    return cli(["check", "--no-cache", "--output-format", "github", *args], cwd)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A project where each hostile name is a file with a finding and a FIFO, which is a warning."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", **{f"pkg/{n}": BROKEN_OUTPUT for n in HOSTILE}})
    for name in HOSTILE:
        os.mkfifo(root / "pkg" / f"fifo{name}")
    return root


def test_file_names_in_annotations_and_warnings_stay_data(hostile):
    done = github(["."], hostile)
    assert done.returncode == 1, done.stderr
    annotations = commands(done.stdout)
    assert [name for name, _, _ in annotations] == ["error"] * len(HOSTILE)
    assert sorted(props["file"] for _, props, _ in annotations) == sorted(f"pkg/{n}" for n in HOSTILE)
    warnings = commands(done.stderr)
    assert [name for name, _, _ in warnings] == ["warning"] * len(HOSTILE)
    assert sorted(data for _, _, data in warnings) == sorted(
        f"ppaux-lint: warning: {hostile / 'pkg' / ('fifo' + n)}: not a regular file, skipped" for n in HOSTILE)


@pytest.mark.parametrize(("args", "said"), [
    (["--stdin-filename", "x.py", "##[stop-commands]t"], "--stdin-filename checks standard input: pass `-` or "
                                                         "no PATHS, not ##[stop-commands]t"),
    (["--select", "##[add-mask]x"], "--select: '##[ADD-MASK]X' matches no rule code (see `ppaux-lint rules`)"),
    (["--stdin-filename", "x.py", "a\n::stop-commands::t"], "--stdin-filename checks standard input: pass `-` "
                                                            "or no PATHS, not a ::stop-commands::t"),
    (["--##[add-mask]y"], "--##[add-mask]y"),  # click's error, before it has parsed --output-format
], ids=["usage-error", "config-error", "newline", "click-usage-error"])
def test_errors_stay_data(tmp_path, args, said):
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": ""})
    done = github(args, root)
    assert done.returncode == 2 and done.stdout == ""
    ((name, properties, data),) = commands(done.stderr)
    assert (name, properties) == ("error", {}) and data.startswith("ppaux-lint: error: ") and said in data, data


def test_a_diff_is_fenced_off(tmp_path):
    """The diff quotes file names and source lines: between ``stop-commands`` and its token the runner acts on
    nothing, and what lies between the two is the diff as the other formats print it."""
    name = "m\n::add-mask::in-name\n.py"
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", f"pkg/{name}": FIXABLE})
    plain = cli(["check", "--no-cache", "--diff", "--unsafe-fixes", "."], root)
    assert plain.returncode == 1 and "##[stop-commands]in-source" in plain.stdout
    done = github(["--diff", "--unsafe-fixes", "."], root)
    assert done.returncode == 1
    (stop, _, token), (resume, _, _) = commands(done.stdout)
    assert stop == "stop-commands" and resume == token and len(token) >= 32
    first, *diff, last = done.stdout.splitlines(keepends=True)
    assert (first, last) == (f"::stop-commands::{token}\n", f"::{token}::\n")
    assert "".join(diff) == plain.stdout
    assert commands(done.stderr) == []  # "Would fix 1 error." holds nothing of the project's


def test_the_files_a_run_would_check_are_fenced_off(hostile):
    """``--show-files`` prints each name at the start of its line: under github, between ``stop-commands`` and
    its token, so ``::stop-commands::pwned`` in a name is only a name."""
    done = github(["--show-files", "."], hostile)
    assert done.returncode == 0, done.stderr
    (stop, _, token), (resume, _, _) = commands(done.stdout)
    assert stop == "stop-commands" and resume == token and len(token) >= 32


def test_an_annotation_holds_no_terminal_control(tmp_path):
    """A class named in a message comes from the file's name, and so does the annotation's ``file``: what would
    reach a terminal (the format run by hand) or a log reader's is shown as its escape, as the human formats
    show it. Such a name then links to no file, and the annotation is shown for the whole run."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/o\x1b]0;t\x07\x9b2J\u202e.py": BROKEN_OUTPUT})
    done = github(["."], root)
    ((name, properties, data),) = commands(done.stdout)
    assert name == "error" and not any(c in data for c in "\x1b\x07\x9b\u202e") and "\\x1b]0;t\\x07" in data, data
    assert properties["file"] == "pkg/o\\x1b]0;t\\x07\\x9b2J\\u202e.py", properties
    assert not any(c in done.stdout for c in "\x1b\x07\x9b\u202e"), done.stdout


# Names that end a line, rewrite the terminal (an OSC title, a colour) or reorder what is shown (RLO).
UNPRINTABLE = ("e\n::stop-commands::pwned\n.py", "f\r::add-mask::secret.py", "g\x1b]0;owned\x07.py",
               "h\x1b[2J.py", "i\u202egnp.py", "j\u2028::error::sep.py")


@pytest.mark.parametrize("args", [["check", "--output-format", "full"], ["check", "--output-format", "concise"],
                                  ["inventory"]])
def test_the_human_formats_show_what_a_name_holds_without_acting_on_it(tmp_path, args):
    """Every character a terminal or a log reader would act on is shown as its escape: no forged line, no
    workflow command, no escape sequence reaches the screen, in the report and in the warnings alike."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", **{f"pkg/{n}": BROKEN_OUTPUT for n in UNPRINTABLE}})
    for name in UNPRINTABLE:
        os.mkfifo(root / "pkg" / f"fifo{name}")
    done = cli([*args, "--no-cache", "."] if args[0] == "check" else [*args, "."], root)
    assert done.returncode in (0, 1), done.stderr
    for stream in (done.stdout, done.stderr):
        assert commands(stream) == []
        assert not any(c in stream for c in "\x1b\x07\u202e\u2028"), stream
    assert "pkg/e\\n::stop-commands::pwned\\n.py" in done.stdout
    assert "fifoe\\n::stop-commands::pwned\\n.py: not a regular file, skipped" in done.stderr


def test_a_quoted_source_line_holds_no_terminal_control(tmp_path):
    """The full format quotes the lines around a finding: an 8-bit CSI (U+009B) or a bidirectional override in
    them is shown as the replacement character, one for one, so the caret stays under the class name."""
    source = BROKEN_OUTPUT.replace("class Broken(DeviceAuxiliaryOutput):",
                                   "class Broken(DeviceAuxiliaryOutput):  # \x9b2J \u202e \u2066evil")
    assert source != BROKEN_OUTPUT
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/mod.py": source})
    done = cli(["check", "--no-cache", "--output-format", "full", "."], root)
    assert done.returncode == 1, done.stderr
    assert not any(c in done.stdout for c in "\x9b\u202e\u2066") and "# \ufffd2J \ufffd \ufffdevil" in done.stdout


def test_a_warning_or_an_error_holds_no_terminal_control(tmp_path):
    """ppaux-lint's own lines under github carry names from the tree (a FIFO skipped) or the command line: what
    a terminal or a log reader acts on is shown as its escape there too, as in the annotations."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/ok.py": BROKEN_OUTPUT})
    os.mkfifo(root / "pkg" / "f\x1b]0;t\x07\u202e.py")
    warned = github(["."], root)
    missing = github(["nope\x1b[2J"], root)
    assert (warned.returncode, missing.returncode) == (1, 2), (warned.stderr, missing.stderr)
    said = {"warning": "f\\x1b]0;t\\x07\\u202e.py: not a regular file", "error": "nope\\x1b[2J"}
    for stream, kind in ((warned.stderr, "warning"), (missing.stderr, "error")):
        ((name, _, data),) = commands(stream)
        assert name == kind and said[kind] in data and not any(c in stream for c in "\x1b\x07\u202e"), stream
