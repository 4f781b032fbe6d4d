"""The install command that the messages about a missing extra give.

ppaux-lint is not on PyPI, so ``pip install 'ppaux-lint[runtime]'`` finds nothing: the command names the
repository's git URL, which pip installs from as written. ``REPOSITORY`` is pyproject's
``[project.urls] Repository``, and the manual gives the same command (tests/test_install_commands.py holds
all three to each other; tests/test_distribution.py runs it, with a local clone for the URL).
"""

from __future__ import annotations

REPOSITORY = "https://github.com/ppaux-lint/ppaux-lint"


def pip_install(extra: str) -> str:
    """``pip install`` of ppaux-lint with ``extra``, from the repository, quoted for a POSIX shell."""
    return f"pip install 'ppaux-lint[{extra}] @ git+{REPOSITORY}'"
