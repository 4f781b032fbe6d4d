"""ppaux-lint's dataclasses run code kept from an earlier process instead of compiling their methods on every
import (``support/records.py``), and nothing about a class changes for it: not its methods' code, not how it
behaves, not anyone else's dataclasses; a damaged or foreign file is ignored. Where Python writes no bytecode,
or cannot write it, the code is kept in the user's cache directory, never beside the bytecode, and a file there
that anyone but the user could have written is never run."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ppaux_lint.support import records

from ._support import write_tree

# Prints, for every dataclass of the summaries' module, its methods' code as marshal writes it, and how many
# sources this process compiled (``records.compile`` counts them).
_PROBE = r"""
import builtins, dataclasses, json, marshal, sys
from ppaux_lint.support import records
compiled = []
records.compile = lambda *a, **k: compiled.append(1) or builtins.compile(*a, **k)
import ppaux_lint.facts.summary as summary
codes = {}
for name, value in sorted(vars(summary).items()):
    if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == summary.__name__:
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            function = vars(value).get(method)
            if function is not None and hasattr(function, "__code__"):
                codes[f"{name}.{method}"] = marshal.dumps(function.__code__).hex()
print(len(compiled))
print(json.dumps(codes))
"""


def _env(prefix: Path, write: bool = True, cache: Path | None = None) -> dict[str, str]:
    """Bytecode under ``prefix``, written or not, and the user's cache in ``cache`` (by default beside
    ``prefix``: never the real one)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPYCACHEPREFIX"] = str(prefix)
    env["XDG_CACHE_HOME"] = str(cache or prefix.with_name(prefix.name + "-user-cache"))
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _probe(prefix: Path, write: bool = True, cache: Path | None = None) -> tuple[int, dict[str, str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE], env=_env(prefix, write, cache), capture_output=True,
                          text=True, timeout=120, check=True)
    compiled, codes = done.stdout.splitlines()
    return int(compiled), json.loads(codes)


def _kept_file(prefix: Path) -> Path:
    found = list(prefix.rglob("dataclasses.*.bin"))
    assert len(found) == 1, found
    return found[0]


def test_a_later_process_compiles_nothing_and_gets_the_same_code(tmp_path: Path) -> None:
    first, codes = _probe(tmp_path / "kept")
    assert first >= 20  # every class of the module compiled its methods (a source each; one per class from 3.13)
    again, kept_codes = _probe(tmp_path / "kept")
    assert again == 0 and not (tmp_path / "kept-user-cache").exists()  # beside the bytecode, nowhere else
    fresh, fresh_codes = _probe(tmp_path / "none", write=False)
    assert fresh == first and not list((tmp_path / "none").rglob("dataclasses.*.bin"))
    assert _code(kept_codes) == _code(codes) == _code(fresh_codes) and len(codes) >= 20


def test_without_bytecode_the_code_is_kept_in_the_users_cache(tmp_path: Path) -> None:
    """``PYTHONDONTWRITEBYTECODE`` (``-B``) keeps bytecode out of the installation, so the code goes to the user's
    cache directory, private to the user; a later process runs it, and the classes are the same."""
    cache = tmp_path / "home-cache"
    first, codes = _probe(tmp_path / "prefix", write=False, cache=cache)
    assert first >= 20 and not (tmp_path / "prefix").exists()
    kept = _kept_file(cache / "ppaux-lint")
    assert oct(kept.stat().st_mode & 0o777) == oct(0o600) and oct(kept.parent.stat().st_mode & 0o777) == oct(0o700)
    again, kept_codes = _probe(tmp_path / "prefix", write=False, cache=cache)
    assert again == 0 and _code(kept_codes) == _code(codes)
    assert _probe(tmp_path / "written", cache=cache)[0] == 0  # read there when none is beside the bytecode


def test_what_a_process_compiles_is_found_where_it_saved_it(tmp_path: Path) -> None:
    """A file an earlier run left beside the bytecode (here one that holds another class's code) is read only
    after the user's, where a process that writes no bytecode saves: otherwise it would compile the same classes
    on every run."""
    prefix, cache = tmp_path / "prefix", tmp_path / "home-cache"
    _probe(prefix)
    beside = _kept_file(prefix)
    beside.write_bytes(marshal.dumps((sys.version, {"x = 1": compile("x = 1", "<string>", "exec")})))
    assert _probe(prefix, write=False, cache=cache)[0] >= 20
    assert _probe(prefix, write=False, cache=cache)[0] == 0
    assert len(marshal.loads(beside.read_bytes())[1]) == 1  # left as it was


def test_a_read_only_installation_keeps_its_code_in_the_users_cache(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"  # in the way of the bytecode directory, as a read-only installation is
    blocked.write_text("")
    cache = tmp_path / "home-cache"
    assert _probe(blocked / "prefix", cache=cache)[0] >= 20
    assert _probe(blocked / "prefix", cache=cache)[0] == 0
    assert blocked.read_text() == "" and _kept_file(cache / "ppaux-lint").is_file()


@pytest.mark.skipif(os.name != "posix", reason="ownership and modes are POSIX's")
@pytest.mark.parametrize("how", ["writable-by-others", "a-link"])
def test_a_users_cache_directory_someone_else_could_write_is_never_used(tmp_path: Path, how: str) -> None:
    """The kept code is code the process runs: in a directory another user could write into (or one a link leads
    to) it is neither read nor written, and every process compiles, as without it."""
    cache = tmp_path / "home-cache"
    _probe(tmp_path / "prefix", write=False, cache=cache)
    directory = cache / "ppaux-lint"
    kept = _kept_file(cache / "ppaux-lint")
    if how == "writable-by-others":
        directory.chmod(0o777)
    else:
        directory.rename(tmp_path / "elsewhere")
        directory.symlink_to(tmp_path / "elsewhere")
        kept = tmp_path / "elsewhere" / kept.name
    before = kept.read_bytes(), kept.stat().st_ino
    assert _probe(tmp_path / "prefix", write=False, cache=cache)[0] >= 20
    assert _probe(tmp_path / "prefix", write=False, cache=cache)[0] >= 20
    assert (kept.read_bytes(), kept.stat().st_ino) == before


@pytest.mark.skipif(os.name != "posix", reason="ownership and modes are POSIX's")
@pytest.mark.parametrize("how", ["writable-by-others", "a-link", "owned-by-another-user"])
def test_a_users_cache_file_someone_else_could_write_is_never_run(tmp_path: Path, how: str) -> None:
    """A file in the user's own directory that is not private (writable by others, another user's, or a link) is
    not read: the process compiles, and replaces it with a private file of its own (never writing through the
    link), which the next process runs."""
    cache = tmp_path / "home-cache"
    _probe(tmp_path / "prefix", write=False, cache=cache)
    kept = _kept_file(cache / "ppaux-lint")
    if how == "writable-by-others":
        kept.chmod(0o666)
    elif how == "a-link":
        target = tmp_path / "elsewhere.bin"
        kept.rename(target)
        kept.symlink_to(target)
    else:
        if os.geteuid() != 0:
            pytest.skip("giving a file to another user takes root")
        os.chown(kept, 65534, 65534)
    assert _probe(tmp_path / "prefix", write=False, cache=cache)[0] >= 20
    assert not kept.is_symlink() and kept.stat().st_uid == os.geteuid()
    assert oct(kept.stat().st_mode & 0o777) == oct(0o600)
    assert _probe(tmp_path / "prefix", write=False, cache=cache)[0] == 0
    if how == "a-link":
        assert marshal.loads((tmp_path / "elsewhere.bin").read_bytes())[0] == sys.version  # the target untouched


def _code(dumped: dict[str, str]) -> dict[str, object]:
    """The code objects themselves, which compare by what they run: marshal's bytes for one object may differ
    between processes (whether a constant is written as a reference depends on its reference count)."""
    return {name: marshal.loads(bytes.fromhex(text)) for name, text in dumped.items()}


@pytest.mark.parametrize("content", [b"", b"garbage", marshal.dumps({"x": 1}), marshal.dumps(("2.7.18", {})),
                                     marshal.dumps((sys.version, {"def f(): pass": "not code"})),
                                     marshal.dumps((sys.version, {1: compile("", "<string>", "exec")}))],
                         ids=["empty", "garbage", "wrong-shape", "other-python", "not-code", "not-text"])
def test_a_damaged_or_foreign_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    _probe(tmp_path)
    kept = _kept_file(tmp_path)
    kept.write_bytes(content)
    compiled, codes = _probe(tmp_path)
    assert compiled >= 20 and codes
    version, entries = marshal.loads(kept.read_bytes())
    assert version == sys.version and len(entries) >= compiled
    assert _probe(tmp_path)[0] == 0


@pytest.mark.parametrize("kind", ["fifo", "huge"])
def test_a_file_that_is_no_file_of_ours_is_never_read(tmp_path: Path, kind: str) -> None:
    """A FIFO where the file belongs would stall every import that reads it, and a file of gigabytes would be
    read into memory: neither is read, and each is replaced by the kept code."""
    _probe(tmp_path)
    kept = _kept_file(tmp_path)
    kept.unlink()
    if kind == "fifo":
        os.mkfifo(kept)
    else:
        with kept.open("wb") as handle:
            handle.truncate(records.MAX_BYTES + 1)  # sparse: no disk is used
    assert _probe(tmp_path)[0] >= 20
    assert kept.is_file() and kept.stat().st_size < records.MAX_BYTES
    assert _probe(tmp_path)[0] == 0


def test_a_truncated_file_is_ignored(tmp_path: Path) -> None:
    _probe(tmp_path)
    kept = _kept_file(tmp_path)
    kept.write_bytes(kept.read_bytes()[: kept.stat().st_size // 2])
    assert _probe(tmp_path)[0] >= 20


def test_a_place_it_cannot_write_costs_only_the_compilation(tmp_path: Path) -> None:
    """Where neither the bytecode directory nor the user's cache can be made (here a file is in the way of both,
    which stops root too, as a read-only installation stops a user), every process compiles, as without the kept
    code, and nothing fails."""
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert _probe(blocked / "prefix")[0] >= 20
    assert _probe(blocked / "prefix")[0] >= 20
    assert blocked.read_text() == "" and not list(tmp_path.glob("**/*.tmp"))


@dataclasses.dataclass(frozen=True, order=True)
class _Plain:
    name: str
    size: int = 0
    tags: tuple[str, ...] = dataclasses.field(default=(), compare=False)


@records.dataclass(frozen=True, order=True)
class _Kept:
    name: str
    size: int = 0
    tags: tuple[str, ...] = dataclasses.field(default=(), compare=False)


def test_a_class_behaves_as_the_standard_librarys() -> None:
    plain, kept = _Plain("a", 2, ("x",)), _Kept("a", 2, ("x",))
    assert repr(kept) == repr(plain).replace("_Plain", "_Kept")
    assert kept == _Kept("a", 2, ("y",)) and hash(kept) == hash(_Kept("a", 2))
    assert _Kept("a", 1) < kept and sorted([kept, _Kept("a")]) == [_Kept("a"), kept]
    assert dataclasses.replace(kept, size=3) == _Kept("a", 3)
    assert [f.name for f in dataclasses.fields(kept)] == [f.name for f in dataclasses.fields(plain)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        kept.size = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Kept()  # type: ignore[call-arg]


def test_nobody_elses_dataclasses_join_the_kept_code() -> None:
    """Outside a decoration the standard library compiles as always; inside one, only the decorating thread's
    sources go through the kept code."""
    assert "exec" not in vars(dataclasses)
    before = dict(records._kept())

    @dataclasses.dataclass
    class Users:
        only_theirs_xyz: int

    assert records._kept() == before
    seen: list[bool] = []
    with records._kept_code():
        worker = threading.Thread(target=lambda: seen.append(
            dataclasses.is_dataclass(dataclasses.dataclass(type("Other", (), {"__annotations__": {"b_xyz": int}})))))
        worker.start()
        worker.join()
    assert seen == [True] and records._kept() == before and "exec" not in vars(dataclasses)


def test_check_keeps_the_code_it_compiled_though_it_ends_without_exit_handlers(tmp_path: Path) -> None:
    """``check`` ends through ``os._exit`` (cli/main.py), which runs no exit handler: it saves first, and a run
    that compiled nothing new leaves the file as it was."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/mod.py": "x = 1\n"})
    prefix = tmp_path / "kept"
    command = [sys.executable, "-m", "ppaux_lint", "check", "--no-cache", "."]
    subprocess.run(command, cwd=root, env=_env(prefix), capture_output=True, timeout=120, check=True)
    kept = _kept_file(prefix)
    first = kept.stat()
    assert len(marshal.loads(kept.read_bytes())[1]) > 40
    subprocess.run(command, cwd=root, env=_env(prefix), capture_output=True, timeout=120, check=True)
    assert (kept.stat().st_ino, kept.stat().st_mtime_ns) == (first.st_ino, first.st_mtime_ns)


def test_a_spawned_child_keeps_its_code_where_its_parent_does(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A spawned child runs isolated (``-I``), which ignores ``PYTHONDONTWRITEBYTECODE`` and
    ``PYTHONPYCACHEPREFIX``: it is given both as flags, so it writes bytecode where, and only if, its parent does."""
    import subprocess as subprocess_module

    from ppaux_lint.support import children

    started: list[list[str]] = []

    class Refused(Exception):
        pass

    def popen(argv: list[str], **kwargs: object) -> None:
        started.append(argv)
        raise Refused

    monkeypatch.setattr(subprocess_module, "Popen", popen)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    for write in (True, False):
        monkeypatch.setattr(sys, "dont_write_bytecode", not write)
        with pytest.raises(Refused):
            children.Child._spawn()
    flags = [argv[1:argv.index("-c")] for argv in started]
    assert flags == [["-I", "-S", "-X", f"pycache_prefix={tmp_path}"],
                     ["-I", "-S", "-B", "-X", f"pycache_prefix={tmp_path}"]]


def test_every_dataclass_of_ppaux_lint_keeps_its_code() -> None:
    """A module that takes ``dataclass`` from the standard library works, and compiles its classes on every
    run: each one takes it from ``support/records.py``, which alone calls the standard library's."""
    import ast

    package = Path(records.__file__).resolve().parent.parent
    stray = []
    for path in sorted(package.rglob("*.py")):
        if path == Path(records.__file__).resolve():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported = isinstance(node, ast.ImportFrom) and node.module == "dataclasses" and any(
                alias.name == "dataclass" for alias in node.names)
            attribute = (isinstance(node, ast.Attribute) and node.attr == "dataclass"
                         and isinstance(node.value, ast.Name) and node.value.id == "dataclasses")
            if imported or attribute:
                stray.append(f"{path.relative_to(package)}:{node.lineno}")
    assert stray == []
