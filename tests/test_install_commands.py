"""The README's one-command installs, the manual's, CONTRIBUTING's set-up and ``.ci/run`` agree, and get the CPU
torch.

``torch==2.13.0`` from PyPI is the multi-GB CUDA build on Linux; only PyTorch's CPU wheel index gives the CPU
one. The pin that worked here did so because this machine's pip finds a CPU wheel on disk, so the commands
name the index themselves, and CI installs torch exactly as a newcomer is told to.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def console_commands(markdown: str) -> list[str]:
    return [line[2:] for line in markdown.splitlines() if line.startswith("$ ")]


def torch_installs(command: str) -> list[list[str]]:
    """Every ``pip install`` in a shell line (split at ``&&``) that installs torch, as its words."""
    code = "\n".join(line for line in command.splitlines() if not line.lstrip().startswith("#"))
    words = [shlex.split(part) for part in re.split(r"&&|;|\n", code) if part.strip()]
    return [w for w in words if "install" in w and any(a.startswith("torch") for a in w)]


def test_the_readme_test_command_installs_the_cpu_torch_first() -> None:
    command = next(c for c in console_commands((REPO / "README.md").read_text(encoding="utf-8"))
                   if "pytest" in c)
    installs = torch_installs(command)
    assert len(installs) == 1, command
    assert installs[0][-2:] == ["--index-url", CPU_INDEX], installs
    assert command.index(CPU_INDEX) < command.index("-e '.[runtime,dev]'")


def test_contributing_and_ci_install_torch_as_the_readme_says() -> None:
    readme = next(c for c in console_commands((REPO / "README.md").read_text(encoding="utf-8")) if "pytest" in c)
    expected = torch_installs(readme)[0][-3:]  # torch==2.13.0 --index-url <cpu>
    contributing = console_commands((REPO / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for source, text in (("CONTRIBUTING.md", "\n".join(contributing)), (".ci/run", ci)):
        installs = [words for words in torch_installs(text) if "pip" in words]
        assert installs and all(words[-3:] == expected for words in installs), (source, installs)


def test_the_manual_starts_with_the_readme_s_two_commands() -> None:
    """docs/getting-started.md repeats the README's quick start: the same two commands, unchanged, in order."""
    readme = console_commands((REPO / "README.md").read_text(encoding="utf-8"))
    manual = console_commands((REPO / "docs" / "getting-started.md").read_text(encoding="utf-8"))
    assert manual[:2] == readme[:2]
    assert readme[0].startswith("pip install -e . && ppaux-lint check") and "pytest" in readme[1], readme[:2]
