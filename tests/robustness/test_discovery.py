"""Discovery meets symlink loops, things that are not files, files that vanish, odd names and big files."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

import ppaux_lint.cache.store as store
import ppaux_lint.project.discover as discover_module
from ppaux_lint.project.discover import discover
from ppaux_lint.project.layout import PyProjects, project_roots

from ._support import BROKEN_OUTPUT, TOKEN_LINE, by_file, chdir, cli, deadline, run, write_tree


@pytest.fixture
def alarm():
    with deadline(60):
        yield


def _project(tmp_path: Path, **extra: str | bytes) -> Path:
    return write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT, **extra})


def test_symlink_loops_terminate(tmp_path: Path, alarm) -> None:
    root = _project(tmp_path)
    os.symlink("..", root / "pkg" / "up")  # a directory loop
    os.symlink(".", root / "pkg" / "here")
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink(root / "loop_a", root / "loop_b")
    os.symlink("self.py", root / "pkg" / "self.py")  # a file loop
    os.symlink("good.py", root / "pkg" / "alias.py")  # a file symlink is followed
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/good.py": {"PPA001"}, "pkg/alias.py": {"PPA001"}}


@pytest.mark.parametrize("given", ["pkg/self.py", "pkg/up/pkg/up/pkg", "loop_a", "pkg/up/pkg/good.py"])
def test_symlink_loops_given_explicitly_are_a_message_not_a_crash(tmp_path: Path, given: str) -> None:
    root = _project(tmp_path)
    os.symlink("..", root / "pkg" / "up")
    os.symlink("self.py", root / "pkg" / "self.py")
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink(root / "loop_a", root / "loop_b")
    result = cli(["check", "--no-cache", "--output-format", "concise", given], root, timeout=60)
    assert result.returncode in (0, 1, 2), result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


def test_find_root_survives_a_symlink_loop(tmp_path: Path) -> None:
    os.symlink("loop", tmp_path / "loop")
    assert project_roots([tmp_path / "loop"], tmp_path, PyProjects())  # Path.resolve() raised RuntimeError


def test_a_fifo_named_like_a_module_is_skipped_with_a_warning(tmp_path: Path, alarm) -> None:
    root = _project(tmp_path)
    os.mkfifo(root / "pkg" / "pipe.py")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "pkg" / "sock.py"))
        analysis = run(root, no_cache=True)
    assert by_file(analysis.findings, root) == {"pkg/good.py": {"PPA001"}}
    warnings = "\n".join(analysis.discovery.warnings)
    assert "pipe.py: not a regular file" in warnings and "sock.py: not a regular file" in warnings


def test_a_fifo_named_gitignore_does_not_block_the_walk(tmp_path: Path, alarm) -> None:
    root = _project(tmp_path)
    os.mkfifo(root / ".gitignore")
    os.mkfifo(root / "pkg" / ".gitignore")
    assert by_file(run(root, no_cache=True).findings, root) == {"pkg/good.py": {"PPA001"}}


@pytest.mark.parametrize("where", ["", "pkg/"])
def test_a_gitignore_that_is_a_symlink_is_not_read(tmp_path: Path, where: str) -> None:
    """git (2.32 on) reads no ``.gitignore`` that is a symbolic link, and says so. A committed one that leads out
    of the repository hid files git checks, and its lines were quoted in warnings, into a CI log: a file that
    is not the repository's (a key, a token) must not be read."""
    root = _project(tmp_path)
    (root / ".git").mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("pkg/\ngood.py\nTOKEN[z-a]abc123\n")
    os.symlink(outside, root / where / ".gitignore")
    done = cli(["check", "--no-cache", "--output-format", "concise", "."], root)
    assert done.returncode == 1 and "pkg/good.py:4:7: PPA001" in done.stdout, (done.stdout, done.stderr)
    assert "abc123" not in done.stderr
    assert f"{root / where / '.gitignore'}: a symbolic link, not read" in done.stderr, done.stderr


def test_a_fifo_given_explicitly_is_skipped_with_a_warning(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.mkfifo(root / "pkg" / "pipe.py")
    result = cli(["check", "--no-cache", "pkg/pipe.py", "pkg/good.py"], root, timeout=60)
    assert result.returncode == 1
    assert "pipe.py: not a regular file, skipped" in result.stderr


def test_a_dangling_symlink_is_a_warning(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.symlink("nowhere.py", root / "pkg" / "dangling.py")
    analysis = run(root, no_cache=True)
    assert by_file(analysis.findings, root) == {"pkg/good.py": {"PPA001"}}
    assert any("dangling.py: broken symlink" in w for w in analysis.discovery.warnings)


def test_a_symlink_to_a_device_is_not_called_broken(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.symlink(os.devnull, root / "pkg" / "device.py")
    analysis = run(root, no_cache=True)
    assert by_file(analysis.findings, root) == {"pkg/good.py": {"PPA001"}}
    assert any("device.py: not a regular file, skipped" in w for w in analysis.discovery.warnings)


def test_an_unreadable_file_is_a_ppa000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run as root, where chmod 000 denies nothing, so the denial is simulated at the read."""
    root = _project(tmp_path, **{"pkg/secret.py": BROKEN_OUTPUT})
    real = store._read

    def denied(path: str) -> tuple[bytes, os.stat_result]:
        if path.endswith("secret.py"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(store, "_read", denied)
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/good.py": {"PPA001"}, "pkg/secret.py": {"PPA000"}}
    assert "cannot read: Permission denied" in next(f.message for f in findings if f.code == "PPA000")


def test_an_unreadable_directory_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, **{"locked/x.py": BROKEN_OUTPUT})
    real = os.scandir

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    analysis = run(root, no_cache=True)
    assert by_file(analysis.findings, root) == {"pkg/good.py": {"PPA001"}}
    assert any("locked: cannot read directory: Permission denied" in w for w in analysis.discovery.warnings)


@pytest.mark.parametrize("replacement", ["gone", "fifo", "directory"])
def test_a_file_that_changes_after_discovery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alarm,
                                             replacement: str) -> None:
    root = _project(tmp_path, **{"pkg/vanish.py": BROKEN_OUTPUT})
    victim = root / "pkg" / "vanish.py"
    real = discover_module.discover

    def discover_then_change(*args, **kwargs):
        found = real(*args, **kwargs)
        victim.unlink()
        if replacement == "fifo":
            os.mkfifo(victim)
        elif replacement == "directory":
            victim.mkdir()
        return found

    monkeypatch.setattr(discover_module, "discover", discover_then_change)
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/good.py": {"PPA001"}, "pkg/vanish.py": {"PPA000"}}
    assert "cannot read" in next(f.message for f in findings if f.code == "PPA000")


def test_a_file_that_vanishes_before_it_is_needed_for_resolution(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The base's file holds no token, so the prefilter skips it, and it is read only when the index is about
    to resolve a name through it (all such files together, ``SummaryStore.prefetch``): by then it is gone."""
    root = _project(tmp_path, **{
        "pkg/plain.py": "class Plain:\n    pass\n",
        "pkg/out.py": "from pkg.plain import Plain\n\nclass Out(Plain):\n    def copy_to_host(self, c):\n"
                      "        return self\n",
    })
    real = store.SummaryStore.summarize
    asked = []

    def delete_then_summarize(self, files):
        if any(source.module == "pkg.plain" for source in files):
            asked.append(sorted(source.module for source in files))
            (root / "pkg" / "plain.py").unlink(missing_ok=True)
        return real(self, files)

    monkeypatch.setattr(store.SummaryStore, "summarize", delete_then_summarize)
    findings = run(root, no_cache=True).findings
    assert asked and asked[0] == ["pkg.plain"]  # read for the index, not by the prefilter's rounds
    # The base is unknown now, so PPA001 on Out stays silent (an unseen base may define the method).
    assert by_file(findings, root) == {"pkg/good.py": {"PPA001"}}


def test_a_file_that_vanishes_before_the_scan_is_a_ppa000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path, **{"pkg/plain.py": "class Plain:\n    pass\n"})
    real = discover_module.discover

    def discover_then_delete(*args, **kwargs):
        found = real(*args, **kwargs)
        (root / "pkg" / "plain.py").unlink()
        return found

    monkeypatch.setattr(discover_module, "discover", discover_then_delete)
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/good.py": {"PPA001"}, "pkg/plain.py": {"PPA000"}}


@pytest.mark.parametrize("layout", ["src_and_flat", "explicit_build_copy"])
def test_two_files_claiming_one_module_name(tmp_path: Path, layout: str) -> None:
    """Found by fuzz_pipeline.py: which of two ``pkg.a`` files was indexed depended on the prefilter. Each is
    judged now, in the pass where its own root owns the name, whatever the options."""
    plain = "class Plain:\n    pass\n"
    if layout == "src_and_flat":  # pkg/a.py (a package) and src/pkg/a.py (the src layout) are both pkg.a
        root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/a.py": plain,
                                              "src/pkg/a.py": BROKEN_OUTPUT})
        given = ["."]
    else:  # an excluded build/ copy given explicitly, next to the real module
        root = write_tree(tmp_path / "proj", {"src/pkg/__init__.py": "", "src/pkg/a.py": BROKEN_OUTPUT,
                                              "build/lib/pkg/__init__.py": "", "build/lib/pkg/a.py": plain})
        given = [".", "build/lib/pkg/a.py"]
    results = [by_file(run(root, given, **options).findings, root)
               for options in ({"no_cache": True}, {"no_cache": True, "prefilter": False}, {}, {})]
    assert all(r == results[0] for r in results), results
    # Each copy is judged, whichever owns the name in the main pass (issue 22: a collision costs no check).
    assert results[0] == {"src/pkg/a.py": {"PPA001"}}
    assert not any("not checked" in w for w in run(root, given, no_cache=True).discovery.warnings)


ODD_NAMES = [b"sp ace.py", b"\xff.py", b"caf\xe9.py", "ünï.py".encode(), b"new\nline.py", b"-dash.py",
             b"--help.py", b"tab\t.py", b"quote'\".py", b"back\\slash.py", "日本語.py".encode()]


def test_odd_file_names_do_not_crash_the_engine(tmp_path: Path) -> None:
    root = _project(tmp_path)
    for name in ODD_NAMES:
        with open(os.path.join(os.fsencode(root / "pkg"), name), "wb") as handle:
            handle.write(BROKEN_OUTPUT.encode())
        with open(os.path.join(os.fsencode(root / "pkg"), b"bad_" + name), "wb") as handle:
            handle.write(TOKEN_LINE.encode() + b"def (\n")
    os.mkdir(os.path.join(os.fsencode(root), b"dir\xfe"))
    with open(os.path.join(os.fsencode(root), b"dir\xfe", b"__init__.py"), "wb") as handle:
        handle.write(BROKEN_OUTPUT.encode())
    findings = run(root, no_cache=True).findings
    found = by_file(findings, root)
    # Identifier names are modules, and their classes are checked.
    assert found["pkg/ünï.py"] == {"PPA001"} and found["pkg/日本語.py"] == {"PPA001"}
    # Every unparsable file is reported, whatever its name.
    for name in ODD_NAMES:
        assert found[os.path.join("pkg", os.fsdecode(b"bad_" + name))] == {"PPA000"}
    # And the cache copes with such names too.
    assert by_file(run(root).findings, root) == found == by_file(run(root).findings, root)


def test_a_class_in_a_file_with_a_non_module_name_is_checked_or_mentioned(tmp_path: Path) -> None:
    root = _project(tmp_path, **{"scripts/run-demo.py": BROKEN_OUTPUT})
    analysis = run(root, no_cache=True)
    found = by_file(analysis.findings, root)
    assert found.get("scripts/run-demo.py") == {"PPA001"} or any("run-demo.py" in w
                                                                 for w in analysis.discovery.warnings)


@pytest.mark.parametrize("fmt", ["json", "concise", "full", "github", "sarif"])
def test_non_utf8_file_names_through_the_cli(tmp_path: Path, fmt: str) -> None:
    root = _project(tmp_path)
    with open(os.path.join(os.fsencode(root / "pkg"), b"bad\xff.py"), "wb") as handle:
        handle.write(TOKEN_LINE.encode() + b"def (\n")
    result = cli(["check", "--no-cache", "--output-format", fmt, "."], root)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    if fmt in ("json", "sarif"):
        # Valid for a strict parser (no lone surrogate, which Python's own json.loads lets through): the byte
        # 0xff is the text the human formats print for it, ``\udcff`` (report.paths.strict_json).
        json.dumps(json.loads(result.stdout), ensure_ascii=False).encode("utf-8")
        assert "\\udcff" in result.stdout or fmt == "sarif"
    if fmt == "json":
        assert {(f["path"], f["code"]) for f in json.loads(result.stdout)} == \
            {("pkg/good.py", "PPA001"), ("pkg/bad\\udcff.py", "PPA000")}
    if fmt == "concise":
        assert "pkg/bad\\udcff.py" in result.stdout


def test_a_very_large_file(tmp_path: Path) -> None:
    line = "x = '" + "a" * 1000 + "'\n"
    big = BROKEN_OUTPUT + line * 20_000 + "def tail():\n    return 1\n"  # ~20 MB
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/big.py": big})
    assert (root / "pkg" / "big.py").stat().st_size > 20_000_000
    start = time.monotonic()
    findings = run(root).findings
    assert by_file(findings, root) == {"pkg/big.py": {"PPA001"}}
    assert by_file(run(root).findings, root) == {"pkg/big.py": {"PPA001"}}  # and from the cache
    assert time.monotonic() - start < 60


def test_discover_alone_on_a_hostile_tree(tmp_path: Path) -> None:
    root = _project(tmp_path)
    os.symlink("..", root / "pkg" / "up")
    os.mkfifo(root / "pkg" / "pipe.py")
    os.symlink("missing", root / "pkg" / "gone.py")
    with chdir(root):
        from ppaux_lint.project.config import Config

        found = discover([Path(".")], root.resolve(), Config())
    assert sorted(os.path.relpath(f.path, root.resolve()) for f in found.files) == ["pkg/__init__.py",
                                                                                   "pkg/good.py"]
