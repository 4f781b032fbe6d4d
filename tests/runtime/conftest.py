"""Fixtures for the runtime tests: SGLang's own helpers from the wheel, and throwaway plugin projects
(with builders for the output and observer classes most of them hold).

Nothing here imports torch at module level, so that without torch each test
module can skip itself (``pytest.importorskip``) instead of the run erroring.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap
import types
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SGLANG_VERSION = "0.5.23"
SGLANG_FILES = {
    "sglang.srt.managers.auxiliary_output": "sglang/srt/managers/auxiliary_output.py",
    "sglang.srt.sampling.sampling_observer": "sglang/srt/sampling/sampling_observer.py",
    "sglang.srt.sampling.sampling_observer_pp": "sglang/srt/sampling/sampling_observer_pp.py",
}


def _wheel_dir(config: pytest.Config) -> Path:
    explicit = os.environ.get("PPAUX_SGLANG_WHEEL_DIR")
    if explicit:
        path = Path(explicit)
        path.mkdir(parents=True, exist_ok=True)
        return path
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    if cache is None:
        path = Path(tempfile.gettempdir()) / f"ppaux-lint-sglang-{SGLANG_VERSION}-wheel"
        path.mkdir(parents=True, exist_ok=True)
        return path
    return Path(cache.mkdir(f"sglang-{SGLANG_VERSION}-wheel"))


# The files read are pure Python, so any wheel of the release will do: first one for this interpreter,
# else the CPython 3.11 Linux one, so that other interpreters can run the comparison too.
_DOWNLOAD_TAGS = ([], ["--python-version", "3.11", "--implementation", "cp", "--platform", "manylinux_2_34_x86_64"])


@pytest.fixture(scope="session")
def sglang_wheel(pytestconfig: pytest.Config) -> Path:
    """The SGLang wheel, downloaded once into a cache directory (no dependencies, nothing installed).

    Without network the comparison is skipped, except in CI, where it must run.
    """
    directory = _wheel_dir(pytestconfig)
    pattern = f"sglang-{SGLANG_VERSION}-*.whl"
    problem = ""
    for tags in _DOWNLOAD_TAGS:
        if any(directory.glob(pattern)):
            break
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", *tags,
                   f"sglang=={SGLANG_VERSION}", "-d", str(directory)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            problem = str(exc)
            continue
        if done.returncode:
            problem = (done.stderr.strip().splitlines() or [f"pip exited with {done.returncode}"])[-1]
    found = sorted(directory.glob(pattern))
    if not found:
        reason = f"cannot download sglang=={SGLANG_VERSION} with pip: {problem}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found[-1]


@contextlib.contextmanager
def sglang_modules_set_aside() -> Iterator[None]:
    """Run the body with no ``sglang*`` entry in ``sys.modules``, and put back afterwards what was there.

    Whatever the body imports under ``sglang`` is dropped again, so that tests which load SGLang's files
    (from the wheel, or from a directory on ``sys.path``) neither see nor leave behind another ``sglang``;
    modules already loaded keep working through their own references.
    """
    def ours(name: str) -> bool:
        return name == "sglang" or name.startswith("sglang.")

    saved = {name: mod for name, mod in sys.modules.items() if ours(name)}
    for name in saved:
        del sys.modules[name]
    try:
        yield
    finally:
        for name in [n for n in sys.modules if ours(n)]:
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture(scope="session")
def sglang_protocols(sglang_wheel: Path) -> dict[str, types.ModuleType]:
    """SGLang's three protocol modules (``SGLANG_FILES``), loaded straight from the wheel, by module name.

    The parent packages are registered as empty modules so that
    ``sglang/__init__.py`` (which pulls in SGLang's heavy dependencies) never
    runs.
    """
    pytest.importorskip("torch")
    with sglang_modules_set_aside(), zipfile.ZipFile(sglang_wheel) as wheel:
        for package in ("sglang", "sglang.srt", "sglang.srt.managers", "sglang.srt.sampling"):
            module = types.ModuleType(package)
            module.__path__ = []
            sys.modules[package] = module
        loaded = {}
        for name, member in SGLANG_FILES.items():
            source = wheel.read(member).decode("utf-8")
            spec = importlib.util.spec_from_loader(name, loader=None, origin=f"{sglang_wheel.name}/{member}")
            module = importlib.util.module_from_spec(spec)
            module.__file__ = f"{sglang_wheel}/{member}"
            sys.modules[name] = module
            exec(compile(source, module.__file__, "exec"), module.__dict__)
            loaded[name] = module
        return loaded


@pytest.fixture(scope="session")
def sglang_pp(sglang_protocols: dict[str, types.ModuleType]) -> types.ModuleType:
    """``sglang.srt.sampling.sampling_observer_pp`` loaded straight from the wheel (see ``sglang_protocols``)."""
    return sglang_protocols["sglang.srt.sampling.sampling_observer_pp"]


@pytest.fixture(scope="session")
def sglang_site(sglang_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that, on ``sys.path`` or ``PYTHONPATH``, makes SGLang 0.5.23's real helper module importable.

    It holds the wheel's own files for the three modules (and its METADATA, so that the installed version
    can be read as from a real install). ``sglang/__init__.py`` is left empty: the real one imports the
    whole serving stack, which the helpers do not need; the subpackages are namespace packages in the
    wheel too.
    """
    site = tmp_path_factory.mktemp("sglang-site")
    with zipfile.ZipFile(sglang_wheel) as wheel:
        for member in SGLANG_FILES.values():
            target = site / member
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(wheel.read(member))
        metadata = f"sglang-{SGLANG_VERSION}.dist-info/METADATA"
        (site / metadata).parent.mkdir()
        (site / metadata).write_bytes(wheel.read(metadata))
    (site / "sglang" / "__init__.py").write_text("", encoding="utf-8")
    return site


class Project:
    """A throwaway plugin project on disk: ``write`` files into it, then run verify over it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.write("pyproject.toml", '[project]\nname = "plugin"\nversion = "0"\n')

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def package(self, name: str, modules: dict[str, str]) -> None:
        self.write(f"{name}/__init__.py", "")
        for module, text in modules.items():
            self.write(f"{name}/{module}.py", text)


def plugin_module(*parts: str) -> str:
    """A module's source from its parts (the imports, then classes and functions), two blank lines apart."""
    return "\n\n\n".join(textwrap.dedent(part).strip("\n") for part in parts) + "\n"


def output_class(name: str, fields: tuple[str, ...] = ("values: torch.Tensor",),
                 host: str = "copy_tensor(self.values)", send: str | None = '{"values": self.values}') -> str:
    """A dataclass output that returns ``host`` from ``copy_to_host`` and ``send`` from ``to_pp_tensors``
    (``send=None``: no ``to_pp_tensors``). The defaults give a single-tensor output that survives transport."""
    lines = ["@dataclass", f"class {name}:", *(f"    {f}" for f in fields),
             "", "    def copy_to_host(self, copy_tensor):", f"        return {host}"]
    if send is not None:
        lines += ["", "    def to_pp_tensors(self):", f"        return {send}"]
    return "\n".join(lines)


def plain_output(name: str, body: str, example: bool = False) -> str:
    """An output with no state and nothing to copy to host, whose ``to_pp_tensors`` runs ``body`` (statements);
    ``example`` gives it a ``ppaux_example`` so that verify need not synthesise one."""
    lines = [f"class {name}:"]
    if example:
        lines += ["    @classmethod", "    def ppaux_example(cls, device):", "        return cls()", ""]
    lines += ["    def copy_to_host(self, copy_tensor):", "        return None",
              "", "    def to_pp_tensors(self):", *(f"        {line}" for line in body.splitlines())]
    return "\n".join(lines)


def observer_class(name: str, output: str, after: str, rebuild: str | None) -> str:
    """An always-active observer whose ``after_sample`` returns ``after`` and whose ``from_pp_tensors`` runs
    ``rebuild`` (statements; ``None``: no ``from_pp_tensors``). Both are annotated with ``output`` unless it is ""."""
    returns = f" -> {output}" if output else ""
    lines = [f"class {name}:", "    def is_active(self, sampling_info):", "        return True",
             "", f"    def after_sample(self, state, token_ids){returns}:", f"        return {after}"]
    if rebuild is not None:
        lines += ["", f"    def from_pp_tensors(self, tensors){returns}:",
                  *(f"        {line}" for line in rebuild.splitlines())]
    return "\n".join(lines)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "proj")


@pytest.fixture(scope="module")
def module_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A project shared by a module's tests, for runs too slow to repeat per test."""
    return Project(tmp_path_factory.mktemp("proj"))


def _run_cli(*args: str):
    from click.testing import CliRunner

    from ppaux_lint.cli.verify import verify

    return CliRunner().invoke(verify, list(args), catch_exceptions=False)


@pytest.fixture(scope="session")
def run_cli():
    """Invoke ``verify`` as the ``ppaux-lint`` group would; returns click's result (exit_code, stdout, stderr)."""
    return _run_cli


@pytest.fixture(scope="module")
def process_marker():
    """An environment variable that every process verify starts inherits, to find any left behind.

    ``/proc/<pid>/environ`` holds a process's environment as it was at exec,
    so this test process itself never matches, only the children started
    while the variable is set.
    """
    marker = f"ppaux-test-{uuid.uuid4().hex}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PPAUX_LINT_TEST_MARKER", marker)
        yield marker


def processes_with(marker: str) -> list[int]:
    if not Path("/proc/self/environ").exists():
        pytest.skip("needs /proc to list processes")
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes() and not _own_multiprocessing_helper(entry):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _own_multiprocessing_helper(entry: Path) -> bool:
    """multiprocessing's fork server and resource tracker of this test process: the static pass of an
    in-process run starts them here, where torch's threads make forking unsafe (``workers.py``); they live as
    long as this process and exit with it, reading a pipe it holds (``tests/leftover_processes.py``)."""
    command = (entry / "cmdline").read_bytes()
    parent = int((entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    return parent == os.getpid() and any(helper in command for helper in _MULTIPROCESSING_HELPERS)


_MULTIPROCESSING_HELPERS = (b"multiprocessing.forkserver", b"multiprocessing.resource_tracker")


@pytest.fixture(scope="session")
def leftover_processes():
    """``leftover_processes(marker)``: pids still alive that were started under ``process_marker``."""
    return processes_with
