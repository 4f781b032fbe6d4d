"""What ``--fix`` may write, and what a full disk, a file it cannot write or a kill leaves (issue 32, 4-6).

- Each fixed file is replaced atomically: a temporary file beside it, synced, renamed over it, with the old
  file's mode and owner. A kill at any write the run makes in the project leaves each file with its old text
  or its new one, and at most a temporary file of a name that says whose it is, which the next ``--fix`` of
  that file removes. strace kills the process as it enters each of those system calls in turn.
- A file that cannot be written (a full or read-only file system, an immutable file, one its mode keeps from
  this user) is a warning for that file alone: it keeps its text and its findings, the other files are fixed.
- Only the checked files are written: a symlink to a file that is not one of them, or a file with other hard
  links (whose other names nobody checked), is a warning and not followed; a symlink to a checked file fixes
  that file and stays a link.

The file systems are real: a 64 KiB tmpfs, filled or remounted read-only (skipped where this run may not
mount), ``chattr +i``, and ``chmod`` under ``setpriv`` where the tests run as root, which ignores modes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import signal
import stat
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from lintkit import as_from_a_terminal

from ._support import cli, console, unprivileged, write_tree

# The system calls that change a file or a name; strace counts them in the main process, and kills at one.
MODIFYING = ("write,pwrite64,writev,pwritev,pwritev2,ftruncate,fsync,fdatasync,rename,renameat,renameat2,"
             "unlink,unlinkat,link,linkat,fchmod,fchown")
# The temporary file a write of pkg/near.py makes beside it (support/fileio.py), whatever its process and salt.
TEMPORARY = re.compile(r"\.near\.py\.ppaux-lint\.\d+\.[0-9a-f]+\.tmp")


def near_miss(name: str, size: int = 0) -> str:
    """A module whose one finding is PPA017 on class ``name``, which the safe fix renames; a leading comment
    brings it to ``size`` characters."""
    text = (f"class {name}:\n    def copy_to_host(self, c):\n        return self\n\n"
            f"    def to_pp_tensor(self):\n        return {{'x': self.x}}\n")
    return "#" * (size - len(text) - 1) + "\n" + text if size else text


def fixed(text: str) -> str:
    return text.replace("def to_pp_tensor(", "def to_pp_tensors(")


NEAR = near_miss("Near")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/near.py": NEAR})


def fix(root: Path, *paths: str, prefix: Sequence[str] = ()) -> subprocess.CompletedProcess:
    return cli(["check", "--fix", "--no-cache", "--output-format", "json", *(paths or ["."])], root, prefix=prefix)


def remaining(result: subprocess.CompletedProcess) -> set[tuple[str, str]]:
    return {(finding["path"], finding["code"]) for finding in json.loads(result.stdout)}


def assert_not_fixed(result: subprocess.CompletedProcess, relative: str, why: str) -> None:
    """The run went on past ``relative``: one warning says why it was not fixed, its finding is reported,
    and the exit code is that of a run with findings."""
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("ppaux-lint: warning:")]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith(f"ppaux-lint: warning: {relative}: not fixed: ") and why in warnings[0], warnings
    assert result.returncode == 1, result.stderr
    assert remaining(result) == {(relative, "PPA017")}


def assert_fixed(root: Path) -> None:
    assert (root / "pkg" / "near.py").read_text(encoding="utf-8") == fixed(NEAR)


# -- real file systems --------------------------------------------------------------------------------------
def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False) if shutil.which("mount") \
        else None
    if done is None or done.returncode != 0:
        pytest.skip(f"this run may not mount a file system: {' '.join(done.stderr.split()) if done else 'no mount command'}")


@contextlib.contextmanager
def tmpfs(directory: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted on ``directory`` (skipped where mounting needs privileges this run lacks)."""
    directory.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(directory))
    try:
        yield directory
    finally:
        if subprocess.run(["umount", str(directory)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(directory)], check=True)


def fill(directory: Path) -> None:
    """Write a file until its file system has no block left."""
    with open(directory / "filler", "wb", buffering=0) as handle, pytest.raises(OSError) as full:
        while True:
            handle.write(b"\0" * 4096)
    assert full.value.errno == errno.ENOSPC
    assert os.statvfs(directory).f_bavail == 0


@contextlib.contextmanager
def read_only_mount(root: Path, text: str) -> Iterator[tuple[str, Sequence[str]]]:
    with tmpfs(root / "pkg" / "mounted") as disk:
        (disk / "locked.py").write_text(text, encoding="utf-8")
        _mount("-o", "remount,ro", str(disk))
        yield "pkg/mounted/locked.py", ()


@contextlib.contextmanager
def immutable(root: Path, text: str) -> Iterator[tuple[str, Sequence[str]]]:
    locked = root / "pkg" / "locked.py"
    locked.write_text(text, encoding="utf-8")
    chattr = shutil.which("chattr")
    done = subprocess.run([chattr, "+i", str(locked)], capture_output=True, text=True, check=False) if chattr \
        else None
    if done is None or done.returncode != 0:
        pytest.skip(f"cannot make a file immutable here: {' '.join(done.stderr.split()) if done else 'no chattr command'}")
    try:
        yield "pkg/locked.py", ()
    finally:
        subprocess.run([chattr, "-i", str(locked)], check=True)


@contextlib.contextmanager
def without_write_permission(root: Path, text: str) -> Iterator[tuple[str, Sequence[str]]]:
    locked = root / "pkg" / "locked.py"
    locked.write_text(text, encoding="utf-8")
    locked.chmod(0o444)
    yield "pkg/locked.py", unprivileged()


# -- a full disk, a file that cannot be written ------------------------------------------------------------
def test_a_full_disk_leaves_the_file_whole_and_the_other_files_fixed(root: Path) -> None:
    """The file fills one page and its fix needs a second: a write in place truncated it, wrote the page
    the truncation freed, and stopped mid-token (then an internal error hid every finding)."""
    text = near_miss("Far", size=4096)
    with tmpfs(root / "pkg" / "mounted") as disk:  # before pkg/near.py, in the order files are fixed
        (disk / "far.py").write_text(text, encoding="utf-8")
        fill(disk)
        result = fix(root)
        assert (disk / "far.py").read_text(encoding="utf-8") == text
        assert sorted(os.listdir(disk)) == ["far.py", "filler"]  # no temporary file left behind
    assert_not_fixed(result, "pkg/mounted/far.py", "cannot write it: No space left on device")
    assert_fixed(root)


@pytest.mark.parametrize("lock, why", [
    (read_only_mount, "Read-only file system"),
    (immutable, "Operation not permitted"),
    (without_write_permission, "Permission denied"),
], ids=["read-only mount", "immutable", "mode 0444"])
def test_a_file_that_cannot_be_written_is_a_warning_for_it_alone(
        root: Path, lock: Callable[[Path, str], contextlib.AbstractContextManager], why: str) -> None:
    text = near_miss("Locked")
    with lock(root, text) as (relative, prefix):
        result = fix(root, prefix=prefix)
        assert (root / relative).read_text(encoding="utf-8") == text
    assert_not_fixed(result, relative, f"cannot write it: {why}")
    assert_fixed(root)


def test_the_fixed_file_keeps_its_mode_and_owner(root: Path) -> None:
    near = root / "pkg" / "near.py"
    near.chmod(0o754)
    owner = (4321, 8765) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    os.chown(near, *owner)
    result = fix(root)
    assert result.returncode == 0, result.stderr
    assert_fixed(root)
    info = near.stat()
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o754, *owner)


def _user_attribute(path: Path, value: bytes) -> None:
    try:
        os.setxattr(path, "user.origin", value)
    except (AttributeError, OSError) as error:
        pytest.skip(f"no user extended attributes here: {error}")


def test_the_fixed_file_keeps_its_extended_attributes(root: Path) -> None:
    """A rename drops what the old inode carried beside its mode and owner: ``user.*`` metadata (a download's
    origin, a sync tool's id) and an access control list (``system.posix_acl_access``, the access it granted to
    other users). The new file is given each of them; ``--add-noqa`` writes the same way."""
    near = root / "pkg" / "near.py"
    _user_attribute(near, b"https://example.invalid/near.py")
    assert fix(root).returncode == 0
    assert_fixed(root)
    assert os.getxattr(near, "user.origin") == b"https://example.invalid/near.py"
    near.write_text(NEAR, encoding="utf-8")  # back to the finding, same inode
    assert cli(["check", "--add-noqa", "--no-cache", "."], root).returncode == 0
    assert "# noqa: PPA017" in near.read_text(encoding="utf-8")
    assert os.getxattr(near, "user.origin") == b"https://example.invalid/near.py"


def test_an_extended_attribute_that_cannot_be_kept_leaves_the_file_as_it_was(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the new file cannot be given an attribute the old one has (a security label this process may not
    set), the file is not replaced: its text, its attributes and no temporary file are what is left."""
    from ppaux_lint.support import fileio

    path = tmp_path / "a.py"
    path.write_bytes(b"old\n")
    _user_attribute(path, b"kept")

    def refused(*args, **kwargs):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(fileio.os, "setxattr", refused)
    with pytest.raises(OSError, match=r"cannot keep its extended attribute user\.origin"):
        fileio.replace_file(path, b"new\n", like=path.stat(), durable=True, expected=b"old\n")
    assert path.read_bytes() == b"old\n"
    assert os.getxattr(path, "user.origin") == b"kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


# -- a kill at any moment ----------------------------------------------------------------------------------
def _strace() -> str:
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("no strace to stop the run at a system call")
    probe = subprocess.run([strace, "-qq", "-o", os.devnull, "true"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here: {probe.stderr.strip()}")
    return strace


def _traced(root: Path, log: Path, stop_at: tuple[str, int] | None = None, signal_name: str = "KILL"
            ) -> subprocess.CompletedProcess:
    """``check --fix`` with its main process's file-changing system calls logged, paths shown (``-y``); with
    ``stop_at`` (a call's name and which of that name's calls: strace counts each system call apart), the
    signal as the process enters that call: SIGKILL ends it there, and the call never happens; SIGINT (as
    Ctrl-C sends it, the child started as from a terminal) is handled once the call returns."""
    inject = ["-e", f"inject={stop_at[0]}:signal={signal_name}:when={stop_at[1]}"] if stop_at else []
    command = [_strace(), "-qq", "-y", "-o", str(log), "-e", f"trace={MODIFYING}", *inject, *console(),
               "check", "--fix", "--no-cache", "."]
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CI", None)
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120, env=env, check=False,
                          preexec_fn=as_from_a_terminal)


def _call(line: str) -> str:
    """A logged system call as its name and arguments (the result left out, a temporary file's process and
    salt made alike), so that two runs' calls compare equal."""
    return re.sub(r"\.ppaux-lint\.\d+\.[0-9a-f]+\.tmp", ".ppaux-lint.TMP.tmp", line.rsplit(" = ", 1)[0])


def _calls(log: Path) -> list[str]:
    return [_call(line) for line in log.read_text(errors="replace").splitlines() if re.match(r"\w+\(", line)]


def _stopped_at(log: Path) -> str:
    """The call the signal came at: the last before strace's line for a caught SIGINT, else the last of all."""
    calls: list[str] = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("--- SIGINT "):
            break
        if re.match(r"\w+\(", line):
            calls.append(_call(line))
    return calls[-1]


@pytest.mark.parametrize("signal_name", ["KILL", "INT"])
def test_a_kill_or_an_interrupt_at_any_write_leaves_the_old_or_the_new_text(root: Path, tmp_path: Path,
                                                                            signal_name: str) -> None:
    """The old write truncated the file in its open and filled it in its write: killed between the two, the
    file was empty. Now every write the run makes in the project is a moment to stop at. A kill may leave a
    temporary file, which the next --fix of the file removes; an interrupt leaves none."""
    pkg = root / "pkg"
    near = pkg / "near.py"
    old, new = NEAR.encode(), fixed(NEAR).encode()
    names = set(os.listdir(pkg))
    log = tmp_path / "strace.log"
    complete = _traced(root, log)
    assert complete.returncode == 0, complete.stderr
    assert near.read_bytes() == new
    calls = _calls(log)
    moments = [number for number, call in enumerate(calls, start=1) if str(root.resolve()) in call]
    assert moments, calls  # the run's writes of the fix were seen
    strays = 0
    for moment in moments:
        near.write_bytes(old)
        name = calls[moment - 1].partition("(")[0]
        stopped = _traced(root, log, (name, sum(call.startswith(f"{name}(") for call in calls[:moment])),
                          signal_name)
        assert _stopped_at(log) == calls[moment - 1]  # the signal came at the call meant
        assert near.read_bytes() in (old, new), f"stopped at {calls[moment - 1]}"
        left = set(os.listdir(pkg)) - names
        if signal_name == "INT":
            assert stopped.returncode == 130 and "ppaux-lint: error: interrupted" in stopped.stderr, stopped.stderr
            assert not left
            continue
        assert stopped.returncode == -signal.SIGKILL, stopped.stderr
        assert all(TEMPORARY.fullmatch(name) for name in left), left
        if left:  # the next --fix of that file removes what the killed one left
            strays += 1
            assert fix(root).returncode == 0
            assert near.read_bytes() == new and set(os.listdir(pkg)) == names
    assert strays or signal_name == "INT", "no kill came between the temporary file's creation and its rename"


def test_only_temporary_files_of_writers_gone_are_removed(root: Path) -> None:
    """A temporary file is removed only when its name is the one a write of that file gives, by a process that
    no longer runs: a running writer's, a look-alike for another file and one whose number is no pid stay."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    pkg = root / "pkg"
    kept = {f".near.py.ppaux-lint.{os.getpid()}.0123abcd.tmp", f".other.py.ppaux-lint.{gone.pid}.0123abcd.tmp",
            f".near.py.ppaux-lint.{'9' * 30}.0123abcd.tmp", f".near.py.ppaux-lint.{gone.pid}.salt.tmp"}
    for name in (*kept, f".near.py.ppaux-lint.{gone.pid}.0123abcd.tmp"):
        (pkg / name).write_text("half a file", encoding="utf-8")
    assert fix(root).returncode == 0
    assert_fixed(root)
    assert {name for name in os.listdir(pkg) if ".tmp" in name} == kept


# -- what --fix may write ----------------------------------------------------------------------------------
@pytest.mark.parametrize("place, paths", [
    ("outside", ["."]),
    ("outside", ["pkg/evil.py", "pkg/near.py"]),
    ("proj/other", ["pkg"]),
], ids=["out of the project", "out of the project, named", "in the project, not checked"])
def test_a_symlink_to_a_file_not_checked_is_a_warning_and_not_followed(tmp_path: Path, root: Path, place: str,
                                                                       paths: list[str]) -> None:
    victim = tmp_path / place / "victim.py"
    victim.parent.mkdir(parents=True, exist_ok=True)
    victim.write_text(near_miss("Evil"), encoding="utf-8")
    link = root / "pkg" / "evil.py"
    link.symlink_to(victim)
    result = fix(root, *paths)
    assert victim.read_text(encoding="utf-8") == near_miss("Evil")
    assert link.is_symlink() and os.readlink(link) == str(victim)
    assert_not_fixed(result, "pkg/evil.py", f"a symlink to {victim}, which is not one of the checked files")
    assert_fixed(root)


@pytest.mark.parametrize("repository", [True, False], ids=["in a repository", "in none"])
def test_a_file_named_through_a_directory_link_out_of_the_repository_is_not_written(tmp_path: Path, root: Path,
                                                                                  repository: bool) -> None:
    """``vendor -> /elsewhere`` committed in the repository, and ``check --fix vendor/x.py`` (as a shell glob
    ``*/*.py`` gives it): the file is checked, but its repository's link chose where it is, so it is not
    written. A link outside every repository is the user's own, and is followed (``~/src -> /data/src``)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "victim.py"
    victim.write_text(near_miss("Evil"), encoding="utf-8")
    if repository:
        (root / ".git").mkdir()
    (root / "vendor").symlink_to(elsewhere)
    result = fix(root, "pkg/near.py", "vendor/victim.py")
    assert_fixed(root)
    if repository:
        assert victim.read_text(encoding="utf-8") == near_miss("Evil")
        assert_not_fixed(result, os.path.relpath(victim, root), "named through a link in a repository that leads "
                                                                "out of that repository")
    else:
        assert victim.read_text(encoding="utf-8") == fixed(near_miss("Evil"))


def test_a_symlink_to_a_checked_file_fixes_that_file_and_stays_a_link(root: Path) -> None:
    alias = root / "pkg" / "alias.py"
    alias.symlink_to("near.py")
    result = fix(root)
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    assert_fixed(root)
    assert alias.is_symlink() and os.readlink(alias) == "near.py"


def test_a_file_with_other_hard_links_is_a_warning_and_not_fixed(tmp_path: Path, root: Path) -> None:
    """Its other names may be anywhere on the file system: writing in place would change them too, replacing
    it would part it from them."""
    linked = root / "pkg" / "linked.py"
    linked.write_text(near_miss("Linked"), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere.py"
    os.link(linked, elsewhere)
    result = fix(root)
    assert os.path.samefile(linked, elsewhere)
    assert elsewhere.read_text(encoding="utf-8") == near_miss("Linked")
    assert_not_fixed(result, "pkg/linked.py", "it has 2 hard links")
    assert_fixed(root)


# -- a file saved while the fix was being made ---------------------------------------------------------------
def test_a_file_saved_between_the_read_and_the_rename_keeps_what_was_saved(root: Path, monkeypatch) -> None:
    """An editor saves the file after the fix read it and before the rename: the rename would put back text
    made from the old read and silently drop the user's edit. The file is read again just before the rename;
    what was saved stays, and the file is a warning, not fixed."""
    from ppaux_lint.fixes.writing import CheckedFiles, NotWritten
    from ppaux_lint.support import fileio

    path = root / "pkg" / "near.py"
    original = path.read_text(encoding="utf-8")
    saved = original + "USER_EDIT = 1\n"
    real_create = fileio.create_temporary

    def create_then_save(target, directory=None):  # the user's save lands while the temporary file is written
        made = real_create(target, directory)
        path.write_text(saved, encoding="utf-8")
        return made

    monkeypatch.setattr(fileio, "create_temporary", create_then_save)
    files = CheckedFiles({str(path)})
    with pytest.raises(NotWritten, match="changed since it was read"):
        files.write(str(path), fixed(original), "utf-8", original)
    assert path.read_text(encoding="utf-8") == saved
    assert [name for name in os.listdir(path.parent) if name.startswith(".")] == []  # no temporary file left
    monkeypatch.setattr(fileio, "create_temporary", real_create)
    files.write(str(path), fixed(saved), "utf-8", saved)  # what the next run does
    assert path.read_text(encoding="utf-8") == fixed(saved)


# -- a coding cookie whose codec does not write back what it read ------------------------------------------
@pytest.mark.parametrize("codec", ["idna", "unicode_escape"])
@pytest.mark.parametrize("mode", [["--fix"], ["--diff"], ["--add-noqa"], ["--fix", "--stdin-filename", "pkg/odd.py",
                                                                          "-"]])
def test_a_codec_that_does_not_write_back_its_bytes_leaves_the_file_and_the_run_goes_on(root: Path, codec: str,
                                                                                         mode: list[str]) -> None:
    """Python reads a file in any codec its cookie names that decodes it, and ``idna`` decodes a module but
    refuses to encode a line longer than a domain label (a UnicodeError that is no UnicodeEncodeError: an
    internal error, exit 2, that hid every other file's findings), while ``unicode_escape`` writes each newline
    as a backslash and an n (the file was refused as 'changed since it was read'). Such a file is left byte for
    byte as it was, with a warning that says why, and the other files are fixed and reported."""
    odd = root / "pkg" / "odd.py"
    data = f"# -*- coding: {codec} -*-\n{near_miss('Odd')}".encode("ascii")
    odd.write_bytes(data)
    args = ["check", "--no-cache", "--output-format", "concise", *mode, *([] if "-" in mode else ["."])]
    merged = {**os.environ, "NO_COLOR": "1"}
    merged.pop("CI", None)
    result = subprocess.run([*console(), *args], cwd=root, input=data if "-" in mode else None,
                            capture_output=True, timeout=120, env=merged, check=False)
    stderr = result.stderr.decode(errors="replace")
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    assert odd.read_bytes() == data
    assert f"the file's encoding, {codec}, does not write back the bytes it was read from" in stderr, stderr
    if "-" in mode:
        assert result.stdout.startswith(data), result.stdout  # the buffer as it came: nothing could be fixed
        assert result.returncode == 1, stderr
        return
    near = (root / "pkg" / "near.py").read_text(encoding="utf-8")
    if mode == ["--fix"]:
        assert near == fixed(NEAR)
        assert "pkg/odd.py:6:9: PPA017" in result.stdout.decode(), result.stdout
        assert result.returncode == 1, stderr
    elif mode == ["--diff"]:
        assert near == NEAR
        assert "+++ b/pkg/near.py" in result.stdout.decode() and "odd.py" not in result.stdout.decode()
        assert result.returncode == 1, stderr
    else:
        assert near == NEAR.replace("def to_pp_tensor(self):", "def to_pp_tensor(self):  # noqa: PPA017")
        assert result.returncode == 0, stderr


# -- a directory swapped for a link between the checks and the write -------------------------------------------
@pytest.mark.parametrize("when", ["before the directory is opened", "after the temporary file is made"])
def test_a_directory_swapped_for_a_link_cannot_redirect_a_fix(tmp_path: Path, root: Path, monkeypatch,
                                                              when: str) -> None:
    """``CheckedFiles.write`` judges the file by its realpath, then writes it: a directory of its path swapped
    meanwhile for a link to elsewhere (holding a file of the same name and text) was followed, and the fix was
    written outside the project. Now the directory is held by a descriptor opened without following links: a
    swap before that is refused (the file is not written), one after it changes nothing (the fix lands in the
    project's own directory, now under its new name)."""
    from ppaux_lint.fixes import writing
    from ppaux_lint.fixes.writing import CheckedFiles, NotWritten
    from ppaux_lint.support import fileio

    path = root / "pkg" / "near.py"
    original = path.read_text(encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "near.py").write_text(original, encoding="utf-8")
    # what a killed write there would have left (a process that no longer runs), and an attribute of its own: the
    # cleaning and the attribute copy went by path, through the link, where the write no longer does
    stray = f".near.py{fileio.TEMPORARY_MARK}{_dead_pid()}.0badf00d.tmp"
    (elsewhere / stray).write_text("", encoding="utf-8")
    try:
        os.setxattr(elsewhere / "near.py", "user.elsewhere", b"not the project's")
        attributes = True
    except (AttributeError, OSError):
        attributes = False

    def swap() -> None:
        os.rename(root / "pkg", root / "pkg.moved")
        os.symlink(elsewhere, root / "pkg")

    if when == "before the directory is opened":
        real_writable = writing.writable_file

        def writable_then_swap(target):
            info = real_writable(target)
            swap()
            return info

        monkeypatch.setattr(writing, "writable_file", writable_then_swap)
    else:
        real_create = fileio.create_temporary

        def create_then_swap(target, directory=None):
            made = real_create(target, directory)
            swap()
            return made

        monkeypatch.setattr(fileio, "create_temporary", create_then_swap)
    files = CheckedFiles({str(path)})
    if when == "before the directory is opened":
        with pytest.raises(NotWritten, match="cannot write it"):
            files.write(str(path), fixed(original), "utf-8", original)
        assert (root / "pkg.moved" / "near.py").read_text(encoding="utf-8") == original
    else:
        files.write(str(path), fixed(original), "utf-8", original)
        assert (root / "pkg.moved" / "near.py").read_text(encoding="utf-8") == fixed(original)
        if attributes:
            assert "user.elsewhere" not in os.listxattr(root / "pkg.moved" / "near.py")
    assert (elsewhere / "near.py").read_text(encoding="utf-8") == original
    assert sorted(os.listdir(elsewhere)) == sorted(["near.py", stray])


def _dead_pid() -> int:
    """A process number no process has now."""
    pid = 4_000_000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except OSError:
            pass
        pid += 1


def test_open_directory_follows_no_link(tmp_path: Path) -> None:
    from ppaux_lint.support.fileio import open_directory

    (tmp_path / "real" / "inner").mkdir(parents=True)
    os.symlink(tmp_path / "real", tmp_path / "link")
    fd = open_directory(tmp_path / "real" / "inner")
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(tmp_path / "real" / "inner"))
    finally:
        os.close(fd)
    with pytest.raises(OSError) as raised:
        open_directory(tmp_path / "link" / "inner")
    assert raised.value.errno in (errno.ELOOP, errno.ENOTDIR)
    with pytest.raises(OSError):
        open_directory("relative/path")
