"""A plain ``check`` that nothing changed since replays its findings (``replay.py``), and only then.

Every case warms the record with one run, changes one thing that decides the findings, and expects the
next run to analyse again and to agree with a run that never saw a cache. The cases cover each kind of input
the record lists: a file's content (also at the same size), a file added or removed (also in a directory
that held no module, and a package's ``__init__.py``), a base class in a file nobody asked about, the
project's config and a sub-project's, a ``.gitignore`` at the root and below it, the command's own options,
ppaux-lint's own modules, and a project beside a loose file that stops being one.
"""

from __future__ import annotations

import binascii
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ppaux_lint.cache import replay
from ppaux_lint.cache.directory import CACHE_DIR_NAME
from ppaux_lint.cli.checking import Checked, check_project
from ppaux_lint.project.loading import Options

from ._support import AUX, BROKEN_OUTPUT, chdir, key, write_tree

BASE = f"""\
from {AUX} import DeviceAuxiliaryOutput


class Base(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self
"""
LEAF = """\
from pkg.base import Base


class Leaf(Base):
    def to_pp_tensors(self):
        return {}
"""
FILES = {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/leaf.py": LEAF, "pkg/broken.py": BROKEN_OUTPUT,
         "docs/README.txt": "no modules here, yet\n"}


def check(root: Path, paths: tuple[str, ...] = (".",), **options) -> Checked:
    with chdir(root):
        return check_project(list(paths), Options(**options))


def _touch(path: Path, text: str) -> None:
    """Rewrite ``path``, making sure its mtime moves even on a coarse clock."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    if path.stat().st_mtime_ns == before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


def _same_size_edit(root: Path) -> None:
    # the same number of bytes, and Leaf's PPA010 (it sends an empty dict) becomes PPA017 (a misspelt method)
    _touch(root / "pkg/leaf.py", LEAF.replace("def to_pp_tensors", "def to_pp_tensorz"))


CHANGES: dict[str, Callable[[Path], None]] = {
    "an asked file's content": lambda root: _touch(root / "pkg/broken.py", BROKEN_OUTPUT + "\n\n# edited\n"),
    "a file's content at the same size": _same_size_edit,
    "a file added": lambda root: _touch(root / "pkg/more.py", BROKEN_OUTPUT.replace("Broken", "More")),
    "a file removed": lambda root: (root / "pkg/broken.py").unlink(),
    "a base class nobody asked about": lambda root: _touch(
        root / "pkg/base.py", BASE + "\n    def to_pp_tensors(self):\n        return {}\n"),
    "the project's config": lambda root: _touch(
        root / "pyproject.toml", '[project]\nname = "proj"\nversion = "0"\n[tool.ppaux-lint]\nignore = ["PPA001"]\n'),
    "a .gitignore": lambda root: _touch(root / ".gitignore", "pkg/broken.py\n"),
    "a .gitignore in a sub-directory": lambda root: _touch(root / "pkg" / ".gitignore", "broken.py\n"),
    "a sub-project's config": lambda root: _touch(root / "pkg" / "pyproject.toml", '[tool.ppaux-lint]\nignore = ["PPA001"]\n'),
    "a module in a directory that had none": lambda root: _touch(root / "docs" / "conf.py", BROKEN_OUTPUT),
    "a package marker removed": lambda root: (root / "pkg" / "__init__.py").unlink(),
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "proj", FILES)


def test_a_second_run_replays_the_first(root: Path) -> None:
    first = check(root)
    second = check(root)
    assert not first.replayed and second.replayed
    assert key(second.findings) == key(first.findings) == key(check(root, no_cache=True).findings)
    assert "PPA001" in {f.code for f in first.findings}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_that_decides_the_findings_is_analysed_again(root: Path, change: str) -> None:
    check(root)
    CHANGES[change](root)
    again = check(root)
    assert not again.replayed
    assert key(again.findings) == key(check(root, no_cache=True).findings)
    assert check(root).replayed  # and the new state is recorded in turn


LOOSE_ONE = """\
from {0} import Base


class One(Base):
    pass


SAMPLE = One()
"""
# ways ``loose/lib`` stops being a project of its own beside the loose file, and so becomes part of its project
# (discover.py ``_BesideLooseFiles``): then One's base resolves and One gets its PPA001. A pyproject.toml that
# configures another tool still starts the names below it (``shared``); without one, ``lib.shared``.
BESIDE: dict[str, tuple[str, dict[str, str], Callable[[Path], None]]] = {
    "its pyproject.toml no longer makes a project": (
        "shared", {"lib/pyproject.toml": '[project]\nname = "lib"\nversion = "0"\n'},
        lambda lib: _touch(lib / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")),
    "its pyproject.toml removed": (
        "lib.shared", {"lib/pyproject.toml": '[project]\nname = "lib"\nversion = "0"\n'},
        lambda lib: (lib / "pyproject.toml").unlink()),
    "its .git removed": ("lib.shared", {"lib/.git/HEAD": "ref: refs/heads/main\n"},
                         lambda lib: shutil.rmtree(lib / ".git")),
}


@pytest.mark.parametrize("change", sorted(BESIDE))
def test_a_project_beside_a_loose_file_that_stops_being_one_is_analysed_again(tmp_path: Path, change: str) -> None:
    if any((d / m).exists() for d in (tmp_path, *tmp_path.parents) for m in ("pyproject.toml", ".git")):
        pytest.skip("a pyproject.toml or .git above the temporary directory")
    module, files, make_it_part = BESIDE[change]
    loose = tmp_path / "loose"
    for relative, text in {"one.py": LOOSE_ONE.format(module), "lib/shared.py": BASE, **files}.items():
        (loose / relative).parent.mkdir(parents=True, exist_ok=True)
        (loose / relative).write_text(text, encoding="utf-8")
    assert not check(loose, ("one.py",)).findings  # lib is a project of its own: Base is not resolved
    make_it_part(loose / "lib")
    again = check(loose, ("one.py",))
    assert not again.replayed
    assert [(f.code, f.symbol) for f in again.findings] == [("PPA001", "one.One")]
    assert key(again.findings) == key(check(loose, ("one.py",), no_cache=True).findings)


def test_the_same_size_edit_changes_the_findings(root: Path) -> None:
    """The case above proves something only if the edit matters: it changes Leaf's finding."""
    def leaf() -> set[str]:
        return {f.code for f in check(root).findings if f.symbol == "pkg.leaf.Leaf"}

    before = leaf()
    _same_size_edit(root)
    assert before == {"PPA010"}
    assert leaf() == {"PPA017"}


@pytest.mark.parametrize("options", [{"select": ("PPA002",)}, {"ignore": ("PPA001",)}, {"exclude": ("pkg/leaf.py",)}])
def test_each_command_has_its_own_record(root: Path, options: dict) -> None:
    plain = check(root)
    other = check(root, **options)
    assert not other.replayed
    assert key(other.findings) == key(check(root, no_cache=True, **options).findings)
    assert check(root).replayed and key(check(root).findings) == key(plain.findings)


def test_asking_about_other_paths_is_another_command(root: Path) -> None:
    check(root)
    one = check(root, ("pkg/leaf.py",))
    assert not one.replayed
    assert {f.path for f in one.findings} == {str(root / "pkg/leaf.py")}


def test_an_edited_ppaux_lint_is_another_tool(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              request: pytest.FixtureRequest) -> None:
    package = tmp_path / "tool"
    (package / "rules").mkdir(parents=True)
    module = package / "rules" / "ppa999.py"
    module.write_text("A = 1\n")
    monkeypatch.setattr(replay, "_PACKAGE", package)
    replay._tool_files.cache_clear()  # the listing is kept for the process: list the stand-in instead
    request.addfinalizer(replay._tool_files.cache_clear)
    check(root)
    assert check(root).replayed
    _touch(module, "A = 2\n")
    assert not check(root).replayed


@pytest.mark.parametrize("garbage", [b"", b"not json", b'{"command": 1}', b"[]", b'{"command": "x", "paths": 3}'])
def test_a_record_that_cannot_be_read_back_is_a_miss(root: Path, garbage: bytes) -> None:
    expected = key(check(root).findings)
    [record] = (root / CACHE_DIR_NAME / "runs").iterdir()
    record.write_bytes(garbage)
    again = check(root)
    assert not again.replayed and key(again.findings) == expected


def test_a_forged_record_with_the_right_key_is_checked_field_by_field(root: Path) -> None:
    check(root)
    [record] = (root / CACHE_DIR_NAME / "runs").iterdir()
    data = json.loads(record.read_text())
    data["findings"] = [{"!": "Finding", "code": 3}]  # the inputs still match: only the findings are wrong
    record.write_text(json.dumps(data))
    again = check(root)
    assert not again.replayed and "PPA001" in {f.code for f in again.findings}


@pytest.mark.parametrize("stats", ["", "not base64!", "AAAA", None])
def test_a_record_whose_stats_do_not_fit_its_paths_is_a_miss(root: Path, stats: str | None) -> None:
    """The command matches, so only the packed stats stand between a forged record and a replay."""
    expected = key(check(root).findings)
    [record] = (root / CACHE_DIR_NAME / "runs").iterdir()
    data = json.loads(record.read_text())
    data["stats"] = stats
    record.write_text(json.dumps(data))
    again = check(root)
    assert not again.replayed and key(again.findings) == expected


@pytest.mark.parametrize("keep", [lambda path: False, lambda path: not path.startswith("/")],
                         ids=["no-inputs", "only-the-project's-files"])
def test_a_record_that_leaves_out_what_every_record_lists_is_a_miss(root: Path, keep) -> None:
    """A repository may commit a cache: a record listing no input (or only what a repository can predict, its
    own files) would match whatever the code becomes, replaying a clean run forever. Every record this code
    writes lists ppaux-lint's own installation, whose stat another machine cannot match."""
    check(root)
    [record] = (root / CACHE_DIR_NAME / "runs").iterdir()
    data = json.loads(record.read_text())
    kept = [number for number, path in enumerate(data["paths"]) if keep(path)]
    stats = binascii.a2b_base64(data["stats"])
    size = len(stats) // len(data["paths"])
    data["paths"] = [data["paths"][n] for n in kept]
    data["stats"] = binascii.b2a_base64(b"".join(stats[n * size:(n + 1) * size] for n in kept), newline=False).decode()
    data["findings"], data["files_checked"] = [], 0
    record.write_text(json.dumps(data))
    again = check(root)
    assert not again.replayed and "PPA001" in {f.code for f in again.findings}


def test_no_cache_and_overlays_neither_replay_nor_record(root: Path) -> None:
    check(root, no_cache=True)
    check(root, overlays={str(root / "pkg/leaf.py"): LEAF.encode()})
    assert not (root / CACHE_DIR_NAME / "runs").exists()


def test_fixes_survive_the_replay(tmp_path: Path) -> None:
    """The renderers show which findings have a fix: a replayed run must say the same."""
    root = write_tree(tmp_path / "fixable", {"pkg/__init__.py": "", "pkg/near.py": f"""\
from {AUX} import DeviceAuxiliaryOutput


class Near(DeviceAuxiliaryOutput):
    def copy_to_host(self, copy_tensor):
        return self

    def to_pp_tensor(self):
        return {{}}
"""})
    first, second = check(root), check(root)
    assert second.replayed
    assert [f.fix for f in second.findings] == [f.fix for f in first.findings]
    assert any(f.fix is not None for f in first.findings)


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ppaux_lint", "check", *args], cwd=root, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("output_format", ["full", "concise", "json", "sarif", "github"])
def test_a_replayed_run_prints_what_the_analysis_printed(root: Path, output_format: str) -> None:
    first = _cli(root, "--output-format", output_format)
    second = _cli(root, "--output-format", output_format)
    assert (second.returncode, second.stdout) == (first.returncode, first.stdout) == (1, second.stdout)
    assert "PPA001" in second.stdout


def test_a_replayed_run_loads_nothing_of_the_analysis(root: Path) -> None:
    # A replay decodes the findings' model (facts.findings), and nothing of the analysis: no summary model, no rule.
    probe = ("import sys\nfrom ppaux_lint.cli.main import cli\ntry:\n    cli(['check', '.'])\nexcept SystemExit:\n"
             "    pass\nprint(sorted(m for m in sys.modules if m.startswith(('ppaux_lint.index.project_index', 'ppaux_lint.rules.',"
             " 'ppaux_lint.facts.summary', 'ppaux_lint.cache.store', 'ppaux_lint.check.engine'))))")

    def loaded() -> list[str]:
        done = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=120)
        return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))

    assert "ppaux_lint.check.engine" in loaded()  # the first run analyses (the probe can see a load)
    time.sleep(0.01)
    assert loaded() == []


def test_a_file_edited_while_the_analysis_runs_is_analysed_again(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record keeps the stat each input had before the analysis read it, so an edit made meanwhile
    (after the file was read, before the record was written) fails the next replay."""
    from ppaux_lint.check import engine

    real = engine.analyze

    def analyze_then_edit(*args, **kwargs):
        analysis = real(*args, **kwargs)
        _touch(root / "pkg/broken.py", BROKEN_OUTPUT + "\n\n# edited meanwhile\n")
        return analysis

    monkeypatch.setattr(engine, "analyze", analyze_then_edit)
    check(root)
    monkeypatch.undo()
    assert not check(root).replayed


def test_a_file_edited_right_after_the_cold_scan_read_it_is_analysed_again(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a cold run the record takes each file's stat from the scan, as the scan opened the file, before it
    read it (``Record.stat_inputs``): an edit landing just after that read fails the next replay."""
    from ppaux_lint.cache import store

    real = store._read
    edited: list[str] = []

    def read_then_edit(path: str) -> tuple[bytes, os.stat_result]:
        read = real(path)
        if path.endswith("broken.py") and not edited:
            edited.append(path)
            _touch(Path(path), BROKEN_OUTPUT.replace("class Broken", "class Edited"))
        return read

    monkeypatch.setattr(store, "_read", read_then_edit)
    first = check(root)
    monkeypatch.undo()
    assert edited and {f.symbol.rsplit(".", 1)[-1] for f in first.findings if f.code == "PPA001"} >= {"Broken"}
    second = check(root)
    assert not second.replayed
    assert "Edited" in {f.symbol.rsplit(".", 1)[-1] for f in second.findings if f.code == "PPA001"}


def test_a_file_the_cold_scan_could_not_read_never_replays(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan took no stat of a file it could not open, so the record holds one that matches nothing, and
    the file, readable again, is analysed rather than replayed as unreadable."""
    from ppaux_lint.cache import store

    real = store._read

    def denied(path: str) -> tuple[bytes, os.stat_result]:
        if path.endswith("broken.py"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(store, "_read", denied)
    first = check(root)
    monkeypatch.undo()
    assert any(f.code == "PPA000" and f.path.endswith("broken.py") for f in first.findings)
    second = check(root)
    assert not second.replayed
    assert {f.code for f in second.findings if f.path.endswith("broken.py")} == {"PPA001"}
    assert check(root).replayed  # and once stat before a read, it replays again
