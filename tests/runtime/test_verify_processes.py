"""What a class's own processes, signals, threads and exits can do to ``verify``: cost that class's row, no more.

Each test writes a small hostile plugin project and runs ``ppaux-lint verify`` on it as a process of its own,
in a session of its own, with a marker in its environment that every process it starts inherits (including
those that leave its session). A hang is bounded by the subprocess's timeout, and every marked process is
killed when the test ends, whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from lintkit import as_from_a_terminal

from .conftest import Project, observer_class, output_class, plugin_module, processes_with

pytest.importorskip("torch")
if not sys.platform.startswith("linux"):
    pytest.skip("the processes are found through /proc", allow_module_level=True)

HANG_BOUND = 240  # far beyond what a run takes: reaching it means verify hung
SETTLE = 60.0  # how long processes may take to go once the run that started them has ended
IMPORTS = """
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import torch
"""
SLEEPER = '[sys.executable, "-c", "import time; time.sleep(600)"]'


def _fork_sleeper() -> str:
    """Statements that fork a process which leaves the session and sleeps, holding every pipe it inherited."""
    return "if os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\n    os._exit(0)"


def _class_sending(name: str, body: str) -> str:
    """A dataclass output (its example built from its annotation) whose ``to_pp_tensors`` runs ``body`` first."""
    lines = [output_class(name, send=None), "", "    def to_pp_tensors(self):",
             *(f"        {line}" for line in body.splitlines()), '        return {"values": self.values}']
    return "\n".join(lines)


def _pair(name: str, body: str) -> list[str]:
    """``<name>Output``, whose ``to_pp_tensors`` runs ``body``, and the observer that produces and rebuilds it."""
    output = f"{name}Output"
    return [_class_sending(output, body),
            observer_class(f"{name}Observer", output, f"{output}(state)", f'return {output}(tensors["values"])')]


class Run:
    """One ``verify`` of a project: its exit code and its rows by class name (without the module)."""

    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stderr = stderr
        self.rows = {row["symbol"].rsplit(".", 1)[1]: row for row in json.loads(stdout or "[]")}

    def row(self, name: str) -> tuple[str, str]:
        return self.rows[name]["status"], self.rows[name]["message"]


@pytest.fixture
def marker() -> Iterator[str]:
    """The marker; at the end every process that carries it is killed, so no test leaves one behind."""
    value = f"ppaux-processes-{uuid.uuid4().hex}"
    yield value
    for pid in processes_with(value):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _command(project: Project, timeout: float) -> list[str]:
    return [sys.executable, "-m", "ppaux_lint", "verify", str(project.root), "--device", "cpu",
            "--output-format", "json", "--timeout", f"{timeout:g}"]


def _env(marker: str, first: Path | None = None) -> dict[str, str]:
    """The environment of a run: the marker, and ``first`` ahead of the ``PYTHONPATH``."""
    path = os.pathsep.join(str(p) for p in (first, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PPAUX_LINT_TEST_MARKER": marker, **({"PYTHONPATH": path} if path else {})}


@pytest.fixture
def verify(project: Project, marker: str) -> Callable[..., Run]:
    """``verify(*parts, timeout=, first=)``: write the parts as ``plug/hostile.py`` and verify the project
    (``first`` ahead on the ``PYTHONPATH``), its hang bounded; the run's whole session is killed however it
    ends."""

    def run(*parts: str, timeout: float = 20.0, first: Path | None = None) -> Run:
        project.package("plug", {"hostile": plugin_module(IMPORTS, *parts)})
        process = subprocess.Popen(_command(project, timeout), env=_env(marker, first), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   preexec_fn=as_from_a_terminal)
        try:
            stdout, stderr = process.communicate(timeout=HANG_BOUND)
        finally:
            _kill_session(process)
        return Run(process.returncode, stdout, stderr)

    return run


def _kill_session(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _settled(marker: str) -> list[int]:
    """The marked processes still alive once they have had ``SETTLE`` seconds to go."""
    deadline = time.monotonic() + SETTLE
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    return processes_with(marker)


def test_a_process_that_holds_the_workers_pipes_cannot_hang_verify(verify, marker):
    """The class forks a process that leaves the session holding every pipe it inherited, then hangs: its row
    times out, the next class is judged, verify ends, and the forked process ends with it."""
    run = verify(*_pair("Holding", _fork_sleeper() + "\ntime.sleep(600)"), *_pair("Later", ""), timeout=3)
    assert run.row("HoldingOutput") == ("fail", "timed out after 3 s during add_auxiliary_output_to_pp_tensors")
    assert run.row("LaterOutput")[0] == "pass", run.row("LaterOutput")
    assert run.code == 1, run.stderr
    assert _settled(marker) == []


def test_a_class_that_exits_is_reported_as_exiting_after_another_left_a_process_holding_the_pipes(verify):
    """What makes the end of the pipe a wrong sign of death: a process the previous class left holds it."""
    run = verify(*_pair("Aleft", _fork_sleeper()), *_pair("Exits", "os._exit(3)"))
    assert run.row("ExitsOutput") == ("fail", "the worker process exited with code 3 during "
                                              "add_auxiliary_output_to_pp_tensors")


@pytest.mark.parametrize("leftover", [
    "signal.alarm(1)",
    "threading.Thread(target=lambda: (time.sleep(1), os._exit(7)), daemon=True).start()",
    "signal.signal(signal.SIGUSR1, signal.SIG_DFL)\nthreading.Timer(1, os.kill, (os.getpid(), signal.SIGUSR1)).start()",
], ids=["alarm", "thread", "timer"])
def test_what_a_class_leaves_behind_in_its_process_never_reaches_the_next_class(verify, leftover):
    """Class A returns at once, leaving something due in a second; class B takes three: B is not touched."""
    run = verify(*_pair("Aleaves", leftover), *_pair("Bslow", "time.sleep(3)"), timeout=60)
    assert run.row("BslowOutput")[0] == "pass", run.row("BslowOutput")
    assert run.row("BslowObserver")[0] == "pass", run.row("BslowObserver")
    assert run.code == 0, run.rows


def test_a_worker_that_cannot_fork_still_judges_each_class_in_a_fresh_process(verify, tmp_path):
    """A thread started in every interpreter (a ``sitecustomize``, as a site or an import may start one)
    makes forking the worker unsound: each class then gets a fresh interpreter, as isolated."""
    site = tmp_path / "threaded"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import threading, time\nthreading.Thread(target=time.sleep, args=(10**6,), daemon=True).start()\n")
    run = verify(*_pair("Aleaves", "signal.alarm(1)"), *_pair("Bslow", "time.sleep(3)"), timeout=60, first=site)
    assert run.row("BslowOutput")[0] == "pass", run.row("BslowOutput")
    assert run.code == 0, run.rows


def test_processes_a_class_starts_end_with_its_row_even_outside_its_session(verify, marker):
    """A ``Popen(start_new_session=True)`` and a double fork into a new session, both left running."""
    spawn = f"subprocess.Popen({SLEEPER}, start_new_session=True)\n" + _fork_sleeper()
    run = verify(*_pair("Spawns", spawn))
    assert run.row("SpawnsOutput")[0] == "pass", run.row("SpawnsOutput")
    assert _settled(marker) == []


def test_a_killed_verify_leaves_no_process_behind(project, marker, tmp_path):
    """SIGKILL the CLI while a class hangs after starting processes in sessions of their own."""
    ready = tmp_path / "ready"
    body = (f"subprocess.Popen({SLEEPER}, start_new_session=True)\n{_fork_sleeper()}\n"
            f"open({str(ready)!r}, 'w').close()\ntime.sleep(600)")
    project.package("plug", {"hostile": plugin_module(IMPORTS, *_pair("Hangs", body))})
    process = subprocess.Popen(_command(project, 600), env=_env(marker), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + HANG_BOUND
        while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), "the class never ran"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert _settled(marker) == []
    finally:
        _kill_session(process)


THE_CLASS = "add_auxiliary_output_to_pp_tensors: "


@pytest.mark.parametrize(("body", "message"), [
    ("sys.exit(3)", THE_CLASS + "SystemExit: 3 (at "),
    ('raise RuntimeError("refuses to cross")', THE_CLASS + "RuntimeError: refuses to cross (at "),
    ("raise KeyboardInterrupt", THE_CLASS + "KeyboardInterrupt (at "),
    ("os.kill(os.getpid(), signal.SIGINT)", THE_CLASS + "KeyboardInterrupt (at "),
    ("os._exit(0)", "the worker process exited with code 0 during add_auxiliary_output_to_pp_tensors"),
    ("if os.fork():\n    os._exit(0)", "the worker process exited with code 0 during "
                                       "add_auxiliary_output_to_pp_tensors"),
], ids=["SystemExit", "RuntimeError", "KeyboardInterrupt", "SIGINT", "os._exit", "daemonizes"])
def test_what_the_class_does_is_its_own_failure(verify, body, message):
    """On an example synthesised from its annotations too: a class that exits, raises by itself, or is
    interrupted fails (exit code 1, so CI fails), saying what it did."""
    run = verify(_class_sending("DoesOutput", body))
    status, said = run.row("DoesOutput")
    assert (status, said[:len(message)]) == ("fail", message)
    assert run.code == 1, run.stderr


def test_what_the_class_raises_between_verify_s_steps_is_its_own_failure(verify):
    """Verify asks whether the observer has each hook before it drives it: a property that exits there."""
    observer = observer_class("ExitsObserver", "ExitsOutput", "ExitsOutput(state)", 'return ExitsOutput(tensors["values"])')
    observer = observer.replace("    def is_active(self, sampling_info):\n        return True",
                                "    @property\n    def is_active(self):\n        raise SystemExit(4)\n\n"
                                "    def before_grammar(self, logits, sampling_info):\n        return logits")
    run = verify(_class_sending("ExitsOutput", ""), observer)
    status, said = run.row("ExitsOutput")
    assert (status, said[:len("SystemExit: 4 (at ")]) == ("fail", "SystemExit: 4 (at "), said
    assert "in ExitsObserver.is_active), raised after " in said
    assert run.code == 1, run.stderr


def test_a_forked_child_that_runs_on_does_not_speak_for_the_class(verify):
    """The class forks, and the child, instead of exiting, raises through verify's own code: the parent's
    round trip is the row, and the next class's row is its own."""
    run = verify(*_pair("Forks", "if os.fork() == 0:\n    raise SystemExit(0)"), *_pair("Later", "time.sleep(1)"))
    assert run.row("ForksOutput")[0] == "pass", run.row("ForksOutput")
    assert run.row("LaterOutput")[0] == "pass", run.row("LaterOutput")
    assert "LaterObserver" in run.row("LaterOutput")[1]


def test_an_operation_that_fails_on_a_synthesised_example_stays_a_skip(verify):
    """The boundary: a shape the made-up example may have wrongly, not the class, raised (torch's own error)."""
    run = verify(_class_sending("ShapedOutput", "self.values.view(4, -1)"))
    status, said = run.row("ShapedOutput")
    assert status == "skip" and "on a synthesised example that may not be realistic" in said, said
    assert run.code == 0, run.stderr
