"""No process that ``check``, ``inventory`` or the server starts imports a module from the checked tree, or from
``PYTHONPATH``, or runs ``PYTHONSTARTUP`` (issue 32).

A repository may hold a file named like a standard-library module (``signal.py``, ``socket.py``,
``pickle.py``). ``multiprocessing`` started its fork server and resource tracker as ``python -c ...`` with
the working directory first on ``sys.path``, so from a terminal (where the spinner's thread made workers
start that way) every cold check ran those files, twice, and looked normal. Here every standard-library
module that lives in a file gets a double:

- in the project's root, the working directory of the run: a file that leaves a marker when imported,
  by any process at all (the tool's own process never has its working directory on ``sys.path``);
- in a directory on ``PYTHONPATH``: one that leaves a marker naming the importing process, then loads the
  real module in its place, so the run goes on as normal. The process the user started reads
  ``PYTHONPATH`` at its start like every Python program, so the markers may name it, and no other.

Each run goes through a pseudo-terminal, as from a shell (the spinner runs), cold and warm, with few
files (one child), many (several workers) and very many (the scan is split too), in a process with one
thread (workers forked) and with two (workers spawned).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ._support import BROKEN_OUTPUT, write_tree

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs a pseudo-terminal and /proc")

PATIENCE = 120.0
THREADED = ("import threading; threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
            "from ppaux_lint.cli.main import main; main()\n")
NEVER_SHADOWED = {"importlib", "encodings"}  # what the doubles themselves need to load the real module


def _stdlib_in_files() -> list[str]:
    """The standard library's top-level modules that a file on ``sys.path`` could stand in for."""
    names = []
    for name in sorted(sys.stdlib_module_names):  # type: ignore[attr-defined]  # 3.10+
        if name in NEVER_SHADOWED or name in sys.builtin_module_names:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin not in (None, "built-in", "frozen"):
            names.append(name)
    return names


def _trap(markers: Path, name: str) -> str:
    return f"open({str(markers / ('cwd.' + name))!r} + '.' + str(__import__('os').getpid()), 'w').close()\n"


def _double(markers: Path, name: str) -> str:
    """A module that says who imported it, then becomes the real ``name``."""
    return textwrap.dedent(f"""\
        import os as _os, sys as _sys
        open({str(markers / ('pythonpath.' + name))!r} + "." + str(_os.getpid()), "w").close()
        from importlib.machinery import PathFinder as _Finder
        from importlib.util import module_from_spec as _from_spec
        _here = _os.path.dirname(_os.path.abspath(__file__))
        _spec = _Finder.find_spec({name!r}, [p for p in _sys.path if _os.path.abspath(p or ".") != _here])
        _module = _from_spec(_spec)
        _sys.modules[{name!r}] = _module
        _spec.loader.exec_module(_module)
        """)


# Python 3.10 reads ``codecs`` and ``encodings`` from PYTHONPATH before a program's first line (3.11 and newer
# freeze them): with these doubles there, no Python 3.10 program starts at all, ppaux-lint or any other.
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.10 cannot start with these doubles")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three projects with the same doubles in their root, a ``PYTHONPATH`` directory of doubles, a
    ``PYTHONSTARTUP`` file and the markers' directory."""
    base = tmp_path_factory.mktemp("shadowed")
    markers = base / "markers"
    markers.mkdir()
    names = _stdlib_in_files()
    assert {"signal", "socket", "pickle", "threading", "selectors", "struct"} <= set(names)
    traps = {f"{name}.py": _trap(markers, name) for name in names}
    outputs = {f"pkg/m{i:04d}.py": BROKEN_OUTPUT.replace("Broken", f"Broken{i}") for i in range(1600)}
    projects = {}
    for size in (3, 60, 1600):
        files = {"pkg/__init__.py": "", **dict(list(outputs.items())[:size]), **traps}
        projects[f"{size} files"] = write_tree(base / f"p{size}", files)
    path_dir = base / "pythonpath"
    path_dir.mkdir()
    for name in names:
        (path_dir / f"{name}.py").write_text(_double(markers, name))
    startup = base / "startup.py"
    startup.write_text(f"open({str(markers / 'startup')!r}, 'w').close()\n")
    return {**projects, "markers": markers, "pythonpath": path_dir, "startup": startup}


def _on_a_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, int, str]:
    """Run ``argv`` with a pseudo-terminal for its standard streams; its pid, exit code and output."""
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(argv, cwd=cwd, stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    code = process.wait(timeout=PATIENCE)
    os.close(leader)
    return process.pid, code, b"".join(chunks).decode("utf-8", "replace")


def _environment(planted: dict[str, Path]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    env.update(PYTHONPATH=str(planted["pythonpath"]), PYTHONSTARTUP=str(planted["startup"]), TERM="xterm",
               COLUMNS="120")
    return env


def _console_script() -> str:
    return str(Path(sys.executable).with_name("ppaux-lint"))


def _imports_elsewhere(markers: Path, owner: int) -> list[str]:
    """Markers left by the working directory's doubles or the startup file (any process), or by a
    ``PYTHONPATH`` double in a process other than ``owner``; each run clears what it left."""
    found = []
    for marker in markers.iterdir():
        if not (marker.name.startswith("pythonpath.") and marker.name.endswith(f".{owner}")):
            found.append(marker.name)
        marker.unlink()
    return sorted(found)


RUNS = {
    "check, cold": ["check", "--no-cache", "--output-format", "concise", "."],
    "check, cache cold then warm": ["check", "--output-format", "concise", "."],
    "inventory": ["inventory", "."],
}


@pytest.mark.parametrize("size", ["3 files", "60 files", "1600 files"])
@pytest.mark.parametrize("how", ["console script", "python -m", "with a second thread"])
@pytest.mark.parametrize("run", list(RUNS))
def test_nothing_of_the_tree_or_the_environment_runs_in_a_child(planted: dict[str, Path], run: str, how: str,
                                                                 size: str) -> None:
    root = planted[size]
    starts = {"console script": [_console_script()], "python -m": [sys.executable, "-m", "ppaux_lint"],
              "with a second thread": [sys.executable, "-I", "-c", THREADED]}[how]
    shutil.rmtree(root / ".ppaux_lint_cache", ignore_errors=True)  # every run starts cold (inventory too)
    repeats = 2 if "warm" in run else 1
    for _ in range(repeats):
        pid, code, output = _on_a_terminal([*starts, *RUNS[run]], root, _environment(planted))
        assert code in (0, 1) and "Traceback" not in output and "ppaux-lint: error" not in output, output
        assert _imports_elsewhere(planted["markers"], pid) == []
        if run != "inventory":
            assert output.count("PPA001") == int(size.split()[0]), output[-2000:]


def test_the_language_server_runs_nothing_of_the_tree(planted: dict[str, Path]) -> None:
    from server.client import LspClient  # tests/ is on sys.path, as for every test package here

    root = planted["60 files"]
    client = LspClient(root, env=_environment(planted))
    try:
        client.initialize(root, debounce=0.05)
        path = root / "pkg" / "m0001.py"
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}})
        assert [d["code"] for d in client.diagnostics(path.as_uri())] == ["PPA001"]
        client.request("shutdown")
        client.notify("exit")
        assert client.wait() == 0, client.log()
    finally:
        client.kill()
    assert _imports_elsewhere(planted["markers"], client.process.pid) == []


def test_a_fork_keeps_nothing_of_the_owners_path_but_the_standard_library(tmp_path: Path) -> None:
    """Whatever a program put on its ``sys.path`` before it asked for a child (a test runner's root, a
    plugin directory), the child imports the standard library from the standard library."""
    trap = tmp_path / "colorsys.py"  # a standard module that nothing here imports before the child does
    trap.write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    code = textwrap.dedent(f"""
        import json, sys
        from ppaux_lint.support.workers import in_child
        sys.path.insert(0, {str(tmp_path)!r})
        print(json.dumps(in_child(lambda name: __import__(name).__file__, "colorsys", timeout=60)))
        """)
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=PATIENCE)
    assert result.returncode == 0, result.stderr
    assert Path(json.loads(result.stdout)).parent == Path(importlib.util.find_spec("colorsys").origin).parent
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("argv", [["check", "--no-cache", "."], ["inventory", "."]])
def test_a_terminal_starts_workers_as_a_pipe_does(tmp_path: Path, argv: list[str]) -> None:
    """The spinner's thread stops while a worker is forked: a run in a terminal forks its workers, as a piped
    run does, instead of taking the slower way that a process with threads must take."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "",
                                          **{f"pkg/m{i}.py": BROKEN_OUTPUT for i in range(60)}})
    forks = tmp_path / "forks.json"
    counting = textwrap.dedent(f"""
        import atexit, json, os
        _forks = []
        def _threads():
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
        os.register_at_fork(before=lambda: _forks.append(_threads()))
        atexit.register(lambda: open({str(forks)!r}, "w").write(json.dumps(_forks)))
        from ppaux_lint.cli.main import main; main()
        """)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    _, code, output = _on_a_terminal([sys.executable, "-I", "-c", counting, *argv], root, env)
    assert code in (0, 1), output
    counts = json.loads(forks.read_text())
    assert counts and set(counts) == {1}, counts  # forked, each time with the spinner's thread stopped
    assert "Checking…" in output, "the spinner never ran"
