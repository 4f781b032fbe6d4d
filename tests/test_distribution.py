"""Issue 35, item 1: the distribution a publisher builds, and the installs the manual gives, run as written.

``python -m build`` runs on a snapshot of the working tree (its tracked files and the untracked ones git does
not ignore, committed into a repository of its own so that pip can also install it from a git URL): it makes
the sdist, then the wheel from the unpacked sdist, so a file the build needs and the sdist lacks fails here.
``twine check`` judges both. The wheel is installed alone (not editable) into a fresh venv, which takes
libcst, click, rich and pathspec from the package index as a user's would, and ``check`` on the bundled
sample plugin must print what it prints from the source tree.

``verify`` needs torch, and the CPU build is about a gigabyte installed: rather than install it into each
fresh venv, the venv's ``verify`` reaches the torch of the interpreter running the tests through a ``.pth``
line appended after the venv's own site-packages (a bare path: the ``.pth`` files there, an editable
ppaux-lint's among them, are not run), and the test asserts that ppaux-lint still comes from the wheel.

The README's first command runs exactly as written in another fresh venv, from the snapshot (a clone), and
the manual's git-URL install runs as written but for the URL, which becomes the snapshot's repository: the
machine running the tests may not reach GitHub, and what it would fetch there is this tree once pushed.
tests/test_install_commands.py holds every other install in the manual to one of these forms.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from integrations.test_precommit import GIT_ENV, git
from test_install_commands import URL, console_commands

REPO = Path(__file__).resolve().parents[1]
BIN = "Scripts" if os.name == "nt" else "bin"

pytestmark = pytest.mark.slow


def run(command: list[str] | str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                          shell=isinstance(command, str), check=False)


def tree_files() -> list[str]:
    listed = run(["git", "ls-files", "-co", "--exclude-standard", "-z"], REPO)
    if listed.returncode != 0 or shutil.which("git") is None:
        pytest.skip("not a git checkout: the snapshot is taken with git ls-files")
    return sorted(f for f in listed.stdout.split("\0") if f and (REPO / f).exists())


def clean_env(venv: Path | None = None) -> dict:
    """This process's environment without its Python path and venv (the tests run with PYTHONPATH set to the
    checkout), ``venv`` activated when given, and a wide terminal so that report lines do not wrap."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(GIT_ENV, COLUMNS="250")
    if venv is not None:
        env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / BIN}{os.pathsep}{env.get('PATH', '')}")
    return env


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("dist") / "ppaux-lint"
    for relative in tree_files():
        source, target = REPO / relative, root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    git("init", "-q", cwd=root, env=clean_env())
    git("add", "-A", cwd=root, env=clean_env())
    git("commit", "-q", "-m", "snapshot", cwd=root, env=clean_env())
    return root


@pytest.fixture(scope="module")
def dist(snapshot: Path) -> Path:
    pytest.importorskip("build", reason="build is in the dev extra")
    out = snapshot.parent / "out"
    built = run([sys.executable, "-m", "build", "--outdir", str(out), str(snapshot)], snapshot, clean_env())
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert len(list(out.glob("*.whl"))) == 1 and len(list(out.glob("*.tar.gz"))) == 1, list(out.iterdir())
    return out


def fresh_venv(path: Path) -> Path:
    made = run([sys.executable, "-m", "venv", str(path)], path.parent, clean_env())
    if made.returncode != 0 and "ensurepip" in made.stderr + made.stdout:  # Debian's without python3.X-venv
        pytest.skip(f"this Python makes no venv with pip: {made.stderr.strip()[-200:]}")
    assert made.returncode == 0, made.stderr
    return path


@pytest.fixture(scope="module")
def wheel_venv(dist: Path) -> Path:
    """A fresh venv with the wheel alone installed, its dependencies from the index."""
    venv = fresh_venv(dist.parent / "wheel-venv")
    wheel = next(dist.glob("*.whl"))
    installed = run([str(venv / BIN / "python"), "-m", "pip", "install", "--quiet", str(wheel)], dist.parent,
                    clean_env(venv))
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    return venv


def test_twine_passes_both_and_they_hold_what_is_needed(dist: Path, snapshot: Path) -> None:
    pytest.importorskip("twine", reason="twine is in the dev extra")
    checked = run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(dist.iterdir()))],
                  dist, clean_env())
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr

    # the sdist is the whole tree but the `rules` shortcut link: the suite runs from it
    with tarfile.open(next(dist.glob("*.tar.gz"))) as sdist:
        members = {m.name.partition("/")[2] for m in sdist.getmembers() if m.isfile()}
    tree = {f for f in tree_files() if not (REPO / f).is_symlink()}
    assert tree <= members, sorted(tree - members)

    # the wheel: the package with the rule documents it reads at run time, the licence, the scripts
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    documents = {f"ppaux_lint/rules/{p.name}" for p in (snapshot / "ppaux_lint" / "rules").glob("*.md")}
    assert documents and documents <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: Apache-2.0" in metadata and f"Project-URL: Repository, {URL}" in metadata
    assert 'Requires-Dist: torch>=2.1; extra == "runtime"' in metadata


def test_the_wheel_alone_checks_the_sample_plugin(wheel_venv: Path, snapshot: Path) -> None:
    """``check`` from the wheel, run from the clone's root as the README runs it, prints what the source tree's
    prints; the ppaux-lint it runs is the wheel's, and the venv has no torch."""
    where = run([str(wheel_venv / BIN / "python"), "-c", "import importlib.util as u, ppaux_lint; "
                 "print(ppaux_lint.__file__); print(u.find_spec('torch') is None)"], snapshot.parent,
                clean_env(wheel_venv))
    assert where.returncode == 0, where.stderr
    assert where.stdout.splitlines() == [
        str(next((wheel_venv / "lib").glob("python3*/site-packages/ppaux_lint/__init__.py"))), "True"]

    command = ["check", "fixtures/sample_plugin"]
    from_wheel = run([str(wheel_venv / BIN / "ppaux-lint"), *command], snapshot, clean_env(wheel_venv))
    from_source = run([sys.executable, "-m", "ppaux_lint", *command], snapshot, clean_env())
    assert from_wheel.returncode == 1, from_wheel.stderr
    assert "Found 8 errors." in from_wheel.stdout
    assert (from_wheel.stdout, from_wheel.stderr) == (from_source.stdout, from_source.stderr)


def test_the_wheel_verifies_the_bundled_fixtures(wheel_venv: Path, snapshot: Path) -> None:
    torch = pytest.importorskip("torch", reason="verify needs the runtime extra's torch")
    site = next((wheel_venv / "lib").glob("python3*/site-packages"))
    reach = site / "zz_test_torch.pth"
    reach.write_text(str(Path(torch.__file__).parents[1]) + "\n", encoding="utf-8")
    try:
        where = run([str(wheel_venv / BIN / "python"), "-c", "import ppaux_lint; print(ppaux_lint.__file__)"],
                    snapshot.parent, clean_env(wheel_venv))
        assert where.stdout.strip() == str(site / "ppaux_lint" / "__init__.py"), where.stdout + where.stderr
        for fixture, code in (("clean_plugin", 0), ("sample_plugin", 1)):
            command = ["verify", f"fixtures/{fixture}", "--device", "cpu"]
            from_wheel = run([str(wheel_venv / BIN / "ppaux-lint"), *command], snapshot, clean_env(wheel_venv))
            from_source = run([sys.executable, "-m", "ppaux_lint", *command], snapshot, clean_env())
            assert from_wheel.returncode == code, from_wheel.stdout[-3000:] + from_wheel.stderr[-3000:]
            summary = [line for line in from_wheel.stdout.splitlines() if " classes verified: " in line]
            assert summary == [line for line in from_source.stdout.splitlines() if " classes verified: " in line]
            assert summary and (fixture != "clean_plugin" or summary[0].startswith("2 classes verified: 2 pass"))
    finally:
        reach.unlink()


def test_the_readme_first_command_and_the_git_url_install_run_as_written(snapshot: Path) -> None:
    """The README's first command, as written, in a fresh venv from the clone; then the manual's git-URL
    install of the ``lsp`` extra with the URL the snapshot's repository (the only change to it)."""
    readme = console_commands((REPO / "README.md").read_text(encoding="utf-8"))[0]
    assert readme == "pip install -e . && ppaux-lint check fixtures/sample_plugin"
    venv = fresh_venv(snapshot.parent / "readme-venv")
    first = run(readme, snapshot, clean_env(venv))
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-3000:]  # exits 1: the plugin's findings
    assert "Found 8 errors." in first.stdout

    editors = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    lsp = re.search(r"`(pip install '[^`]*')`", editors)[1]
    assert lsp == f"pip install 'ppaux-lint[lsp] @ git+{URL}'"
    # with a host: the pip a venv gets on Python 3.11 (23.2) refuses a URL requirement without one
    from_git = run(lsp.replace(URL, f"file://localhost{snapshot.as_posix()}"), snapshot.parent, clean_env(venv))
    assert from_git.returncode == 0, from_git.stdout[-3000:] + from_git.stderr[-3000:]
    where = run(["python", "-c", "import pygls, ppaux_lint; print(ppaux_lint.__file__)"], snapshot.parent,
                clean_env(venv))
    assert where.returncode == 0, where.stderr
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert where.stdout.strip() == str(site / "ppaux_lint" / "__init__.py")  # it replaced the editable install
