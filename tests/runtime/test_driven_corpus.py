"""Driven corpus: ``ppaux-lint verify`` on plugin projects whose bugs live in the observers' own hooks.

Each directory under ``driven_corpus/`` is a plugin project with an ``expected.json`` written before the
tool ran on it (see ``driven_corpus/README.md``): for every output and observer class, the status verify
must give it (``pass``, ``fail`` or ``skip``), why, and the extra CLI flags the verdict depends on
(``["--attn-tp-size", "2"]``). For each project and flag set the project is copied into a temporary
directory and ``ppaux-lint verify . --device cpu --output-format json [FLAGS]`` runs once, in a subprocess
without ``PYTHONPATH``: where sglang is not installed, verify must supply its stand-ins itself. Every
mismatch is listed with the row's message.

``python tests/runtime/test_driven_corpus.py`` prints, for every expectation, whether the tool meets it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.importorskip("torch")

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "driven_corpus"
STATUSES = ("pass", "fail", "skip")
TIMEOUT_S = 900


@dataclass(frozen=True)
class Expect:
    symbol: str
    status: str
    why: str
    flags: tuple[str, ...]
    example: str = ""
    message_contains: tuple[str, ...] = ()
    requires_no_sglang: bool = False


@dataclass
class Verdict:
    expect: Expect
    met: bool
    problems: list[str] = field(default_factory=list)
    row: dict | None = None


def load(project: Path) -> list[Expect]:
    data = json.loads((project / "expected.json").read_text(encoding="utf-8"))
    out = []
    for symbol, entries in data.items():
        for entry in entries if isinstance(entries, list) else [entries]:
            assert entry["status"] in STATUSES, f"{project.name}: {symbol}: bad status {entry['status']!r}"
            out.append(Expect(symbol, entry["status"], entry.get("why", ""), tuple(entry.get("flags", [])),
                              entry.get("example", ""), tuple(entry.get("message_contains", [])),
                              bool(entry.get("requires_no_sglang", False))))
    return out


def sglang_importable() -> bool:
    return importlib.util.find_spec("sglang") is not None


def groups() -> list[tuple[Path, tuple[str, ...], list[Expect]]]:
    """(project, flags, expectations checked in that run), one verify run each."""
    found = []
    for project in sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file()):
        by_flags: dict[tuple[str, ...], list[Expect]] = {}
        for expect in load(project):
            by_flags.setdefault(expect.flags, []).append(expect)
        for flags in sorted(by_flags, key=lambda f: (len(f), f)):
            found.append((project, flags, by_flags[flags]))
    return found


def run_verify(project: Path, flags: tuple[str, ...], workdir: Path) -> tuple[int, list[dict], str]:
    target = workdir / project.name
    shutil.copytree(project, target, ignore=shutil.ignore_patterns(
        "__pycache__", ".ppaux_lint_cache", ".ruff_cache", "EXPECTED.md", "expected.json"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "ppaux_lint", "verify", ".", "--device", "cpu", "--output-format", "json",
               *flags]
    done = subprocess.run(command, cwd=target, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode not in (0, 1):
        raise AssertionError(f"{' '.join(command[2:])} in {project.name} exited {done.returncode}:\n"
                             f"{done.stderr[-4000:]}")
    try:
        rows = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"verify printed no JSON ({exc}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}") from exc
    if isinstance(rows, dict):  # tolerate an envelope around the rows
        rows = next((v for v in rows.values() if isinstance(v, list)), [])
    return done.returncode, rows, done.stderr


def judge(expects: list[Expect], rows: list[dict], flags: tuple[str, ...]) -> tuple[list[Verdict], list[str]]:
    """Each expectation's verdict, and (for the run without flags) the rows nobody expected."""
    by_symbol = {row.get("symbol"): row for row in rows}
    verdicts = []
    no_sglang = not sglang_importable()
    for expect in expects:
        if expect.requires_no_sglang and not no_sglang:
            continue
        row = by_symbol.get(expect.symbol)
        problems = []
        if row is None:
            problems.append(f"no row (rows: {', '.join(sorted(str(s) for s in by_symbol))})")
        else:
            if row.get("status") != expect.status:
                problems.append(f"status {row.get('status')!r}, expected {expect.status!r}")
            kinds = [k for k in str(row.get("example", "")).split("+") if k]
            if expect.example and expect.example not in kinds:
                problems.append(f"example {row.get('example', '<missing>')!r}, expected {expect.example!r}")
            message = str(row.get("message", ""))
            problems += [f"message lacks {text!r}" for text in expect.message_contains if text not in message]
        verdicts.append(Verdict(expect, not problems, problems, row))
    unexpected = []
    if not flags:
        expected = {e.symbol for e in expects}
        unexpected = [f"{row.get('symbol')}: unexpected row, status {row.get('status')!r}: {row.get('message', '')}"
                      for row in rows if row.get("symbol") not in expected]
    return verdicts, unexpected


def describe(verdict: Verdict) -> str:
    e = verdict.expect
    message = verdict.row.get("message", "") if verdict.row else ""
    return (f"{e.symbol} [{' '.join(e.flags) or 'default'}]: {'; '.join(verdict.problems)}\n"
            f"    expected because: {e.why}\n    row message: {message}")


GROUPS = groups()


@pytest.mark.parametrize(("project", "flags", "expects"), [
    pytest.param(p, f, e, id=f"{p.name}[{' '.join(f) or 'default'}]") for p, f, e in GROUPS])
def test_driven_corpus(project: Path, flags: tuple[str, ...], expects: list[Expect], tmp_path: Path) -> None:
    _, rows, stderr = run_verify(project, flags, tmp_path)
    verdicts, unexpected = judge(expects, rows, flags)
    misses = [describe(v) for v in verdicts if not v.met] + unexpected
    if misses:
        tail = f"\n--- verify's stderr (tail) ---\n{stderr[-1500:]}" if stderr.strip() else ""
        pytest.fail(f"{len(misses)} of {len(verdicts)} expectations not met in {project.name} "
                    f"[{' '.join(flags) or 'default'}]:\n" + "\n".join(misses) + tail, pytrace=False)


def main() -> int:  # pragma: no cover - a scoreboard for people
    import tempfile

    total = met = 0
    for project, flags, expects in GROUPS:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                _, rows, _ = run_verify(project, flags, Path(tmp))
            except AssertionError as exc:
                print(f"## {project.name} [{' '.join(flags) or 'default'}]: RUN FAILED\n{exc}")
                total += len(expects)
                continue
        verdicts, unexpected = judge(expects, rows, flags)
        print(f"## {project.name} [{' '.join(flags) or 'default'}]")
        for v in verdicts:
            total += 1
            met += v.met
            got = v.row.get("status") if v.row else "-"
            example = v.row.get("example", "") if v.row else ""
            line = f"  {'met    ' if v.met else 'NOT MET'} {v.expect.symbol}: expected {v.expect.status}, got {got} ({example})"
            if not v.met:
                line += f"\n          {'; '.join(v.problems)}\n          message: {v.row.get('message', '') if v.row else ''}"
            print(line)
        for u in unexpected:
            print(f"  UNEXPECTED {u}")
    print(f"{met} of {total} expectations met")
    return 0 if met == total else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
