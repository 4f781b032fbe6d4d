"""``check``'s processes never outlive it, Ctrl-C is one line, and nothing forks while threads run (issue 24).

A ``check`` killed while it parses must take its workers with it (they used to stay, blocked on a pipe,
for as long as anyone waited); Ctrl-C, which a terminal sends to the whole process group, is one line and
exit code 130, never a worker's traceback; and a process with more than one thread (a test runner, an
imported torch) never forks, since a lock another thread held stays held in the child: its workers are
spawned, isolated (support/children.py). Each case runs both ways: ``forked`` (a plain ``check``, one
thread) and ``spawned`` (the same command in a process with a second thread).

See _processes.py for how the processes are started, found and always killed.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from . import _processes as procs
from ._support import AUX, write_tree

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked, and watched, on Linux only")

TESTS = Path(__file__).resolve().parents[1]  # where ``robustness._processes`` can be imported from
MODES = {"forked": "", "spawned": procs.WITH_A_THREAD}
MOMENTS = (0.0, 0.05, 0.4)  # seconds after the first worker appeared: starting, starting up, parsing


def _output(i: int, methods: int) -> str:
    body = "".join(f"    def helper_{j}(self, x):\n        return [x + {j} for _ in range(3) if x > {j}]\n\n"
                   for j in range(methods))
    return (f"from {AUX} import DeviceAuxiliaryOutput\n\n\nclass Out{i}(DeviceAuxiliaryOutput):\n"
            f"    def copy_to_host(self, copy_tensor):\n        return self\n\n{body}")


def _tree(root: Path, files: int, methods: int) -> Path:
    """``files`` outputs without ``to_pp_tensors`` (one PPA001 each), ``methods`` methods apiece to parse."""
    return write_tree(root, {"pkg/__init__.py": "", **{f"pkg/m{i:04d}.py": _output(i, methods) for i in range(files)}})


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tree the pool parses for seconds, and one a single child parses for about a second (store.py
    parses fewer than 48 files in one bare child)."""
    root = tmp_path_factory.mktemp("trees")
    return {"pool": _tree(root / "pool", 600, 40), "one child": _tree(root / "one_child", 20, 600)}


def _check(mode: str) -> list[str]:
    return procs.python(MODES[mode] + procs.RUN_THE_CLI, "check", "--no-cache", ".")


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("mode", MODES)
def test_a_killed_check_leaves_no_process(trees: dict[str, Path], tmp_path: Path, mode: str,
                                          moment: float) -> None:
    with procs.launched(_check(mode), trees["pool"], tmp_path / "stderr") as run:
        assert procs.wait_for_workers(run), f"the run ended before it started workers: {run.errors()}"
        time.sleep(moment)
        assert run.process.poll() is None, "the run ended before it could be killed"
        os.kill(run.process.pid, signal.SIGKILL)
        run.process.wait()
        assert procs.leftovers(run.process.pid) == {}


@pytest.mark.parametrize("mode", MODES)
def test_a_killed_owner_takes_in_childs_child_with_it(tmp_path: Path, mode: str) -> None:
    """The bare child of a small parse, forked or spawned, dies with the process that waits for it, even
    when it would never end on its own."""
    code = MODES[mode] + "import time; from ppaux_lint.support.workers import in_child; in_child(time.sleep, 600, 900)"
    with procs.launched(procs.python(code), tmp_path, tmp_path / "stderr") as run:
        assert procs.wait_for_workers(run), f"in_child ended before its child started: {run.errors()}"
        os.kill(run.process.pid, signal.SIGKILL)
        run.process.wait()
        assert procs.leftovers(run.process.pid) == {}


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("tree", ["pool", "one child"])
@pytest.mark.parametrize("mode", MODES)
def test_ctrl_c_is_one_line_and_exit_code_130(trees: dict[str, Path], tmp_path: Path, mode: str, tree: str,
                                              moment: float) -> None:
    """SIGINT to the whole process group, as a terminal sends it: the workers must neither print nor stay."""
    with procs.launched(_check(mode), trees[tree], tmp_path / "stderr") as run:
        assert procs.wait_for_workers(run), f"the run ended before it started workers: {run.errors()}"
        time.sleep(moment)
        assert run.process.poll() is None, "the run ended before it could be interrupted"
        os.killpg(run.process.pid, signal.SIGINT)
        code = run.process.wait(timeout=procs.PATIENCE)
        assert (code, run.errors()) == (130, "ppaux-lint: error: interrupted\n")
        assert procs.leftovers(run.process.pid) == {}


# -- no fork while threads run ------------------------------------------------------------------------------

@pytest.mark.parametrize("files", [3, 60])  # one bare child; the pool (store.py: 48 files or more)
@pytest.mark.parametrize("mode", MODES)
def test_a_fork_happens_only_while_one_thread_runs(tmp_path: Path, mode: str, files: int) -> None:
    """Every os.fork() of a check happens while its process runs one thread (CPython 3.12 warns about any
    other), and a check with one thread still forks its workers, the fastest start."""
    root = _tree(tmp_path / "proj", files, 1)
    findings, forks = tmp_path / "findings.json", tmp_path / "forks.json"
    code = procs.COUNTING_FORKS + MODES[mode] + procs.RUN_THE_CLI
    argv = procs.python(code, str(forks), "check", "--no-cache", "--output-format", "json", ".")
    with findings.open("w") as out, procs.launched(argv, root, tmp_path / "stderr", stdout=out) as run:
        assert run.process.wait(timeout=procs.PATIENCE) == 1, run.errors()
        assert [f["code"] for f in json.loads(findings.read_text())] == ["PPA001"] * files  # every file parsed
        threads = json.loads(forks.read_text())
        assert [n for n in threads if n != 1] == []
        if mode == "forked":
            assert threads, "a check with one thread no longer forks its workers"
        assert procs.leftovers(run.process.pid) == {}


@pytest.mark.parametrize(("how", "said"), [
    ("signal.raise_signal, signal.SIGSEGV", "was killed by signal 11"),
    ("os._exit, 139", "exited with code 139"),
    ("int, 'boom'", "exited with code 1"),  # ValueError
    ("time.sleep, 600", "timed out"),
])
def test_a_spawned_child_says_how_it_ended(tmp_path: Path, how: str, said: str) -> None:
    """As test_bad_input.py's forked children do, in a process that runs a second thread and so forks
    nothing itself. A spawned child imports only the standard library and ppaux-lint, so what it runs is
    the standard library's."""
    code = procs.COUNTING_FORKS + MODES["spawned"] + textwrap.dedent(f"""
        import json, os, signal, time
        from ppaux_lint.support.workers import ChildFailed, in_child
        try:
            in_child({how}, timeout={1.0 if "sleep" in how else procs.PATIENCE})
        except ChildFailed as failure:
            print(json.dumps([in_child(abs, -42, timeout={procs.PATIENCE}), str(failure)]))
        """)
    answer, forks = tmp_path / "answer.json", tmp_path / "forks.json"
    with answer.open("w") as out, procs.launched(procs.python(code, str(forks)), TESTS, tmp_path / "stderr",
                                                 stdout=out) as run:
        assert run.process.wait(timeout=procs.PATIENCE) == 0, run.errors()
        assert (json.loads(answer.read_text()), json.loads(forks.read_text())) == ([42, said], [])
        assert procs.leftovers(run.process.pid) == {}


# -- workers hold nothing of their owner's, and end with the object that started them -----------------------

@pytest.mark.parametrize("mode", MODES)
def test_a_worker_holds_no_descriptor_of_its_owner(tmp_path: Path, mode: str) -> None:
    """A pipe the owner opened before its workers started ends when the owner closes it, while the workers
    live: a forked worker that kept the write end made a benchmark's launcher wait for ever for its input to end."""
    code = MODES[mode] + textwrap.dedent("""
        import os, select
        from ppaux_lint.support.workers import Workers
        read_end, write_end = os.pipe()
        workers = Workers(2)
        assert workers.map(abs, [-1, -2, -3]) == [1, 2, 3] and workers.running
        os.close(write_end)
        assert select.select([read_end], [], [], 30)[0] and os.read(read_end, 1) == b"", "a worker holds the pipe"
        workers.close()
        print("ok")
        """)
    with procs.launched(procs.python(code), tmp_path, tmp_path / "stderr", stdout=(tmp_path / "out").open("w")) as run:
        assert run.process.wait(timeout=procs.PATIENCE) == 0, run.errors()
        assert (tmp_path / "out").read_text() == "ok\n"
        assert procs.leftovers(run.process.pid) == {}


@pytest.mark.parametrize("mode", MODES)
def test_workers_never_closed_end_when_their_owner_object_is_collected(tmp_path: Path, mode: str) -> None:
    code = MODES[mode] + textwrap.dedent("""
        import gc, os, time
        from ppaux_lint.support.workers import Workers
        workers = Workers(2)
        workers.map(abs, [-1, -2])
        pids = [child.pid for child in workers._children]
        del workers
        gc.collect()
        for pid in pids:  # reaped by the finalizer: no such process, not even a zombie
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            raise SystemExit(f"worker {pid} outlived its Workers")
        print("ok")
        """)
    with procs.launched(procs.python(code), tmp_path, tmp_path / "stderr", stdout=(tmp_path / "out").open("w")) as run:
        assert run.process.wait(timeout=procs.PATIENCE) == 0, run.errors()
        assert (tmp_path / "out").read_text() == "ok\n"


def test_a_child_s_path_holds_the_standard_library() -> None:
    """The parser's children see only the standard library: its directory, where ``bisect`` lives, whatever
    module that directory is found from (``sysconfig`` is a package from Python 3.13 on)."""
    import bisect

    from ppaux_lint.support.children import standard_library_path

    kept = {os.path.realpath(entry) for entry in standard_library_path()}
    assert os.path.dirname(os.path.realpath(bisect.__file__)) in kept
    assert not any(os.path.basename(entry) in ("site-packages", "dist-packages") for entry in kept)
