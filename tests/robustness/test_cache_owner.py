"""The cache's owner (``cache/owner.py``): one object per run answers every question about the disk, from one
directory, and writes nothing before it has something to keep.

Each test drives a :class:`ProjectCache` as ``check`` does (replay, stat the inputs, hand out the store,
save, record) on a small project, then looks at the directory, or asks a second owner what the first kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

import ppaux_lint.cache.owner as owner_module
import ppaux_lint.cache.store as store_module
from ppaux_lint.cache.directory import CACHE_DIR_NAME
from ppaux_lint.cache.owner import ProjectCache
from ppaux_lint.check.engine import analyze
from ppaux_lint.cli.checking import check_project
from ppaux_lint.project.discover import Discovery
from ppaux_lint.project.loading import Options, Project, asked, discover_files, load_project
from ppaux_lint.scan.prefilter import initial_tokens

from ._support import BROKEN_OUTPUT, chdir, key, write_tree

FILES = {"pkg/__init__.py": "", "pkg/broken.py": BROKEN_OUTPUT, "pkg/plain.py": "class Plain:\n    pass\n"}
MARKERS = {".gitignore", "CACHEDIR.TAG"}


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    root = write_tree(tmp_path / "proj", FILES)
    with chdir(root):  # the record names the working directory: every owner of a test runs from the root
        yield root


def _loaded(options: Options) -> tuple[list[Path], Project, Discovery]:
    given = asked(["."])
    project = load_project(given, options)
    return given, project, discover_files(given, options, project)


def _check(cache: ProjectCache, options: Options) -> list[tuple]:
    """What ``check_project`` does with its owner, step by step; the findings."""
    given, project, discovery = _loaded(options)
    assert cache.replay(given) is None
    cache.stat_inputs(discovery)
    analysis = analyze(given, options, project, discovery, cache)
    cache.record(analysis.findings, discovery.warnings, len(discovery.targets))
    return key(analysis.findings)


def _tree(directory: Path) -> set[str]:
    return {str(path.relative_to(directory)) for path in directory.rglob("*")} if directory.exists() else set()


def test_a_disabled_owner_misses_everything_and_writes_nothing(root: Path) -> None:
    check_project(["."], Options())  # a warm cache, record and all: the disabled owner must not use it
    before = _tree(root / CACHE_DIR_NAME)
    options = Options(no_cache=True)
    given, project, discovery = _loaded(options)
    cache = ProjectCache(project, options)
    assert cache.replay(given) is None
    cache.stat_inputs(discovery)
    store = cache.summaries(discovery.files)
    broken = store.by_path[str(root / "pkg/broken.py")]
    assert not cache.records_scans
    assert cache.scanned(broken.path, initial_tokens(project.config.protocols)) == (None, None)
    summary = store.summarize([broken])[broken.path]  # parsed, since nothing is served from disk
    assert cache.summary(cache.summary_key(broken, b"", 10), broken) is None
    cache.keep_summary("0" * 32, summary)
    cache.finish()
    cache.record([], (), 1)
    assert _tree(root / CACHE_DIR_NAME) == before
    assert _check(ProjectCache(project, options), options) == key(check_project(["."], Options()).findings)
    assert _tree(root / CACHE_DIR_NAME) == before


def test_the_directory_and_its_markers_appear_with_the_first_write(root: Path, tmp_path: Path) -> None:
    directory = tmp_path / "elsewhere" / "cache"  # --cache-dir, outside the project
    options = Options(cache_dir=directory)
    given, project, discovery = _loaded(options)
    cache = ProjectCache(project, options)
    assert cache.directory == directory
    assert cache.replay(given) is None  # reading the record, the scan index, an entry: nothing is made
    store = cache.summaries(discovery.files)
    plain = store.by_path[str(root / "pkg/plain.py")]
    assert cache.summary(cache.summary_key(plain, (root / "pkg/plain.py").read_bytes(), 10), plain) is None
    assert not directory.exists()
    store.summarize([plain])  # its entry waits for the end of the analysis, to be written with the others
    assert not directory.exists()
    cache.finish()  # the first write: the entry, under the markers
    assert {path.name for path in directory.iterdir()} >= MARKERS
    assert [path.name for path in directory.rglob("*.json") if path.parent.name == "summaries"]
    assert not (root / CACHE_DIR_NAME).exists()


def test_a_relative_cache_dir_is_the_project_roots(root: Path) -> None:
    _, project, _ = _loaded(Options())
    with chdir(root / "pkg"):
        assert ProjectCache(project, Options(cache_dir=Path("c"))).directory == root / "c"
    assert ProjectCache(project, Options()).directory == root / CACHE_DIR_NAME


def test_no_cache_is_made_at_the_file_system_root(root: Path) -> None:
    """Files in unrelated trees (``check /tmp/a.py /var/b.py``, an editor's buffers there) make ``/`` the
    project's root: ``/.ppaux_lint_cache`` is no place for a cache nobody asked for, so the run keeps none."""
    _, project, _ = _loaded(Options())
    top = dataclasses.replace(project, root=Path(Path.cwd().anchor))
    assert not ProjectCache(top, Options()).enabled
    assert ProjectCache(project, Options()).enabled


def test_one_owner_keeps_summaries_scans_and_the_record_in_one_directory(root: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    options = Options()
    expected = _check(ProjectCache(_loaded(options)[1], options), options)
    directory = root / CACHE_DIR_NAME
    assert {Path(path).parts[0] for path in _tree(directory)} == {*MARKERS, "runs", next(
        path.name for path in directory.iterdir() if path.is_dir() and path.name != "runs")}

    given, project, discovery = _loaded(options)
    replayed = ProjectCache(project, options).replay(given)  # the record
    assert replayed is not None and key(replayed.findings) == expected

    def unread(path: str) -> bytes:
        raise AssertionError(f"{path} was read")

    def unparsed(item):
        raise AssertionError(f"{item[0].path} was parsed")

    cache = ProjectCache(project, options)
    store = cache.summaries(discovery.files, isolate=False)
    with monkeypatch.context() as patch:
        patch.setattr(store_module, "_read", unread)  # the scan index answers
        hits = store.scan(discovery.files, initial_tokens(project.config.protocols))
    assert [source.path for source in hits] == [str(root / "pkg/broken.py")]
    monkeypatch.setattr(store_module, "_summarize_one", unparsed)  # the summaries' entries answer
    assert store.summarize(hits)[str(root / "pkg/broken.py")].classes


def test_the_scan_index_trusts_the_stats_the_record_took(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each input is stat once per run: after ``stat_inputs``, the scan index asks the disk nothing more."""
    options = Options()
    _check(ProjectCache(_loaded(options)[1], options), options)  # warm
    (root / "pkg/plain.py").write_text("class Plain:\n    x = 1\n", encoding="utf-8")  # a miss: analyse again
    given, project, discovery = _loaded(options)
    cache = ProjectCache(project, options)
    assert cache.replay(given) is None
    cache.stat_inputs(discovery)

    def no_stat(*args, **kwargs):
        raise AssertionError("stat taken twice")

    monkeypatch.setattr(owner_module, "stamp", no_stat)
    store = cache.summaries(discovery.files)
    known = {path: cache.scanned(path, initial_tokens(project.config.protocols))[0] for path in store.by_path}
    assert known[str(root / "pkg/broken.py")] is True and known[str(root / "pkg/plain.py")] is None  # it changed
