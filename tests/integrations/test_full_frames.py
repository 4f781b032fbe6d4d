"""The ``full`` report's code frame quotes the line a finding is on, as the interpreter numbers lines.

Python ends a line only at ``\\n``, ``\\r\\n`` or ``\\r``; ``str.splitlines`` also ends one at a form feed,
``\\x0b``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028`` and ``\\u2029``. A frame split the second way quoted
the wrong line under a right line and column. The characters themselves are drawn as one visible symbol
each, so the terminal neither breaks the quoted line nor moves the caret off the name.
"""

from __future__ import annotations

import re

import pytest

from .conftest import run_cli

OUTPUT = '''\
from dataclasses import dataclass

import torch
from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput
# {separators} in a comment, where Python takes any of them
s = "{separators}"

@dataclass
class ScoreOutput(DeviceAuxiliaryOutput):  # {separator}
    scores: torch.Tensor

    def copy_to_host(self, copy_tensor):
        return self
'''

SEPARATORS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def frame_of(stdout: str) -> tuple[str, str, str]:
    """The finding's header, the quoted line that carries its number, and the caret line under it."""
    lines = stdout.splitlines()  # the report's own lines: it must not contain any separator itself
    header = next(line for line in lines if "PPA001" in line)
    number = re.search(r":(\d+):(\d+): PPA001", header)
    assert number is not None
    quoted = next(i for i, line in enumerate(lines) if re.match(rf"\s+{number.group(1)} \| ", line))
    return header, lines[quoted], lines[quoted + 1]


@pytest.mark.parametrize("separator", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_the_frame_quotes_the_class_line_whatever_separates_lines(project, separator: str) -> None:
    project({"outputs.py": OUTPUT.format(separators=separator * 3, separator=separator)})
    result = run_cli("check", "--output-format", "full", "outputs.py")
    assert result.exit_code == 1
    header, quoted, carets = frame_of(result.stdout)
    assert header.startswith("outputs.py:9:7: PPA001"), header
    assert "class ScoreOutput(DeviceAuxiliaryOutput):" in quoted, quoted
    assert separator not in result.stdout
    start = quoted.index("ScoreOutput")
    assert carets.index("^") == start and carets[start:].startswith("^" * len("ScoreOutput"))


def test_the_caret_stays_under_a_name_after_a_tab(project) -> None:
    text = OUTPUT.format(separators="", separator="").replace("class ScoreOutput", "class\tScoreOutput")
    project({"outputs.py": text})
    result = run_cli("check", "--output-format", "full", "outputs.py")
    _, quoted, carets = frame_of(result.stdout)
    assert carets.expandtabs().index("^") == quoted.expandtabs().index("ScoreOutput")
