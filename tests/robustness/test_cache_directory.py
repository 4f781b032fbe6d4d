"""What the cache directory may be, and what ``clean`` may touch (docs/reliability.md, "The cache's directory").

The cache keeps a ``.gitignore`` of ``*`` and a ``CACHEDIR.TAG`` at its top, so a directory that holds the
user's files must never become it: git would ignore the whole tree, backup tools would skip it, and the next
run's discovery would check no file and pass. ``check`` therefore refuses (exit 2, one line naming the setting)
a cache directory that is or contains what it checks, or that exists and is neither empty nor ppaux-lint's,
and writes nothing; ``clean`` removes only a directory ppaux-lint made, reached without a symbolic link, and
only the files ppaux-lint writes in it, and says what it could not remove. Each project here sits one level
below a directory that also holds a sibling, so that a ``..`` names something the test can look at.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ppaux_lint.cache.directory import CACHE_DIR_NAME, MARKERS
from ppaux_lint.support.fileio import create_temporary

from ._support import BROKEN_OUTPUT, cli, console, one_error_line, write_tree

FILES = {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT, "notes/README.md": "my notes\n",
         ".pytest_cache/CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n"
                                      "# This file is a cache directory tag created by pytest.\n",
         ".pytest_cache/README.md": "pytest's cache\n"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "outer" / "proj", FILES)
    (root / "here").symlink_to(root, target_is_directory=True)  # a name for the root itself
    write_tree(tmp_path / "outer" / "sibling", {"keep.txt": "a sibling's file\n"})
    return root


def _snapshot(directory: Path) -> dict[str, bytes | str | None]:
    """Every path below ``directory``, links not followed: a file's bytes, a link's target, None for a
    directory."""
    out: dict[str, bytes | str | None] = {}
    for parent, directories, files in os.walk(directory):
        for name in (*directories, *files):
            path = os.path.join(parent, name)
            out[os.path.relpath(path, directory)] = (os.readlink(path) if os.path.islink(path) else None
                                                     if name in directories else Path(path).read_bytes())
    return out


def _without(snapshot: dict[str, bytes | str | None], directory: str) -> dict[str, bytes | str | None]:
    """``snapshot`` less ``directory`` (relative) and all below it."""
    return {path: data for path, data in snapshot.items() if not (path + os.sep).startswith(directory + os.sep)}


def _with_setting(root: Path, value: str) -> None:
    with (root / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write(f"[tool.ppaux-lint]\ncache-dir = {value!r}\n")


def _found(result: subprocess.CompletedProcess) -> bool:
    return result.returncode == 1 and "pkg/good.py" in result.stdout


# -- check: no setting makes the cache share a directory with the user's files --------------------------------

# name -> the cache directory, as a value relative to the project root ({root}: its absolute path)
SHARED = {
    "the_root": ".",
    "the_root_with_a_slash": "./",
    "the_root_through_a_package": "pkg/..",
    "the_root_spelt_absolute": "{root}",
    "a_link_to_the_root": "here",
    "the_parent": "..",
    "a_package_that_is_checked": "pkg",
    "a_directory_of_the_users": "notes",
    "another_tools_cache": ".pytest_cache",
}


@pytest.mark.parametrize("origin", ["config", "command_line"])
@pytest.mark.parametrize("name", sorted(SHARED))
def test_check_refuses_a_cache_dir_that_holds_the_users_files(root: Path, name: str, origin: str) -> None:
    value = SHARED[name].format(root=root)
    args = ["check", "--output-format", "concise", "."]
    if origin == "config":
        _with_setting(root, value)
    else:
        args[1:1] = ["--cache-dir", value]
    before = _snapshot(root.parent)
    for _ in range(2):  # the second run is the one an earlier marker would have blinded
        result = cli(args, root)
        assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
        line = one_error_line(result.stderr)
        assert ("'tool.ppaux-lint.cache-dir'" if origin == "config" else "--cache-dir") in line, line
        assert "All checks passed" not in result.stdout
    assert _snapshot(root.parent) == before  # not a marker, not a record: nothing written anywhere


def test_check_refuses_a_cache_dir_that_would_hold_a_file_asked_about(root: Path) -> None:
    """An editor's buffer not saved yet, in a directory not made yet: the cache must not be made around it."""
    result = subprocess.run([*console(), "check", "--cache-dir", "new", "--stdin-filename", "new/draft.py", "-"],
                            cwd=root, input=BROKEN_OUTPUT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "new/draft.py" in one_error_line(result.stderr)
    assert not (root / "new").exists()


# name -> a cache directory that holds nothing of the user's, and where to look for its files
OWN = {
    "the_default": CACHE_DIR_NAME,
    "a_new_directory_inside_the_project": "build/lint-cache",
    "an_empty_directory": "empty",
    "outside_the_project": "{outer}/caches/proj",
    "through_a_link_to_outside": "caches-link/proj",
}
OUTSIDE = {"outside_the_project", "through_a_link_to_outside"}
"""Places the user may choose with ``--cache-dir``, and a repository's ``cache-dir`` may not (``test_check_refuses_a_
repository_that_puts_its_cache_outside_itself``)."""


@pytest.mark.parametrize("name", sorted(OWN))
def test_check_keeps_its_cache_apart_and_checks_every_file(root: Path, name: str) -> None:
    (root / "empty").mkdir()
    (root.parent / "elsewhere").mkdir()
    (root / "caches-link").symlink_to(root.parent / "elsewhere", target_is_directory=True)
    value = OWN[name].format(outer=root.parent)
    flag = ["--cache-dir", value] if name in OUTSIDE else []
    if not flag:
        _with_setting(root, value)
    cache = Path(os.path.realpath(root / value))
    before = _snapshot(root.parent)
    for _ in range(3):  # cold, warm (scan index and summaries), replayed
        result = cli(["check", *flag, "--output-format", "concise", "."], root)
        assert _found(result), (result.returncode, result.stdout, result.stderr)
    assert (cache / "CACHEDIR.TAG").is_file() and list((cache / "runs").iterdir())
    relative = str(cache.relative_to(root.parent))
    before, after = _without(before, relative), _without(_snapshot(root.parent), relative)
    assert {path: after.get(path) for path in before} == before  # outside the cache, nothing changed
    made = {str(parent.relative_to(root.parent)) for parent in cache.parents if root.parent in parent.parents}
    assert set(after) - set(before) <= made  # but the directories made to hold it


@pytest.mark.parametrize("how", ["absolute", "parent", "link", "committed-link-at-the-default", "a-file",
                                 "a-device"])
def test_check_refuses_a_repository_that_puts_its_cache_outside_itself(root: Path, how: str) -> None:
    """A repository's config (or a link it commits at ``.ppaux_lint_cache``) does not choose where ppaux-lint makes
    directories and writes files outside it: exit 2, one line naming the setting, nothing made anywhere. Nor is
    a file, or ``/dev/null``, a cache."""
    (root.parent / "elsewhere").mkdir()
    value = {"absolute": str(root.parent / "made" / "by-the-repo"), "parent": "../made/by-the-repo",
             "link": "out/cache", "a-file": "pyproject.toml", "a-device": os.devnull}.get(how)
    (root / "out").symlink_to(root.parent / "elsewhere", target_is_directory=True)
    flag = ["--cache-dir", value] if how == "a-device" else []  # the user's own: refused all the same
    if how == "committed-link-at-the-default":
        (root / CACHE_DIR_NAME).symlink_to(root.parent / "elsewhere", target_is_directory=True)
    elif not flag:
        _with_setting(root, value)
    before = _snapshot(root.parent)
    result = cli(["check", *flag, "--output-format", "concise", "."], root)
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = one_error_line(result.stderr)
    assert ("outside the project" if how not in ("a-file", "a-device") else "is not a directory") in line, line
    assert _snapshot(root.parent) == before
    assert not (root.parent / "made").exists() and not os.listdir(root.parent / "elsewhere")


def test_the_command_line_wins_over_a_refused_setting_and_no_cache_uses_neither(root: Path) -> None:
    _with_setting(root, ".")
    elsewhere = root.parent / "elsewhere"
    result = cli(["check", "--cache-dir", str(elsewhere), "--output-format", "concise", "."], root)
    assert _found(result), result.stderr
    assert (elsewhere / "CACHEDIR.TAG").is_file() and not (root / "CACHEDIR.TAG").exists()
    result = cli(["check", "--no-cache", "--output-format", "concise", "."], root)
    assert _found(result), result.stderr
    before = _snapshot(root)
    result = cli(["clean", "--cache-dir", str(elsewhere)], root)
    assert result.returncode == 0 and not elsewhere.exists(), result.stderr
    assert _snapshot(root) == before  # no marker, no record in the project, and clean left it as it was


# -- clean: only a directory ppaux-lint made, only ppaux-lint's files in it ---------------------------------


@pytest.mark.parametrize("origin", ["config", "command_line"])
@pytest.mark.parametrize("name", sorted(SHARED))
def test_clean_refuses_a_directory_ppaux_lint_did_not_make(root: Path, name: str, origin: str) -> None:
    value = SHARED[name].format(root=root)
    if origin == "config":
        _with_setting(root, value)
    before = _snapshot(root.parent)
    result = cli(["clean", *(["--cache-dir", value] if origin == "command_line" else [])], root)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    one_error_line(result.stderr)
    assert "Removed" not in result.stdout
    assert _snapshot(root.parent) == before


def test_clean_refuses_the_project_even_where_an_earlier_version_marked_it(root: Path) -> None:
    for name, text in MARKERS.items():  # what an earlier version wrote where `cache-dir = "."` let it
        (root / name).write_bytes(text)
    _with_setting(root, ".")
    before = _snapshot(root.parent)
    result = cli(["clean"], root)
    assert result.returncode == 2 and "project root" in one_error_line(result.stderr), result.stderr
    assert _snapshot(root.parent) == before


@pytest.mark.parametrize("paths", [[], ["."], ["pkg"], ["pkg/good.py"]])
def test_markers_an_earlier_version_left_in_the_project_hide_nothing(root: Path, paths: list[str]) -> None:
    """The project where an earlier `cache-dir = "."` left the cache's markers: its .gitignore of '*' would
    make the run check no file and pass, so it is not applied where it would hide a path checked, and a warning
    says to delete it."""
    for name, text in MARKERS.items():
        (root / name).write_bytes(text)
    for args in (["--no-cache"], []):  # cold, and with the default cache inside the project
        result = cli(["check", *args, "--output-format", "concise", *paths], root)
        assert _found(result), result.stdout + result.stderr
        warned = "proj/.gitignore: written by ppaux-lint for a cache directory" in result.stderr
        assert warned or paths == ["pkg"], result.stderr  # a walk from pkg/ never reads the root's .gitignore


def _warm(root: Path, cache: Path | None = None) -> Path:
    """A real cache (the default, else ``cache``): summaries, the scan index, two commands' records, and the
    temporary file a write killed halfway leaves."""
    args = ["--cache-dir", str(cache)] if cache is not None else []
    for paths in (["."], ["pkg"]):
        assert _found(cli(["check", *args, "--output-format", "concise", *paths], root))
    cache = cache or root / CACHE_DIR_NAME
    fd, _ = create_temporary(next(cache.glob("*/scan.json")))
    os.close(fd)
    return cache


def test_clean_removes_a_cache_it_made_and_nothing_else(root: Path) -> None:
    cache = _warm(root)
    before = _snapshot(root.parent)
    result = cli(["clean"], root)
    assert result.returncode == 0 and result.stdout == f"Removed cache at {cache}\n", result.stderr
    assert not os.path.lexists(cache)
    assert _snapshot(root.parent) == _without(before, f"proj/{CACHE_DIR_NAME}")
    result = cli(["clean"], root)
    assert result.returncode == 0 and result.stdout == f"No cache at {cache}\n", result.stderr


def test_clean_keeps_what_is_not_ppaux_lints_and_says_so(root: Path) -> None:
    cache = _warm(root)
    theirs = {"notes.txt": b"kept\n", "runs/mine.txt": b"kept too\n", "junk/x.json": b"{}"}
    for relative, data in theirs.items():
        (cache / relative).parent.mkdir(parents=True, exist_ok=True)
        (cache / relative).write_bytes(data)
    (cache / "summaries-link").symlink_to(root / "pkg", target_is_directory=True)
    (cache / ".gitignore").write_text("*\n!notes.txt\n", encoding="utf-8")  # edited: the user's now
    theirs[".gitignore"] = b"*\n!notes.txt\n"
    result = cli(["clean"], root)
    assert result.returncode == 2, (result.stdout, result.stderr)
    line = one_error_line(result.stderr)
    assert "Removed cache" not in result.stdout and str(cache) in line
    for kept in ("notes.txt", "runs/mine.txt", "junk", "summaries-link", ".gitignore"):
        assert kept in line, (kept, line)
    left = _snapshot(cache)
    assert {relative: left[relative] for relative in theirs} == theirs
    assert set(left) == {*theirs, "runs", "junk", "summaries-link"}  # every file of ppaux-lint's is gone
    assert (root / "pkg" / "good.py").read_text(encoding="utf-8") == BROKEN_OUTPUT  # the link was not followed


def test_clean_through_a_symlinked_cache_removes_nothing_and_says_so(root: Path) -> None:
    target = _warm(root, root.parent / "elsewhere")
    (root / CACHE_DIR_NAME).symlink_to(target, target_is_directory=True)
    before = _snapshot(root.parent)
    result = cli(["clean"], root)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "symbolic link" in one_error_line(result.stderr) and "Removed" not in result.stdout
    assert _snapshot(root.parent) == before
    result = cli(["clean", "--cache-dir", str(target)], root)  # the cache itself, named as what it is
    assert result.returncode == 0 and not target.exists(), result.stderr


@pytest.mark.parametrize("value", ["../other/.ppaux_lint_cache", "link/.ppaux_lint_cache"], ids=["parent", "link"])
def test_clean_refuses_a_repository_s_cache_dir_outside_itself(root: Path, value: str) -> None:
    """What ``check`` refuses to use, ``clean`` refuses to remove: a repository's setting (through ``..`` or a link
    it commits) naming another project's cache leaves that cache alone."""
    other = _warm(write_tree(root.parent / "other", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT}))
    (root / "link").symlink_to(root.parent / "other", target_is_directory=True)
    _with_setting(root, value)
    before = _snapshot(root.parent)
    result = cli(["clean"], root)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "outside the project" in one_error_line(result.stderr) and "Removed" not in result.stdout
    assert _snapshot(root.parent) == before and other.is_dir()


@contextlib.contextmanager
def _undeletable(path: Path) -> Iterator[None]:
    """``path`` really cannot be removed while inside: root ignores permissions, so for root the file is made
    immutable; for anyone else its directory is made read-only."""
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("this file system cannot make a file immutable")
        try:
            yield
        finally:
            subprocess.run([chattr, "-i", str(path)], check=True)
    else:
        mode = path.parent.stat().st_mode
        path.parent.chmod(0o555)
        try:
            yield
        finally:
            path.parent.chmod(mode)


def test_clean_of_a_partly_undeletable_cache_says_what_it_left(root: Path) -> None:
    cache = _warm(root)
    stuck, other = sorted((cache / "runs").iterdir())
    other.unlink()  # one record alone in its directory, so that either way of pinning it pins only it
    with _undeletable(stuck):
        result = cli(["clean"], root)
        assert result.returncode == 2, (result.stdout, result.stderr)
        line = one_error_line(result.stderr)
        assert "Removed cache" not in result.stdout and f"runs/{stuck.name}" in line and "removed" in line, line
        assert set(_snapshot(cache)) == {"runs", f"runs/{stuck.name}", ".gitignore", "CACHEDIR.TAG"}
    result = cli(["clean"], root)  # the tag stayed, so the directory is still ppaux-lint's to finish
    assert result.returncode == 0 and not cache.exists(), result.stderr


@pytest.mark.parametrize("step", ["version", "summaries", "packs", "runs"])
def test_a_link_planted_inside_the_cache_is_never_written_through(root: Path, tmp_path: Path, step: str) -> None:
    """A cache committed to a repository can carry a link where ppaux-lint makes a directory of its own: the
    cache's files (a pack, entries, the scan index, a record) must not land where it points."""
    files = {f"pkg/out{i:02d}.py": BROKEN_OUTPUT for i in range(20)}  # enough for a pack
    for relative, text in files.items():
        (root / relative).write_text(text, encoding="utf-8")
    expected = cli(["check", "--no-cache", "--output-format", "concise", "."], root).stdout
    cache = _warm(root)
    version = next(p for p in cache.iterdir() if p.is_dir() and p.name != "runs")
    planted = {"version": version, "summaries": version / "summaries", "packs": version / "packs",
               "runs": cache / "runs"}[step]
    shutil.rmtree(planted)
    victim = tmp_path / "victim"
    victim.mkdir()
    planted.symlink_to(victim, target_is_directory=True)
    for relative, text in files.items():  # every summary is made again, so every kind of file is written
        (root / relative).write_text(text + "\n# edited\n", encoding="utf-8")
    for _ in range(2):
        result = cli(["check", "--output-format", "concise", "."], root)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert result.stdout == expected  # the same findings
    assert list(victim.iterdir()) == []
    assert planted.is_symlink()


def test_a_sub_project_may_keep_its_cache_at_the_top_of_its_repository(tmp_path: Path) -> None:
    """In a monorepo, ``cache-dir = "../.cache/ppaux-lint"`` in a sub-project's config stays inside the repository
    (the directory holding ``.git``), which is the repository's to use."""
    repository = tmp_path / "mono"
    (repository / ".git").mkdir(parents=True)
    root = write_tree(repository / "pkg", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT},
                      '[tool.ppaux-lint]\ncache-dir = "../.cache/ppaux-lint"\n')
    result = cli(["check", "--output-format", "concise", "."], root)
    assert _found(result), (result.returncode, result.stdout, result.stderr)
    assert (repository / ".cache" / "ppaux-lint" / "CACHEDIR.TAG").is_file()


@pytest.mark.parametrize("how", ["config", "committed-link", "command-line"])
def test_no_cache_goes_inside_version_control_s_own_directory(tmp_path: Path, how: str) -> None:
    """``.git/refs/tags`` is empty in a repository without tags: a cache there left files that broke ``git tag`` and
    ``git gc``. Refused whoever chose it."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT},
                      '[tool.ppaux-lint]\ncache-dir = ".git/refs/tags"\n' if how == "config" else "")
    (root / ".git" / "refs" / "tags").mkdir(parents=True)
    if how == "committed-link":
        (root / CACHE_DIR_NAME).symlink_to(root / ".git" / "refs" / "tags", target_is_directory=True)
    flag = ["--cache-dir", ".git/refs/tags"] if how == "command-line" else []
    result = cli(["check", *flag, "--output-format", "concise", "."], root)
    assert result.returncode == 2 and "version control's own directory" in one_error_line(result.stderr)
    assert os.listdir(root / ".git" / "refs" / "tags") == []


def test_a_repository_of_dotfiles_at_home_is_not_the_project_s(tmp_path: Path) -> None:
    """A project with no repository of its own under a home directory that is one (dotfiles): its config may not
    put the cache anywhere in the home directory."""
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    root = write_tree(home / "work" / "proj", {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT},
                      '[tool.ppaux-lint]\ncache-dir = "../../.config/autostart/ppaux"\n')
    result = cli(["check", "--output-format", "concise", "."], root, env={"HOME": str(home)})
    assert result.returncode == 2 and "lies outside the project" in one_error_line(result.stderr)
    assert not (home / ".config").exists()


@pytest.mark.parametrize("how", ["path", "stdin-filename"])
def test_a_file_outside_any_project_and_the_working_directory_gets_no_cache_beside_it(tmp_path: Path,
                                                                                     how: str) -> None:
    """``check /etc/x.py`` (or ``--stdin-filename /etc/x.py``) from another directory made ``/etc`` the project,
    a loose directory with no marker, and wrote ``/etc/.ppaux_lint_cache``: ruff never writes a cache beside such
    a file. It is checked without a cache; ``--cache-dir`` still gives it one, and run from that directory, or on
    a file in a project (a pyproject.toml or .git), it keeps its cache as before."""
    loose = tmp_path / "etc"
    loose.mkdir()
    (loose / "x.py").write_text(BROKEN_OUTPUT)
    (loose / "other.py").write_text(BROKEN_OUTPUT)  # a buffer's neighbours are what its cache would keep
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    args = (["check", str(loose / "x.py")] if how == "path"
            else ["check", "--stdin-filename", str(loose / "x.py"), "-"])

    def check(*more: str, cwd: Path = elsewhere) -> None:
        result = subprocess.run([*console(), *args[:1], *more, *args[1:]], cwd=cwd, input=BROKEN_OUTPUT,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 1 and "PPA001" in result.stdout, result.stderr

    check()
    assert sorted(os.listdir(loose)) == ["other.py", "x.py"] and os.listdir(elsewhere) == []
    check("--cache-dir", str(tmp_path / "asked"))
    assert (tmp_path / "asked").is_dir()
    check(cwd=loose)  # the working directory's own files: cached there, as before
    assert (loose / CACHE_DIR_NAME).is_dir()
    shutil.rmtree(loose / CACHE_DIR_NAME)
    (loose / "pyproject.toml").write_text('[project]\nname = "x"\n')  # a project: its root keeps its cache
    check()
    assert (loose / CACHE_DIR_NAME).is_dir()
