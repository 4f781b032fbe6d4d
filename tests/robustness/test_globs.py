"""Every glob ppaux-lint matches answers in time linear in the path, and as pathspec (git's rules) answers.

pathspec's regular expressions backtrack exponentially in a pattern's ``*`` and ``**``: a pattern of a dozen
``*`` against a 36-character name ran for more than 30 s (issue 32). Each way a pattern reaches a path (a
config's ``exclude``, ``--exclude``, a .gitignore, ``per-file-ignores``, a workspace's ``members``) gets such
a pattern here and must finish within seconds; and ``project.globs.Globs`` must give pathspec's answer on
ordinary patterns, whichever of its two matchers it uses.
"""

from __future__ import annotations

import time
from pathlib import Path
from unittest import mock

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppaux_lint.project import globs
from ppaux_lint.project.globs import Globs
from ppaux_lint.support import linear_regex

from ._support import BROKEN_OUTPUT, by_file, deadline, run, write_tree

STARS = "*a" * 16 + "*c"  # needs a "c": against a name of a's, re tried every way to share it among 17 stars
NAME = "a" * 33 + ".py"  # 36 characters
SECONDS = 2  # what each run below may take; before the fix each ran for minutes

# where the pattern goes: the pyproject.toml table, the .gitignore and the run's options that put it there
WAYS = {
    "extend-exclude path": ('[tool.ppaux-lint]\nextend-exclude = ["pkg/{0}"]\n', "", {}),
    "extend-exclude name": ('[tool.ppaux-lint]\nextend-exclude = ["{0}", "pkg/**/{0}/**/{0}"]\n', "", {}),
    "--exclude": ("", "", {"exclude": (f"pkg/{STARS}", f"**/{STARS}/**/{STARS}")}),
    "per-file-ignores": ('[tool.ppaux-lint.per-file-ignores]\n"pkg/{0}" = ["PPA001"]\n', "", {}),
    ".gitignore": ("", "{0}\npkg/{0}\n**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/{0}\n", {}),
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_pattern_of_many_stars_is_matched_at_once(tmp_path: Path, way: str) -> None:
    table, gitignore, options = WAYS[way]
    root = write_tree(tmp_path, {"pkg/__init__.py": "", f"pkg/{NAME}": BROKEN_OUTPUT, ".gitignore": gitignore.format(STARS)},
                      table.format(STARS))
    with deadline(120):
        start = time.perf_counter()
        findings = run(root, no_cache=True, **options).findings
        assert time.perf_counter() - start < SECONDS
    assert by_file(findings, root) == {f"pkg/{NAME}": {"PPA001"}}  # no pattern matches: the file is checked


def test_a_workspace_member_pattern_of_many_stars_is_matched_at_once(tmp_path: Path) -> None:
    outer = write_tree(tmp_path, {}, f'[tool.uv.workspace]\nmembers = ["{STARS}"]\n')
    inner = write_tree(outer / NAME.replace(".", "_"), {"pkg/__init__.py": "", "pkg/broken.py": BROKEN_OUTPUT})
    with deadline(120):
        start = time.perf_counter()
        analysis = run(inner, no_cache=True)
        assert time.perf_counter() - start < SECONDS
    assert analysis.project.root == inner
    assert by_file(analysis.findings, inner) == {"pkg/broken.py": {"PPA001"}}


@pytest.mark.parametrize("pattern", [STARS, f"pkg/{STARS}/x", "**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b",
                                     "*a?" * 12 + "c", "[!b]*" * 14 + "c/"])
@pytest.mark.parametrize("path", [NAME, f"pkg/{NAME}", "a/" * 40 + "c", ("a" * 200 + "/") * 20 + "b"])
def test_globs_take_linear_time_where_pathspec_backtracks(pattern: str, path: str) -> None:
    spec = Globs([pattern])
    with deadline(60):
        start = time.perf_counter()
        spec.match_file(path)
        assert time.perf_counter() - start < SECONDS


def test_the_linear_matcher_tests_each_character_once_per_instruction() -> None:
    """The bound itself, counted: each (instruction, position) is tried at most once, so a name twice as long
    costs at most twice the tests, where re's work multiplies with each star."""
    program = linear_regex.compile(pathspec.GitIgnoreSpec.from_lines([STARS]).patterns[0].regex.pattern)
    assert program is not None
    tests: list[int] = []

    def counted(test):
        return lambda char: tests.append(1) or test(char)

    program.args = [counted(arg) if op == linear_regex._CHAR else arg for op, arg in zip(program.ops, program.args,
                                                                                          strict=True)]
    for length in (36, 72, 144):
        tests.clear()
        assert program.match("a" * length + "cx") is None  # every letter the pattern names, in order: read it all
        assert 0 < len(tests) <= len(program.ops) * (length + 1)


# -- the same answers as pathspec --------------------------------------------------------------------------

PIECES = ("a", "b", "ab", ".", "*", "**", "?", "[ab]", "[!a]", "[]a]", "[a-b]", "\\*", "\\[", "/", " ", "\\ ", "#")
SEGMENTS = ("a", "b", "ab", "ba", "aa", ".a", "a.b", "*", "[", "]", " ", "a b", "#", "a\n", "\n")


@st.composite
def patterns(draw) -> str:
    body = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6)))
    return draw(st.sampled_from(["", "!", "/", "**/"])) + body + draw(st.sampled_from(["", "/", "/**"]))


paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("/".join).map(
    lambda path: path + "/" if path.endswith("a") else path)  # a directory, as the walk asks about one


@pytest.mark.parametrize("matcher", ["re", "linear"])
@settings(max_examples=600, deadline=None)
@given(lines=st.lists(patterns(), min_size=1, max_size=3), tried=st.lists(paths, min_size=1, max_size=5))
def test_globs_answer_as_pathspec(matcher: str, lines: list[str], tried: list[str]) -> None:
    with mock.patch.object(globs, "RE_WORK", 10 ** 100 if matcher == "re" else -1):
        _assert_as_pathspec(lines, tried)


def _assert_as_pathspec(lines: list[str], tried: list[str]) -> None:
    try:
        reference = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # pathspec rejects it: so does Globs, with pathspec's message
        with pytest.raises(ValueError):
            Globs(lines)
        return
    spec = Globs(lines)
    assert all(pattern.program is not None for pattern in spec.patterns), "a pattern the linear matcher cannot read"
    for path in tried:
        assert spec.match_file(path) == reference.match_file(path), (lines, path)
