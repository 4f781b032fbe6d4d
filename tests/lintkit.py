"""Shared helpers for the ``check`` tests: throwaway projects, running the engine, locating source text.

Every resolution or rule case builds its own small project with
``make_project`` so that cases cannot leak into one another. The engine is
driven through its public entry point (``ppaux_lint.check.engine.analyze``), which
resolves relative paths against the working directory, so callers chdir into
the project first (the ``lint_project`` fixture in ``conftest.py`` does).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ppaux_lint.check.engine import Analysis, Options, analyze
from ppaux_lint.facts.findings import Finding

AUX_MODULE = "sglang.srt.managers.auxiliary_output"
OLD_AUX_MODULE = "sglang.srt.sampling.sampling_observer"
OBSERVER_MODULE = "sglang.srt.sampling.sampling_observer"
PP_MODULE = "sglang.srt.sampling.sampling_observer_pp"
OUTPUT_ROOT = f"{AUX_MODULE}.DeviceAuxiliaryOutput"
OLD_OUTPUT_ROOT = f"{OLD_AUX_MODULE}.DeviceAuxiliaryOutput"
OBSERVER_ROOT = f"{OBSERVER_MODULE}.SamplingObserver"

IMPORT_AUX = f"from {AUX_MODULE} import DeviceAuxiliaryOutput\n"
IMPORT_OBS = f"from {OBSERVER_MODULE} import SamplingObserver\n"

SCORE_OUTPUTS = IMPORT_AUX + textwrap.dedent("""

    class ScoreOutput(DeviceAuxiliaryOutput):
        def __init__(self, scores, ranks):
            self.scores = scores
            self.ranks = ranks

        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensors(self):
            return {"scores": self.scores, "ranks": self.ranks}
    """)
SCORE_OBSERVERS = IMPORT_OBS + textwrap.dedent("""\
    from pkg.outputs import ScoreOutput


    class ScoreObserver(SamplingObserver):
        def after_sample(self, state, token_ids):
            return ScoreOutput(state, token_ids)

        def from_pp_tensors(self, tensors):
            return ScoreOutput(tensors["scores"], tensors["ranks"])
    """)
"""``pkg/outputs.py`` and ``pkg/observers.py``: a pair whose contract (the keys "scores" and "ranks") spans
two files, for the tests that break it from either end and expect the finding through both."""

PYPROJECT_HEAD = '[project]\nname = "proj"\nversion = "0.0.0"\n'


def make_project(root: Path, files: Mapping[str, str], config: str = "", *, pyproject: bool = True,
                 packages: bool = True) -> Path:
    """Write ``files`` (dedented) under ``root`` and return ``root``.

    ``config`` is raw TOML appended to ``pyproject.toml`` (e.g. a ``[tool.ppaux-lint]`` table).
    With ``packages`` every directory holding a ``.py`` file gets an ``__init__.py`` unless the test
    wrote one, except a top-level ``src/`` (the src layout) and the root itself.
    """
    root.mkdir(parents=True, exist_ok=True)
    if pyproject:
        (root / "pyproject.toml").write_text(PYPROJECT_HEAD + ("\n" + textwrap.dedent(config) if config else ""),
                                             encoding="utf-8")
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    if packages:
        for relative in files:
            if not relative.endswith(".py"):
                continue
            parent = (root / relative).parent
            while parent not in (root, root / "src"):
                init = parent / "__init__.py"
                if not init.exists():
                    init.write_text("", encoding="utf-8")
                parent = parent.parent
    return root


def run_analysis(paths: Sequence[str | Path] = (".",), **options) -> Analysis:
    return analyze(list(paths), Options(**options))


def lint(paths: Sequence[str | Path] = (".",), **options) -> list[Finding]:
    return run_analysis(paths, **options).findings


def reported(findings: Iterable[Finding]) -> set[tuple[str, str]]:
    """{(symbol, code)}: what was reported, independent of positions and wording."""
    return {(f.symbol, f.code) for f in findings}


def codes(findings: Iterable[Finding]) -> set[str]:
    return {f.code for f in findings}


def relpath(finding: Finding, root: Path) -> str:
    return Path(finding.path).resolve().relative_to(root.resolve()).as_posix()


def positions(findings: Iterable[Finding], root: Path) -> set[tuple[str, int, int, str]]:
    """{(path relative to root, line, column, code)}."""
    return {(relpath(f, root), f.span.line, f.span.column, f.code) for f in findings}


def only(findings: Sequence[Finding], code: str | None = None) -> Finding:
    chosen = [f for f in findings if code is None or f.code == code]
    assert len(chosen) == 1, f"expected exactly one {code or 'finding'}, got {[(f.code, f.symbol) for f in findings]}"
    return chosen[0]


def locate(text: str, needle: str, nth: int = 1) -> tuple[int, int]:
    """1-based (line, column) of the ``nth`` occurrence of ``needle`` in the dedented ``text``."""
    text = textwrap.dedent(text).lstrip("\n")
    start = -1
    for _ in range(nth):
        start = text.find(needle, start + 1)
        assert start >= 0, f"{needle!r} occurs fewer than {nth} times"
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return line, column


def span_of(finding: Finding) -> tuple[int, int]:
    return finding.span.line, finding.span.column


def run_console(args: Sequence[str], cwd: Path, *, module: bool = False, env: Mapping[str, str] | None = None,
                timeout: float = 60) -> subprocess.CompletedProcess:
    """Run the installed ``ppaux-lint`` console script (or ``python -m ppaux_lint``) in a subprocess."""
    if module:
        command = [sys.executable, "-m", "ppaux_lint", *args]
    else:
        script = Path(sys.executable).with_name("ppaux-lint")
        command = [str(script) if script.exists() else "ppaux-lint", *args]
    full_env = dict(os.environ)
    full_env.pop("FORCE_COLOR", None)
    full_env.update(env or {})
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env,
                          check=False)


def roles_of(analysis: Analysis, fqn: str) -> frozenset[str]:
    """The roles the index gave a class; a class the engine never classified (it skips classes that
    cannot matter) has none."""
    info = analysis.classes.get(fqn)
    if info is None and fqn in analysis.index.classes and hasattr(analysis.index, "info"):
        info = analysis.index.info(fqn)
    return frozenset() if info is None else info.roles


def as_from_a_terminal() -> None:
    """``Popen``'s ``preexec_fn`` for a child that a test interrupts: SIGINT's default action, as a terminal's
    child has it. A shell starts a background job (``pytest ... &``) with SIGINT ignored, which its children
    inherit, and a process that ignores SIGINT cannot show what Ctrl-C does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
