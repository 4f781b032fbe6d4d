"""The run's workers are reused: the modules the index loads on demand are messages to a worker that is up,
not a fork each, and a hung task costs only its own worker.

On the 1,000-file synthetic benchmark, eleven forks (the first parse, then one per module loaded on demand)
were most of a cold run; ``workers.in_child`` is left for the retries of files whose worker died.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

import ppaux_lint.support.children as children
from ppaux_lint.support.workers import Failed, Workers

from ._support import AUX, by_file, run, write_tree

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="parse isolation forks workers on Linux only")

MIXINS = 4


def _project(root):
    """An output whose MRO runs through four plain mixins, each in a module no prefilter token is in: the
    index loads each one on demand."""
    files = {"pkg/__init__.py": ""}
    for i in range(MIXINS):
        files[f"pkg/mixin{i}.py"] = f"class Mixin{i}:\n    def helper{i}(self):\n        return {i}\n"
    imports = "".join(f"from pkg.mixin{i} import Mixin{i}\n" for i in range(MIXINS))
    bases = ", ".join(f"Mixin{i}" for i in range(MIXINS))
    files["pkg/out.py"] = (f"from {AUX} import DeviceAuxiliaryOutput\n{imports}\n\n"
                           f"class Out({bases}, DeviceAuxiliaryOutput):\n    pass\n")
    return write_tree(root, files)


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The task of each child process started from here on (None for a worker)."""
    started: list[object] = []
    start = children.Child.start.__func__  # type: ignore[attr-defined]

    def counted(cls, task=None):
        started.append(task)
        return start(cls, task)

    monkeypatch.setattr(children.Child, "start", classmethod(counted))
    return started


def test_modules_loaded_on_demand_reuse_the_workers(tmp_path, starts: list[object]) -> None:
    root = _project(tmp_path / "proj")
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/out.py": {"PPA001"}}  # the mixins were read: none sends anything
    assert len(starts) <= (os.cpu_count() or 1), f"{len(starts)} children started for one parse and {MIXINS} modules loaded on demand"


@pytest.fixture
def forking() -> None:
    """The test hands workers functions of this module, which only a forked worker has: one spawned (where threads
    run, as they do once an earlier test in this process imported torch) imports nothing from the tests."""
    if not children.can_fork():
        pytest.skip(f"{children.threads()} threads run in this process: workers would be spawned")


def _sleepy(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_a_hung_task_fails_alone_and_the_pool_goes_on(forking: None) -> None:
    workers = Workers(2)
    try:
        began = time.monotonic()
        results = workers.map(_sleepy, [0.0, 600.0, 0.01, 0.0], timeout=1.0)
        assert time.monotonic() - began < 30
        assert results[1] == Failed("timed out")
        assert [results[i] for i in (0, 2, 3)] == [0.0, 0.01, 0.0]
        assert workers.map(_sleepy, [0.0]) == [0.0]  # a new worker takes the hung one's place
    finally:
        workers.close()


def _pid(seconds: float) -> int:
    time.sleep(seconds)  # long enough that each worker is busy with its own task when the other finishes
    return os.getpid()


def test_tasks_go_to_the_worker_they_prefer_and_ran_on_says_where(forking: None) -> None:
    """A scan round sends each worker the files it read before (it holds them): ``prefer`` is followed while
    the preferred worker is up, and a task whose worker is gone goes to any other."""
    workers = Workers(2)
    try:
        first = workers.map(_pid, [0.2, 0.2])
        assert workers.ran_on == first and len(set(first)) == 2
        swapped = [first[1], first[0], first[1], first[0]]
        ran = workers.map(_pid, [0.2] * 4, prefer=swapped)
        assert workers.ran_on == ran
        # Both workers are free when the first two tasks go out, so each takes its own; a worker then takes its
        # own next unless it is left with none while the other is late (stealing), which a loaded machine may see.
        assert ran[:2] == swapped[:2] and set(ran) == set(first)
        assert set(workers.map(_pid, [0.0, 0.0], prefer=[123456789, None])) <= set(first)  # no such worker
    finally:
        workers.close()


def test_spawned_workers_parse(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a fork is unsafe (threads run: the language server's, torch's), workers are spawned with the standard
    library alone on their path, and they parse all the same: on Python 3.10 every parse there failed, since
    the module of the files' types imported ``tomli`` from site-packages."""
    monkeypatch.setattr(children, "can_fork", lambda: False)
    root = _project(tmp_path / "proj")
    assert by_file(run(root, no_cache=True).findings, root) == {"pkg/out.py": {"PPA001"}}


def test_a_worker_collects_garbage_when_its_owner_does_not(forking: None) -> None:
    """``check`` in a process of its own collects nothing (collector.off_until_exit); a worker reads file after
    file for the whole run, and collects as before."""
    import gc

    gc.disable()
    try:
        workers = Workers(1)
        try:
            assert workers.map(_collecting, [None]) == [True]
        finally:
            workers.close()
        assert not gc.isenabled()
    finally:
        gc.enable()


def _collecting(_: object) -> bool:
    import gc

    return gc.isenabled()


@pytest.mark.parametrize("step", ["waitid", "waitpid"])
def test_a_wait_cut_short_by_ctrl_c_loses_no_exit_code(monkeypatch: pytest.MonkeyPatch, step: str,
                                                      forking: None) -> None:
    """Ctrl-C can land just after the system call of a step of ``Child.wait`` returns (the status read, or the child
    reaped); the wait that follows (``_stop``'s finalizer) still gives the child's exit code, and ``kill`` no longer
    signals its pid."""
    child = children.Child.start()
    real = getattr(os, step)

    def then_interrupted(*args):
        real(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, step, then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        child.wait()
    monkeypatch.setattr(os, step, real)
    assert child.wait() == 0  # it leaves as its task pipe closes
    signalled = []
    monkeypatch.setattr(os, "kill", lambda *args: signalled.append(args))
    child.kill()
    assert signalled == []


def _planned_project(root):
    """An observer that builds its output through a factory, without ``from_pp_tensors`` (PPA002): the fix adds an
    import of ``Out`` to ``obs.py``, once a search of what ``out.py`` imports at import time finds no cycle back to
    ``obs``. ``out.py``'s imports are plain modules no prefilter token is in: fix planning loads each one."""
    files = {"pkg/__init__.py": ""}
    for i in range(MIXINS):
        after = f"import pkg.plain{i + 1}\n" if i + 1 < MIXINS else ""
        files[f"pkg/plain{i}.py"] = f"{after}\n\ndef value{i}():\n    return {i}\n"
    files["pkg/out.py"] = ("from dataclasses import dataclass\n\nimport torch\n\nimport pkg.plain0\n\n\n"
                           "@dataclass\nclass Out:\n    ids: torch.Tensor\n\n"
                           "    def copy_to_host(self, c):\n        return self\n\n"
                           "    def to_pp_tensors(self):\n        return {'ids': self.ids}\n\n\n"
                           "def make(ids):\n    return Out(ids)\n")
    files["pkg/obs.py"] = ("from pkg.out import make\n\n\nclass Obs:\n    def is_active(self, info):\n"
                           "        return True\n\n    def after_sample(self, state, ids):\n        return make(ids)\n")
    return write_tree(root, files)


def test_the_modules_fix_planning_loads_reuse_the_analysis_workers(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                                   starts: list[object]) -> None:
    """``check`` plans its fixes before the analysis's workers stop (``analyze(close=False)``): each module the
    import-cycle search loads is a message to one of them, where a stopped store started a process for each."""
    from ppaux_lint.cli.checking import check_project
    from ppaux_lint.project.loading import Options

    root = _planned_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    findings = check_project(["."], Options(no_cache=True)).findings
    assert [(f.code, f.fix is not None) for f in findings] == [("PPA002", True)]
    assert len(starts) <= (os.cpu_count() or 1), f"{len(starts)} children started; {MIXINS} modules planned through"
