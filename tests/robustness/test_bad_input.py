"""Files that cannot be read as Python each become one PPA000 with a reason and a location; the run goes on.

Also: a crash of the parser's process is isolated to the file that caused it
(simulated by killing the worker from inside ``_summarize_one``, which the
forked workers inherit), and genuinely deep expressions do not take the run down.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ppaux_lint.cache.store as store
import ppaux_lint.support.children as children
from ppaux_lint.facts.summarize.source import summarize_source

from ._processes import crash
from ._support import AUX, BROKEN_OUTPUT, TOKEN_LINE, by_file, cli, run, write_tree

T = TOKEN_LINE.encode()
PEP_758 = sys.version_info >= (3, 14)

# name -> (file bytes, expected reason fragment, expected line)
BAD_FILES: dict[str, tuple[bytes, str, int]] = {
    "syntax_error": (T + b"def f(:\n    pass\n", "syntax error", 2),
    "python2_print": (T + b'print "x"\n', "syntax error: Missing parentheses in call to 'print'", 2),
    # Python 3.14 reads it as ``except (ValueError, e):``, a syntax error for the default target, 3.10, which it
    # locates after the handler
    "python2_except": (T + b"try:\n    pass\nexcept ValueError, e:\n    pass\n", "syntax error", 4 + PEP_758),
    "invalid_utf8": (T + b"x = 1\ny = '\xff\xfe'\n", "cannot decode as utf-8", 3),
    "nul_byte": (T + b"x = 1\ny = 2\x00\n", "NUL byte", 3),
    "unknown_cookie": (b"# -*- coding: klingon -*-\n" + T, "unknown encoding: klingon", 1),
    "undefined_codec_cookie": (b"# coding: undefined\n" + T, "cannot decode", 1),
    "punycode_cookie": (b"# coding: punycode\n" + T + b"x = 1\n", "cannot decode", 1),
    "binary_codec_cookie": (b"# coding: base64\n" + T, "not a text encoding", 1),
    "bom_and_other_cookie": (b"\xef\xbb\xbf# coding: latin-1\n" + T, "cannot decode", 1),
    "ascii_cookie_non_ascii": (b"# coding: ascii\n" + T + b"x = '\xe9'\n", "cannot decode as ascii", 3),
    "tabs_and_spaces": (T + b"def f():\n\tif 1:\n        pass\n", "syntax error: inconsistent use of tabs", 4),
    "unterminated_string": (T + b"x = '''abc\n", "syntax error", 2),
    "huge_int_literal": (T + b"x = " + b"9" * 5000 + b"\n", "syntax error", 2),
    "deep_unary": (T + b"x = " + b"-" * 200_000 + b"1\n", "too deeply nested", 1),
    "deep_parens": (T + b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "syntax error: too many nested", 2),
    "deep_attribute_base": (T + b"class X(" + b"a." * 3000 + b"B):\n    pass\n", "too deeply nested", 1),
    "lone_backslash": (T + b"\\\n", "syntax error", 2),
}


def _project(tmp_path: Path, bad: bytes) -> Path:
    return write_tree(tmp_path / "proj", {
        "pkg/__init__.py": "",
        "pkg/good.py": BROKEN_OUTPUT,
        "pkg/bad.py": bad,
    })


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_unreadable_file_is_one_ppa000_and_the_run_goes_on(tmp_path: Path, name: str) -> None:
    content, reason, line = BAD_FILES[name]
    root = _project(tmp_path, content)
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/bad.py": {"PPA000"}, "pkg/good.py": {"PPA001"}}
    (bad,) = [f for f in findings if f.code == "PPA000"]
    assert reason in bad.message
    assert bad.span.line == line
    assert bad.span.column >= 1 and bad.span.end_line >= bad.span.line
    assert bad.symbol == "pkg.bad"
    good = next(f for f in findings if f.code == "PPA001")
    assert (good.symbol, good.span.line, good.span.column) == ("pkg.good.Broken", 4, 7)


def test_the_summarizer_never_raises_on_any_codec_cookie() -> None:
    """Every codec the interpreter knows, named in a coding cookie, over a few awkward bodies."""
    import encodings
    import pkgutil

    bodies = [b"x = 1\n", b"\xff\xfe\x00\x01", b"+AAA-\\x00\\", b"#" + bytes(range(1, 256)), b"x='\\udcff'\n"]
    for codec in sorted({m.name for m in pkgutil.iter_modules(encodings.__path__)}):
        for body in bodies:
            summary = summarize_source(b"# coding: " + codec.encode() + b"\n" + body, "f.py", "m", False)
            assert summary.error is None or summary.error.reason


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])  # Python ends a line, and reads a cookie, at each
@pytest.mark.parametrize("cookie", ["# -*- coding: latin-1 -*-", "# vim: set fileencoding=iso-8859-1 :",
                                    "#!/usr/bin/env python\n# coding=latin-1"])
def test_latin1_cookie_is_honoured(tmp_path: Path, cookie: str, newline: str) -> None:
    text = (f"{cookie}\nfrom {AUX} import DeviceAuxiliaryOutput\n"
            f"s = 'caf\xe9'\n\nclass Caf\xe9(DeviceAuxiliaryOutput):\n    '''d\xe9j\xe0 vu'''\n"
            f"    def copy_to_host(self, copy_tensor): return self\n")
    data = text.replace("\n", newline).encode("latin-1")
    compile(data, "latin.py", "exec")  # as the interpreter reads it
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/latin.py": data})
    (finding,) = run(root, no_cache=True).findings
    class_line = text.splitlines().index("class Caf\xe9(DeviceAuxiliaryOutput):") + 1
    assert (finding.code, finding.symbol, finding.span.line, finding.span.column) == \
        ("PPA001", "pkg.latin.Caf\xe9", class_line, 7)
    assert finding.span.end_column == 7 + len("Caf\xe9")


def test_utf8_bom_is_honoured(tmp_path: Path) -> None:
    text = "\ufeff" + f"import {AUX} as aux\nclass Bom(aux.DeviceAuxiliaryOutput):\n    pass\n"
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/bom.py": text.encode("utf-8")})
    (finding,) = run(root, no_cache=True).findings
    assert (finding.code, finding.symbol, finding.span.line, finding.span.column) == ("PPA001", "pkg.bom.Bom", 2, 7)


def test_all_kinds_at_once_through_the_console_script(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"pkg/__init__.py": "", "pkg/good.py": BROKEN_OUTPUT}
    files.update({f"pkg/bad_{name}.py": content for name, (content, _, _) in BAD_FILES.items()})
    root = write_tree(tmp_path / "proj", files)
    result = cli(["check", "--no-cache", "--output-format", "json", "."], root)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    found = {(f["path"], f["code"]) for f in json.loads(result.stdout)}
    expected = {(f"pkg/bad_{name}.py", "PPA000") for name in BAD_FILES} | {("pkg/good.py", "PPA001")}
    assert found == expected


# -- parser crashes ---------------------------------------------------------------------------------------

def _patch_crash(monkeypatch: pytest.MonkeyPatch, victim: str, how: str) -> None:
    _fork_anyway(monkeypatch)
    real = store._summarize_one
    parent = os.getpid()

    def crashing(item):
        if item[0].path.endswith(victim):
            assert os.getpid() != parent, "the parser must not run in the main process"
            crash(how)
        return real(item)

    monkeypatch.setattr(store, "_summarize_one", crashing)


def _fork_anyway(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork the workers even while this process runs threads (pytest's, torch's), which would have them
    spawned: only a fork carries the patched function, or the lambdas below, into a child.
    test_check_processes.py crashes the spawned children."""
    monkeypatch.setattr(children, "can_fork", lambda: True)


@pytest.mark.skipif(sys.platform != "linux", reason="parse isolation forks workers on Linux only")
@pytest.mark.parametrize("how", ["segfault", "abort", "exit", "exception"])
@pytest.mark.parametrize("count", [3, 60])  # 60 files: parsed by several workers in chunks
@pytest.mark.parametrize("scanned_in_workers", [False, True])  # True: a few files shared by the scan's workers
def test_a_parser_crash_is_that_files_ppa000_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str,
                                                   count: int, scanned_in_workers: bool) -> None:
    files = {"pkg/__init__.py": ""}
    files.update({f"pkg/m{i:02d}.py": BROKEN_OUTPUT for i in range(count)})
    root = write_tree(tmp_path / "proj", files)
    victim = f"pkg/m{count // 2:02d}.py"
    _patch_crash(monkeypatch, victim, how)
    if scanned_in_workers:
        monkeypatch.setattr(store, "PARALLEL_MIN_SCAN", 1)
    findings = run(root, no_cache=True).findings
    expected = {f"pkg/m{i:02d}.py": {"PPA001"} for i in range(count)}
    expected[victim] = {"PPA000"}
    assert by_file(findings, root) == expected
    crash = next(f for f in findings if f.code == "PPA000")
    assert "the parser crashed on this file" in crash.message
    if how == "segfault":
        assert "signal 11" in crash.message


@pytest.mark.skipif(sys.platform != "linux", reason="parse isolation forks workers on Linux only")
def test_a_parser_hang_is_that_files_ppa000_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the parser never finishes costs its own PPA000 after the timeout, not the run; the files that
    shared its child are summarized again, each in a child of its own."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/a.py": BROKEN_OUTPUT,
                                          "pkg/b.py": BROKEN_OUTPUT, "pkg/c.py": BROKEN_OUTPUT})
    _patch_crash(monkeypatch, "pkg/b.py", "hang")
    monkeypatch.setattr(store, "PARSE_TIMEOUT", 1.0)
    findings = run(root, no_cache=True).findings
    assert by_file(findings, root) == {"pkg/a.py": {"PPA001"}, "pkg/b.py": {"PPA000"}, "pkg/c.py": {"PPA001"}}
    (hang,) = [f for f in findings if f.code == "PPA000"]
    assert "the parser crashed on this file (its process timed out)" in hang.message


def _value(x: int) -> int:
    return x * 2


def _unpicklable(_: int):
    return lambda: None


@pytest.mark.skipif(sys.platform != "linux", reason="parse isolation forks workers on Linux only")
@pytest.mark.parametrize(("function", "how"), [
    (lambda _: crash("segfault"), "was killed by signal 11"),
    (lambda _: crash("exit"), "exited with code 139"),
    (lambda _: crash("exception"), "exited with code 1"),
    (_unpicklable, "exited with code 1"),  # pickling fails in the child
    (lambda _: crash("hang"), "timed out"),
])
def test_in_child_says_how_its_child_ended(monkeypatch: pytest.MonkeyPatch, function, how: str) -> None:
    from ppaux_lint.support.workers import ChildFailed, in_child

    _fork_anyway(monkeypatch)
    assert in_child(_value, 21, timeout=10.0) == 42
    with pytest.raises(ChildFailed, match=f"^{how}$"):
        in_child(function, 0, timeout=1.0)


@pytest.mark.skipif(sys.platform != "linux", reason="parse isolation forks workers on Linux only")
def test_a_crash_is_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed from outside (OOM killer) must not leave a PPA000 that outlives it."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/a.py": BROKEN_OUTPUT,
                                          "pkg/b.py": BROKEN_OUTPUT})
    with monkeypatch.context() as patch:
        _patch_crash(patch, "pkg/a.py", "segfault")
        assert by_file(run(root).findings, root) == {"pkg/a.py": {"PPA000"}, "pkg/b.py": {"PPA001"}}
    assert by_file(run(root).findings, root) == {"pkg/a.py": {"PPA001"}, "pkg/b.py": {"PPA001"}}


def test_deep_and_long_expressions_do_not_take_the_run_down(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/good.py": BROKEN_OUTPUT,
        "pkg/unary.py": TOKEN_LINE + "x = " + "-" * 300_000 + "1\n",
        "pkg/sum.py": TOKEN_LINE + "x = " + "+".join(["1"] * 100_000) + "\n",
        "pkg/calls.py": TOKEN_LINE + "x = f" + "()" * 20_000 + "\n",
        "pkg/lists.py": TOKEN_LINE + "x = " + "[" * 150 + "]" * 150 + "\n",  # deep but legal
        "pkg/ifs.py": TOKEN_LINE + "".join("    " * i + "if x:\n" for i in range(99)) + "    " * 99 + "pass\n",
        "pkg/long_line.py": TOKEN_LINE + "x = [" + "1, " * 500_000 + "]\n",
    }
    root = write_tree(tmp_path / "proj", files)
    result = by_file(run(root, no_cache=True).findings, root)
    assert result["pkg/good.py"] == {"PPA001"}
    for legal in ("pkg/lists.py", "pkg/ifs.py", "pkg/long_line.py"):
        assert legal not in result
    for deep in ("pkg/unary.py", "pkg/calls.py"):
        assert result[deep] == {"PPA000"}
    # Python 3.10's parser still reads a sum of 100,000 terms (3.11 refuses it as too deep): either way its file
    # is judged alone, and the run goes on
    assert result.get("pkg/sum.py", set()) == ({"PPA000"} if sys.version_info >= (3, 11) else set())


WARNS = f"""\
from {AUX} import DeviceAuxiliaryOutput
x = 1if True else 2
pattern = "\\d+"


class Noisy(DeviceAuxiliaryOutput):
    def to_pp_tensors(self) -> "1if x else y":
        return {{"a": self.a}}


class Quiet(DeviceAuxiliaryOutput):
    pass
"""


def test_the_checked_codes_syntax_warnings_never_turn_into_errors(tmp_path: Path) -> None:
    """Under PYTHONWARNINGS=error a SyntaxWarning (``1if``) would make ast.parse fail a valid file."""
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/warns.py": WARNS})
    result = cli(["check", "--no-cache", "--output-format", "json", "."], root, env={"PYTHONWARNINGS": "error"})
    assert result.returncode == 1, result.stderr
    assert {(f["symbol"], f["code"]) for f in json.loads(result.stdout)} == {("pkg.warns.Quiet", "PPA001")}


def test_the_engine_prints_none_of_the_checked_codes_syntax_warnings(tmp_path: Path, capfd) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/warns.py": WARNS})
    assert by_file(run(root, no_cache=True).findings, root) == {"pkg/warns.py": {"PPA001"}}
    assert "SyntaxWarning" not in capfd.readouterr().err


def test_the_cli_prints_none_of_the_checked_codes_syntax_warnings(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/warns.py": WARNS})
    result = cli(["check", "--no-cache", "."], root)
    assert result.returncode == 1 and "SyntaxWarning" not in result.stderr, result.stderr


@given(st.lists(st.integers(min_value=0, max_value=200_000), max_size=120), st.integers(min_value=1, max_value=8))
def test_parse_tasks_share_the_files_and_their_bytes(sizes: list[int], jobs: int) -> None:
    """Every file is parsed in exactly one task, largest first within it; a little work goes in one task per
    worker, none of which carries more than another plus the largest file, so no worker waits on another."""
    tasks = store._chunks(sizes, jobs)
    assert sorted(i for task in tasks for i in task) == list(range(len(sizes)))
    for task in tasks:
        assert [sizes[i] for i in task] == sorted((sizes[i] for i in task), reverse=True)
    if sizes and len(sizes) < store.PARALLEL_MIN_FILES:
        assert len(tasks) == min(jobs, len(sizes))
        loads = [sum(sizes[i] for i in task) for task in tasks]
        assert max(loads) - min(loads) <= max(sizes)
