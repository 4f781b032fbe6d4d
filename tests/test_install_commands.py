"""The README's one-command installs, the manual's, CONTRIBUTING's set-up and ``.ci/run`` agree, and get the CPU
torch.

``torch==2.13.0`` from PyPI is the multi-GB CUDA build on Linux; only PyTorch's CPU wheel index gives the CPU
one. The pin that worked here did so because this machine's pip finds a CPU wheel on disk, so the commands
name the index themselves, and CI installs torch exactly as a newcomer is told to.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

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


# Issue 35, item 1: there is no ``ppaux-lint`` on PyPI, so every install the manual and the messages give is
# either from a clone (``pip install -e .``) or from the repository's git URL. tests/test_distribution.py runs
# one of each form as written (the git URL swapped for a local clone); these hold every other one to a form.
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
URL = PYPROJECT["urls"]["Repository"]
EXTRAS = set(PYPROJECT["optional-dependencies"])
PIP_INSTALL = re.compile(r"""pip install((?: -e)? (?:'[^']*'|"[^"]*"|[^\s`'")]+))""")
FROM_A_CLONE = re.compile(r"-e \.(?:\[(?P<extras>[\w,]+)\])?")
FROM_GIT = re.compile(r"ppaux-lint(?:\[(?P<extras>[\w,]+)\])? @ git\+" + re.escape(URL))


def manual_pages() -> list[Path]:
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("**/*.md"))]


def ppaux_lint_installs(text: str) -> list[str]:
    """What each ``pip install`` of ppaux-lint in ``text`` installs (``-e .``, a requirement), unquoted."""
    targets = [" ".join(shlex.split(m.group(1))) for m in PIP_INSTALL.finditer(text)]
    return [t for t in targets if t.startswith(("-e .", "ppaux-lint", "ppaux_lint", "git+", "."))]


def test_every_install_of_ppaux_lint_in_the_manual_is_from_a_clone_or_the_git_url() -> None:
    seen = []
    for page in manual_pages():
        for target in ppaux_lint_installs(page.read_text(encoding="utf-8")):
            form = FROM_A_CLONE.fullmatch(target) or FROM_GIT.fullmatch(target)
            assert form, f"{page.relative_to(REPO)}: pip install {target} (no such distribution on PyPI)"
            assert set(filter(None, (form["extras"] or "").split(","))) <= EXTRAS, (page, target)
            seen.append(target)
    assert any(FROM_GIT.fullmatch(t) for t in seen) and "-e ." in seen, seen


def test_the_messages_give_the_git_url_install_of_the_extra() -> None:
    """The messages build their command with ``pip_install``: its URL is pyproject's, and no message spells
    a ``pip install`` of ppaux-lint of its own."""
    from ppaux_lint.runtime import MISSING_TORCH
    from ppaux_lint.support.install import REPOSITORY, pip_install

    assert REPOSITORY == URL
    assert FROM_GIT.fullmatch(ppaux_lint_installs(pip_install("runtime"))[0])["extras"] == "runtime"
    assert MISSING_TORCH.endswith(pip_install("runtime"))
    for source in (REPO / "ppaux_lint").rglob("*.py"):
        if source == REPO / "ppaux_lint" / "support" / "install.py":
            continue
        spelled = ppaux_lint_installs(source.read_text(encoding="utf-8"))
        assert not spelled, f"{source.relative_to(REPO)} spells its own install: {spelled}"
