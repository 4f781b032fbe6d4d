"""``check --fix``, ``--diff`` and ``--unsafe-fixes``: libcst codemods driven by findings."""

from __future__ import annotations

import difflib
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from ppaux_lint import fixes
from ppaux_lint.check.engine import analyze
from ppaux_lint.facts.findings import Edit
from ppaux_lint.fixes import apply as fix_apply
from ppaux_lint.rules import rule_document

from .conftest import run_cli

OUTPUT_ONLY = {
    "pkg/__init__.py": "",
    "pkg/outputs.py": """
        from dataclasses import dataclass

        import torch


        @dataclass
        class ScoreOutput:
            scores: torch.Tensor
            ranks: torch.Tensor

            def copy_to_host(self, copy_tensor):
                return ScoreOutput(copy_tensor(self.scores), copy_tensor(self.ranks))
    """,
}

PAIR = {
    "pkg/__init__.py": "",
    "pkg/plugin.py": """
        from dataclasses import dataclass

        import torch


        @dataclass
        class Host:
            scores: torch.Tensor

            def consume(self, batch, commits):
                pass


        @dataclass
        class ScoreOutput:
            scores: torch.Tensor
            ranks: torch.Tensor

            def copy_to_host(self, copy_tensor):
                return Host(copy_tensor(self.scores))


        class ScoreObserver:
            def is_active(self, sampling_info):
                return True

            def after_sample(self, state, token_ids):
                return ScoreOutput(scores=state.max(dim=-1).values, ranks=token_ids)
    """,
}


def example(code: str, title: str = "Example") -> str:
    match = re.search(rf"## {re.escape(title)}\n```python\n(.*?)```", rule_document(code), re.S)
    assert match, f"{code} has no {title} block"
    return match.group(1)


def read(root: Path, relative: str) -> str:
    with open(root / relative, encoding="utf-8", newline="") as handle:
        return handle.read()


def diff_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """Lines removed and (non-blank) lines added; blank lines are left out because a diff may pair any of
    several identical blank lines (the full text is checked where spacing matters)."""
    removed, added = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ ") and line[2:].strip():
            added.append(line[2:])
    return removed, added


def lines_added_by_fix(root: Path, relative: str) -> list[str]:
    """The (non-blank) lines ``check --fix --unsafe-fixes`` adds to ``relative``, which must lose none."""
    before = read(root, relative)
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    removed, added = diff_lines(before, read(root, relative))
    assert removed == []
    return added


def assert_clean_and_compiles(root: Path, *files: str) -> None:
    for relative in files:
        compile(read(root, relative), relative, "exec")
    result = run_cli("check", ".")
    assert result.exit_code == 0, result.stdout


# -- the rule documents' own examples --------------------------------------------------------------------
@pytest.mark.parametrize("code", ["PPA001", "PPA002", "PPA017"])
def test_fix_turns_the_documented_bad_example_into_the_documented_good_one(project, code: str) -> None:
    root = project({"example.py": example(code)})
    result = run_cli("check", "--fix", "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.stdout
    assert re.search(r"Found \d+ errors? \((\d+) fixed, 0 remaining\)\.", result.stdout)
    assert read(root, "example.py") == example(code, "Use instead")
    assert_clean_and_compiles(root, "example.py")


def test_the_near_miss_rename_is_safe(project) -> None:
    root = project({"example.py": example("PPA017")})
    result = run_cli("check", "--fix", ".")
    assert result.exit_code == 0, result.stdout
    assert read(root, "example.py") == example("PPA017", "Use instead")


# -- --diff, --unsafe-fixes, what each output says -------------------------------------------------------
def test_diff_prints_and_writes_nothing(project) -> None:
    root = project({"example.py": example("PPA017")})
    before = read(root, "example.py")
    result = run_cli("check", "--diff", ".")
    assert result.exit_code == 1
    assert read(root, "example.py") == before
    assert result.stdout.startswith("--- a/example.py\n+++ b/example.py\n@@ ")
    assert "-    def to_pp_tensor(self):\n+    def to_pp_tensors(self):\n" in result.stdout
    assert "-    def from_pp_tensor(self, tensors):\n+    def from_pp_tensors(self, tensors):\n" in result.stdout
    assert "Would fix 2 errors." in result.stderr
    run_cli("check", "--fix", ".")  # the diff is exactly what --fix then writes
    fixed = read(root, "example.py")
    expected = "".join(difflib.unified_diff(before.splitlines(True), fixed.splitlines(True),
                                            "a/example.py", "b/example.py"))
    assert result.stdout == expected


def test_diff_on_nothing_to_fix_exits_zero(project) -> None:
    project(OUTPUT_ONLY)  # only an unsafe fix exists
    result = run_cli("check", "--diff", ".")
    assert result.exit_code == 0 and result.stdout == ""
    assert "No errors would be fixed." in result.stderr


def test_unsafe_fixes_need_the_flag(project) -> None:
    root = project(OUTPUT_ONLY)
    before = read(root, "pkg/outputs.py")
    result = run_cli("check", "--fix", ".")
    assert result.exit_code == 1
    assert read(root, "pkg/outputs.py") == before
    assert "1 hidden fix can be enabled with the `--unsafe-fixes` option" in result.stdout
    diff = run_cli("check", "--diff", "--unsafe-fixes", ".")
    assert diff.exit_code == 1 and "+    def to_pp_tensors(self):" in diff.stdout
    assert read(root, "pkg/outputs.py") == before


def test_every_finding_says_whether_a_fix_exists(project) -> None:
    project({**PAIR, "pkg/other.py": """
        class Blob:
            def copy_to_host(self, copy_tensor):
                return self
    """, "pkg/near.py": """
        class Near:
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensor(self):
                return {}
    """})
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    fix_of = {(r["code"], r["symbol"].rsplit(".", 1)[-1]): r["fix"] for r in records}
    assert fix_of[("PPA001", "ScoreOutput")] == {
        "description": "Add `to_pp_tensors` returning `scores`, `ranks`", "applicability": "unsafe"}
    assert fix_of[("PPA002", "ScoreObserver")]["applicability"] == "unsafe"
    assert fix_of[("PPA017", "Near")] == {"description": "Rename `to_pp_tensor` to `to_pp_tensors`",
                                         "applicability": "safe"}
    assert fix_of[("PPA001", "Blob")] is None  # no tensor fields to send: no fix
    full = run_cli("check", "--output-format", "full", ".").stdout
    assert "help: Rename `to_pp_tensor` to `to_pp_tensors`\n" in full
    assert "help: Add `to_pp_tensors` returning `scores`, `ranks` (unsafe: needs --unsafe-fixes)" in full
    assert "[*] 1 fixable with the `--fix` option (2 hidden fixes can be enabled with the `--unsafe-fixes` option)." \
        in full


def test_fix_reports_what_it_fixed_and_what_remains(project) -> None:
    project({**PAIR, "pkg/other.py": """
        class Blob:
            def copy_to_host(self, copy_tensor):
                return self
    """})
    result = run_cli("check", "--fix", "--unsafe-fixes", "--show-fixes", "--output-format", "concise", ".")
    assert result.exit_code == 1
    assert "Fixed 2 errors:\n- pkg/plugin.py:\n    1 × PPA001 (output-missing-to-pp-tensors)\n" \
           "    1 × PPA002 (observer-missing-from-pp-tensors)\n" in result.stdout
    assert "Found 3 errors (2 fixed, 1 remaining)." in result.stdout
    assert result.stdout.startswith("pkg/other.py:1:7: PPA001 ")


def test_fix_is_idempotent(project) -> None:
    root = project(PAIR)
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    once = read(root, "pkg/plugin.py")
    again = run_cli("check", "--fix", "--unsafe-fixes", ".")
    assert again.exit_code == 0 and "All checks passed!" in again.stdout
    assert read(root, "pkg/plugin.py") == once


# -- generated code: in the file's own style, touching nothing else -------------------------------------
def test_generated_pair_adds_lines_only_and_passes_check(project) -> None:
    root = project(PAIR)
    before = read(root, "pkg/plugin.py")
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    after = read(root, "pkg/plugin.py")
    removed, added = diff_lines(before, after)
    assert removed == []
    assert added == [
        "    def to_pp_tensors(self):",
        '        return {"scores": self.scores, "ranks": self.ranks}',
        "    def from_pp_tensors(self, tensors):",
        '        return ScoreOutput(scores=tensors["scores"], ranks=tensors["ranks"])',
    ]
    assert "        return Host(copy_tensor(self.scores))\n\n    def to_pp_tensors(self):\n" in after
    assert '"ranks": self.ranks}\n\n\nclass ScoreObserver:\n' in after  # the two blank lines stay
    assert after.endswith("ranks=token_ids)\n\n    def from_pp_tensors(self, tensors):\n"
                          '        return ScoreOutput(scores=tensors["scores"], ranks=tensors["ranks"])\n')
    assert_clean_and_compiles(root, "pkg/plugin.py")


def test_two_space_indent_single_quotes_and_nesting(project) -> None:
    root = project({"pkg/__init__.py": "", "pkg/outs.py": """
        import torch

        NAMES = {'a': 1}


        class Holder:
          '''Outer.'''

          class DumpOutput:
            def __init__(self, logits: torch.Tensor, scale: float = 1.0):
              self.logits = logits
              self.scale = scale

            def copy_to_host(self, copy_tensor):
              return self
    """})
    assert lines_added_by_fix(root, "pkg/outs.py") == ["    def to_pp_tensors(self):",
                                                        "      return {'logits': self.logits}"]
    assert "      return self\n\n    def to_pp_tensors(self):\n" in read(root, "pkg/outs.py")
    assert_clean_and_compiles(root, "pkg/outs.py")


def test_an_init_whose_self_has_a_default_lines_its_defaults_up_with_every_parameter(project) -> None:
    """Python gives the defaults to the last positional parameters, ``self`` among them when every one has one:
    lined up against the parameters after ``self``, they fell one short, and no fix was offered."""
    root = project({"pkg/__init__.py": "", "pkg/outs.py": """
        import torch


        class DumpOutput:
            def __init__(self=None, logits: torch.Tensor = 0, scale: float = None):
                self.logits = logits
                self.scale = scale

            def copy_to_host(self, copy_tensor):
                return self


        class KeywordOutput:
            def __init__(self=None, *, logits: torch.Tensor, scale: float = 1.0):
                self.logits = logits
                self.scale = scale

            def copy_to_host(self, copy_tensor):
                return self
    """})
    # lined up one short, ``logits`` would take ``scale``'s None and could not travel: no fix at all
    assert lines_added_by_fix(root, "pkg/outs.py") == [
        "    def to_pp_tensors(self):", '        return {"logits": self.logits}',
        "    def to_pp_tensors(self):", '        return {"logits": self.logits}']
    assert_clean_and_compiles(root, "pkg/outs.py")


def test_tabs_crlf_and_wrapping_at_the_configured_line_length(project) -> None:
    source = ("import torch\r\n\r\n\r\nclass WideOutput:\r\n"
              "\tdef __init__(self, alpha_values: 'torch.Tensor', beta_values: 'torch.Tensor'):\r\n"
              "\t\tself.alpha_values = alpha_values\r\n\t\tself.beta_values = beta_values\r\n\r\n"
              "\tdef copy_to_host(self, c):\r\n\t\treturn self\r\n\r\n\r\n"
              "class WideObserver:\r\n\tdef is_active(self, info):\r\n\t\treturn True\r\n\r\n"
              "\tdef after_sample(self, state, ids):\r\n\t\treturn WideOutput(state, ids)\r\n")
    root = project({"pkg/__init__.py": "", "pkg/wide.py": source.encode()}, config="[tool.ruff]\nline-length = 60\n")
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    after = read(root, "pkg/wide.py")
    assert "\n" not in after.replace("\r\n", "")  # every newline is still CRLF
    removed, added = diff_lines(source.replace("\r\n", "\n"), after.replace("\r\n", "\n"))
    assert removed == []
    assert added == [
        "\tdef to_pp_tensors(self):",
        "\t\treturn {",
        "\t\t\t'alpha_values': self.alpha_values,",
        "\t\t\t'beta_values': self.beta_values,",
        "\t\t}",
        "\tdef from_pp_tensors(self, tensors):",
        "\t\treturn WideOutput(",
        "\t\t\talpha_values=tensors['alpha_values'],",
        "\t\t\tbeta_values=tensors['beta_values'],",
        "\t\t)",
    ]
    assert "\t\treturn self\r\n\r\n\tdef to_pp_tensors(self):\r\n" in after
    assert "\t\t}\r\n\r\n\r\nclass WideObserver:" in after
    assert_clean_and_compiles(root, "pkg/wide.py")


# -- byte-exact: a fix changes its own text and nothing else -------------------------------------------
NEAR_BYTES = (b"class Near:\n    def copy_to_host(self, c):\n        return self\n\n    def to_pp_tensor(self):\n"
              b"        return {\"x\": self.x}\n")
CR = NEAR_BYTES.replace(b"\n", b"\r")


@pytest.mark.parametrize("source", [
    CR,
    CR + b"\r\r",
    NEAR_BYTES.replace(b"\n", b"\r\n"),
    b"class Near:\r\n    def copy_to_host(self, c):\n        return self\r\r\n    def to_pp_tensor(self):\n"
    b"        return {\"x\": self.x}\r",
    NEAR_BYTES[:-1],
    CR[:-1],
    b"\xef\xbb\xbf" + NEAR_BYTES,
    b"# -*- coding: latin-1 -*-\r\n# caf\xe9\r\n" + NEAR_BYTES.replace(b"\n", b"\r\n"),
    b"\x0c\n" + NEAR_BYTES + b"# the end  ",
], ids=["CR", "CR, blank lines at the end", "CRLF", "mixed", "no final newline", "CR, no final newline", "BOM",
        "coding cookie", "form feed, a comment at the end"])
def test_a_fix_changes_no_byte_but_its_own(project, source: bytes) -> None:
    root = project({"near.py": source})
    result = run_cli("check", "--fix", ".")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (root / "near.py").read_bytes() == source.replace(b"def to_pp_tensor(", b"def to_pp_tensors(")


@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["CR", "CRLF"])
@pytest.mark.parametrize("end", ["\n", ""], ids=["final newline", "no final newline"])
def test_generated_methods_end_as_the_file_ends(project, newline: str, end: str) -> None:
    """The generated pair lands at the end of the file: with another newline it is the LF result, newline for
    newline, down to the last byte."""
    lf = textwrap.dedent(PAIR["pkg/plugin.py"]).lstrip("\n").rstrip("\n") + end
    root = project({"pkg/__init__.py": "", "pkg/plugin.py": lf.encode()})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    expected = (root / "pkg" / "plugin.py").read_bytes()
    assert expected.endswith(b"])" + end.encode())
    (root / "pkg" / "plugin.py").write_bytes(lf.replace("\n", newline).encode())
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    assert (root / "pkg" / "plugin.py").read_bytes() == expected.replace(b"\n", newline.encode())


def test_return_annotations_when_the_neighbours_have_them(project) -> None:
    root = project({"pkg/__init__.py": "", "pkg/typed.py": """
        from dataclasses import dataclass

        from torch import Tensor


        @dataclass
        class TypedOutput:
            values: Tensor

            def copy_to_host(self, copy_tensor) -> "TypedOutput":
                return self


        class TypedObserver:
            def is_active(self, sampling_info) -> bool:
                return True

            def after_sample(self, state, token_ids) -> TypedOutput:
                return TypedOutput(state)
    """})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    text = read(root, "pkg/typed.py")
    assert "    def to_pp_tensors(self) -> dict[str, Tensor]:\n" in text
    assert "    def from_pp_tensors(self, tensors) -> TypedOutput:\n" in text
    assert_clean_and_compiles(root, "pkg/typed.py")


# -- PPA002 across modules -----------------------------------------------------------------------------
OUTS = """
    from dataclasses import dataclass, field

    import torch


    @dataclass
    class ScoreOutput:
        scores: torch.Tensor
        ids: torch.Tensor
        note: str = "x"
        count: int = field(default=0)

        def copy_to_host(self, copy_tensor):
            return self

        def to_pp_tensors(self):
            return {"s": self.scores, "i": self.ids}
"""


def test_observer_in_another_module_reuses_its_import(project) -> None:
    root = project({"pkg/__init__.py": "", "pkg/outs.py": OUTS, "pkg/obs.py": """
        import pkg.outs as o


        class Obs:
            def is_active(self, info):
                return True

            def after_sample(self, state, ids):
                return o.ScoreOutput(state, ids)
    """})
    before = read(root, "pkg/obs.py")
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    removed, added = diff_lines(before, read(root, "pkg/obs.py"))
    assert removed == []
    # keys as the output sends them, in its order, mapped back to its fields
    assert added == ["    def from_pp_tensors(self, tensors):",
                     '        return o.ScoreOutput(scores=tensors["s"], ids=tensors["i"])']
    assert_clean_and_compiles(root, "pkg/obs.py")


def test_a_type_checking_only_import_gets_a_runtime_one(project) -> None:
    root = project({"pkg/__init__.py": "", "pkg/outs.py": OUTS, "pkg/obs.py": '''
        """Observers."""
        from __future__ import annotations

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg.outs import ScoreOutput


        def make(state):
            from pkg.outs import ScoreOutput
            return ScoreOutput(state, state)


        class Obs:
            def is_active(self, info):
                return True

            def after_sample(self, state, ids) -> ScoreOutput:
                return make(state)
    '''})
    before = read(root, "pkg/obs.py")
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    assert records[0]["fix"]["description"] == (
        "Add `from_pp_tensors` rebuilding `ScoreOutput` from `s`, `i` (imports `ScoreOutput` from `pkg.outs`)")
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    removed, added = diff_lines(before, read(root, "pkg/obs.py"))
    assert removed == []
    assert added == ["from pkg.outs import ScoreOutput", "    def from_pp_tensors(self, tensors) -> ScoreOutput:",
                     '        return ScoreOutput(scores=tensors["s"], ids=tensors["i"])']
    assert_clean_and_compiles(root, "pkg/obs.py")


# -- when there is no fix ------------------------------------------------------------------------------
NEAR_MISS = """
    class Near:
        def copy_to_host(self, c):
            return self

        def to_pp_tensor(self):
            return {"x": self.x}
"""


# Code after the class deletes the method a fix would write into its body: fixed, the finding stayed, and each
# pass of --fix (which runs until nothing changes) added the method again, ten times.
DELETED_AFTER = """
    import torch
    from dataclasses import dataclass


    @dataclass
    class Out:
        x: torch.Tensor

        def copy_to_host(self, c):
            return self

        def to_pp_tensors(self):
            return {{"x": self.x}}


    class Obs:
        def is_active(self, i):
            return True

        def after_sample(self, s, t):
            return Out(s)


    {after}
"""


@pytest.mark.parametrize("files, code", [
    ({"m.py": """
        import torch
        from dataclasses import dataclass


        @dataclass
        class Off:
            x: torch.Tensor
            to_pp_tensors = None

            def copy_to_host(self, c):
                return self
    """}, "PPA001"),  # switched off on purpose
    ({"m.py": """
        class NoTensors:
            def __init__(self, x: int):
                self.x = x

            def copy_to_host(self, c):
                return self
    """}, "PPA001"),  # nothing known to send
    ({"m.py": """
        import torch
        from dataclasses import dataclass


        @dataclass
        class Out:
            x: torch.Tensor
            label: str

            def copy_to_host(self, c):
                return self

            def to_pp_tensors(self):
                return {"x": self.x}


        class Obs:
            def is_active(self, i):
                return True

            def after_sample(self, s, t):
                return Out(s, "a")
    """}, "PPA002"),  # a required argument that does not travel
    ({"m.py": """
        import torch
        from dataclasses import dataclass


        @dataclass
        class Out:
            x: torch.Tensor

            def copy_to_host(self, c):
                return self

            def to_pp_tensors(self):
                return {name: getattr(self, name) for name in ("x",)}


        class Obs:
            def is_active(self, i):
                return True

            def after_sample(self, s, t):
                return Out(s)
    """}, "PPA002"),  # keys not statically known
    ({"m.py": NEAR_MISS + """
    def use(n):
        return n.to_pp_tensor()
    """}, "PPA017"),  # renaming the def alone would break a caller
    *(({"m.py": DELETED_AFTER.format(after=after)}, "PPA001")
      for after in ("del Out.to_pp_tensors", 'delattr(Out, "to_pp_tensors")')),
    *(({"m.py": DELETED_AFTER.format(after=after)}, "PPA002")
      for after in ("del Obs.from_pp_tensors", 'delattr(Obs, "from_pp_tensors")')),
    ({"m.py": NEAR_MISS.replace("def to_pp_tensor(", "def \uff54o_pp_tensor(")}, "PPA017"),  # NFKC-folded
])
def test_no_fix_is_offered_where_it_would_guess(project, files, code) -> None:
    project(files)
    records = [r for r in json.loads(run_cli("check", "--output-format", "json", ".").stdout) if r["code"] == code]
    assert records and all(r["fix"] is None for r in records)


def test_rename_also_renames_uses_inside_the_class(project) -> None:
    root = project({"m.py": NEAR_MISS + """
        def debug(self):
            return self.to_pp_tensor()
    """})
    assert run_cli("check", "--fix", ".").exit_code == 0
    text = read(root, "m.py")
    assert "to_pp_tensor(" not in text and text.count("to_pp_tensors") == 2


def test_rename_of_a_name_on_a_backslash_continued_line(project) -> None:
    """``def \\`` then the name on the next line: the finding points at the name, where a noqa or the fix finds
    it; the fix was claimed safe and applied nothing."""
    root = project({"m.py": NEAR_MISS.replace("def to_pp_tensor(self):", "def \\\n            to_pp_tensor(self):")})
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    [record] = [r for r in records if r["code"] == "PPA017"]
    assert (record["line"], record["column"]) == (6, 9)
    assert record["fix"] is not None
    assert run_cli("check", "--fix", ".").exit_code == 0
    assert "\n        to_pp_tensors(self):" in read(root, "m.py")
    assert_clean_and_compiles(root, "m.py")


def test_a_class_name_on_a_backslash_continued_line_takes_its_noqa(project) -> None:
    project({"m.py": """
        from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput


        class \\
                Out(DeviceAuxiliaryOutput):  # noqa: PPA001
            def copy_to_host(self, c):
                return self


        SAMPLE = Out()
    """})
    assert run_cli("check", ".").exit_code == 0


# -- several fixes in one file ---------------------------------------------------------------------------
def test_fixes_at_the_same_place_all_go_in(project) -> None:
    root = project({"m.py": """
        import torch
        from dataclasses import dataclass


        @dataclass
        class Both:
            x: torch.Tensor

            def copy_to_host(self, c):
                return self

            def is_active(self, i):
                return True

            def after_sample(self, s, t):
                return Both(s)
    """})
    result = run_cli("check", "--fix", "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.stdout
    text = read(root, "m.py")
    assert text.count("def to_pp_tensors(self):") == 1 and text.count("def from_pp_tensors(self, tensors):") == 1
    assert_clean_and_compiles(root, "m.py")


def test_edit_helpers_round_trip() -> None:
    old = "a\nb\nc\n"
    new = "a\nB\nc\nd\n"
    edits = fixes.line_edits(old, new)
    assert fixes.apply_edits(old, edits) == new
    assert all(isinstance(e, Edit) for e in edits)
    assert not fixes.overlaps(Edit(4, 4, "x"), Edit(4, 4, "y"))
    assert fixes.overlaps(Edit(2, 6, "x"), Edit(4, 4, "y"))
    assert not fixes.overlaps(Edit(0, 2, "x"), Edit(2, 4, "y"))


def test_a_fix_that_would_not_compile_is_dropped(project, monkeypatch) -> None:
    root = project(OUTPUT_ONLY)
    before = read(root, "pkg/outputs.py")
    monkeypatch.setattr(fix_apply, "transform", lambda plans, text, quote: text + "def broken(:\n")
    result = run_cli("check", "--fix", "--unsafe-fixes", ".")
    assert result.exit_code == 1
    assert read(root, "pkg/outputs.py") == before
    assert "could not fix PPA001 in pkg/outputs.py:" in result.stderr and "would not compile" in result.stderr


def test_fix_applies_only_to_the_selected_rules(project) -> None:
    root = project({**PAIR, "near.py": example("PPA017")})
    result = run_cli("check", "--fix", "--unsafe-fixes", "--select", "PPA017", ".")
    assert result.exit_code == 0
    assert "def to_pp_tensors" not in read(root, "pkg/plugin.py")
    assert read(root, "near.py") == example("PPA017", "Use instead")


def test_analysis_api(project) -> None:
    project(PAIR)
    analysis = analyze(["."])
    with_fixes = fixes.attach_fixes(analysis)
    assert [f.code for f in with_fixes] == [f.code for f in analysis.findings]
    assert all(f.fix is not None and not f.fix.safe and f.fix.edits == () for f in with_fixes)
    preview = fixes.preview(analysis, unsafe=True)
    assert len(preview.applied) == 2 and all(f.fix.edits for f in preview.applied)
    assert "libcst" in sys.modules  # materializing is the only place that needs it


# -- verify agrees ---------------------------------------------------------------------------------------
def test_verify_passes_on_a_generated_pair(project) -> None:
    pytest.importorskip("torch")
    verify_cli = pytest.importorskip("ppaux_lint.cli.verify")
    project(PAIR)
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    from click.testing import CliRunner

    result = CliRunner().invoke(verify_cli.verify, [".", "--device", "cpu", "--output-format", "json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.stdout + result.stderr
    payload = json.loads(result.stdout)
    rows = payload["results"] if isinstance(payload, dict) else payload
    assert {row["symbol"]: row["status"] for row in rows} == {"pkg.plugin.ScoreOutput": "pass",
                                                               "pkg.plugin.ScoreObserver": "pass"}


DATACLASS_MRO = """
    import dataclasses
    from dataclasses import dataclass, field
    from typing import ClassVar, Optional

    import torch


    @dataclasses.dataclass(frozen=True)
    class Base:
        a: torch.Tensor
        kind: ClassVar[str] = "x"


    @dataclass
    class Child(Base):
        d: int = field(init=False, default=0)
        e: "torch.Tensor" = field(default_factory=lambda: torch.zeros(1))
        scale: float = 1.0

        def copy_to_host(self, c):
            return self


    class Obs:
        def is_active(self, i):
            return True

        def after_sample(self, s, t):
            return Child(s, s)
"""


def test_dataclass_fields_follow_the_mro_and_skip_what_cannot_travel(project) -> None:
    """Inherited fields come first; ``init=False`` and a non-tensor with a default stay home (rebuilt as
    ``__init__`` makes them)."""
    root = project({"m.py": DATACLASS_MRO})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    text = read(root, "m.py")
    assert '        return {"a": self.a, "e": self.e}\n' in text
    assert '        return Child(a=tensors["a"], e=tensors["e"])\n' in text
    assert_clean_and_compiles(root, "m.py")


@pytest.mark.parametrize("field_line", [
    "b: torch.Tensor = field(default=None)",  # a tensor when given one (``Child(s, s)``), lost if not sent
    "c: Optional[torch.Tensor] = None",
    "probs: dataclasses.InitVar[torch.Tensor] = None",  # a parameter no field keeps
], ids=["none-default", "optional", "initvar"])
def test_no_fix_for_a_dataclass_whose_tensors_cannot_all_travel(project, field_line) -> None:
    """A generated pair would send the other fields and rebuild this one as its default: the tensor the observer
    gave it would be lost, silently, and ``check`` would pass. No fix is offered instead."""
    source = DATACLASS_MRO.replace("        scale: float = 1.0\n", f"        {field_line}\n")
    root = project({"m.py": source})
    before = read(root, "m.py")
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    assert {r["code"] for r in records} == {"PPA001", "PPA002"} and all(r["fix"] is None for r in records)
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 1
    assert read(root, "m.py") == before


@pytest.mark.parametrize("init", [
    "def __init__(self, ids: torch.Tensor, probs: torch.Tensor):\n        self.ids = ids\n"
    "        self.probs = probs.float()",  # stored transformed: ``probs`` is no attribute to send back
    "def __init__(self, ids: torch.Tensor, scores: torch.Tensor):\n        super().__init__(ids)\n"
    "        self.scores = scores",  # handed to the base's __init__, which this summary does not follow
], ids=["transformed", "super-init"])
def test_no_fix_for_an_output_a_required_tensor_of_which_cannot_travel(project, init) -> None:
    """The generated ``to_pp_tensors`` would leave that tensor home, and no ``from_pp_tensors`` could pass it back:
    the rebuild raises TypeError. No fix rather than one that breaks the round trip."""
    root = project({"m.py": f"""
        import torch


        class Base:
            def __init__(self, ids):
                self.ids = ids


        class Out(Base):
            {textwrap.indent(init, " " * 8).lstrip()}

            def copy_to_host(self, c):
                return self
    """})
    before = read(root, "m.py")
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    assert [(r["code"], r["fix"]) for r in records] == [("PPA001", None)]
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 1 and read(root, "m.py") == before


def test_no_fix_on_a_base_that_a_subclass_would_inherit_with_other_fields(project) -> None:
    """Fixing ``Base`` (alone, as pre-commit asks about its file) would give ``WithProbs`` a ``to_pp_tensors`` that
    leaves its ``probs`` home."""
    root = project({"pkg/__init__.py": "", "pkg/base.py": """
        from dataclasses import dataclass

        import torch


        @dataclass
        class Base:
            ids: torch.Tensor

            def copy_to_host(self, c):
                return self


        SAMPLE = Base(None)
    """, "pkg/sub.py": """
        from dataclasses import dataclass

        import torch

        from pkg.base import Base


        @dataclass
        class WithProbs(Base):
            probs: torch.Tensor
    """})
    assert run_cli("check", "--fix", "--unsafe-fixes", "pkg/base.py").exit_code == 1
    assert "to_pp_tensors" not in read(root, "pkg/base.py")
    assert run_cli("check", "--fix", "--unsafe-fixes", "pkg/sub.py").exit_code == 0  # its own fix sends both
    assert '        return {"ids": self.ids, "probs": self.probs}\n' in read(root, "pkg/sub.py")


def test_no_rename_when_a_subclass_overrides_the_misspelt_name(project) -> None:
    """Renamed in the base alone, ``Sub``'s ``to_pp_tensor`` would no longer override anything, and ``Sub`` would
    send what the base sends."""
    root = project({"pkg/__init__.py": "", "pkg/base.py": """
        class Base:
            def copy_to_host(self, c):
                return self

            def to_pp_tensor(self):
                return {"ids": self.ids}


        SAMPLE = Base()
    """, "pkg/sub.py": """
        from pkg.base import Base


        class Sub(Base):
            def to_pp_tensor(self):
                return {"ids": self.ids, "probs": self.probs}
    """})
    before = read(root, "pkg/base.py")
    assert run_cli("check", "--fix", "pkg/base.py").exit_code == 1 and read(root, "pkg/base.py") == before


def test_no_import_that_would_close_an_import_cycle(project) -> None:
    """``outputs`` imports ``obs`` at its top, so ``obs`` imports ``Out`` inside a function: a module-level import
    there would make ``import pkg.outputs`` fail (partially initialized module)."""
    root = project({"pkg/__init__.py": "", "pkg/outputs.py": """
        from dataclasses import dataclass

        import torch

        from pkg import obs


        @dataclass
        class Out:
            ids: torch.Tensor

            def copy_to_host(self, c):
                return self

            def to_pp_tensors(self):
                return {"ids": self.ids}


        DEFAULT = obs.Obs()
    """, "pkg/obs.py": """
        class Obs:
            def is_active(self, info):
                return True

            def after_sample(self, state, ids):
                from pkg.outputs import Out
                return Out(ids)
    """})
    before = read(root, "pkg/obs.py")
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    assert [(r["code"], r["fix"]) for r in records] == [("PPA002", None)]
    assert read(root, "pkg/obs.py") == before


def test_a_parameter_stored_twice_travels_once(project) -> None:
    """``self.raw_ids = ids`` beside ``self.ids = ids``: sent twice, the rebuild passed ``ids=`` twice, which does
    not compile, and both fixes were dropped after being announced."""
    root = project({"m.py": """
        import torch


        class Out:
            def __init__(self, ids: torch.Tensor):
                self.ids = ids
                self.raw_ids = ids

            def copy_to_host(self, c):
                return self


        class Obs:
            def is_active(self, i):
                return True

            def after_sample(self, s, t):
                return Out(t)
    """})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    text = read(root, "m.py")
    assert '        return {"ids": self.ids}\n' in text and '        return Out(ids=tensors["ids"])\n' in text
    assert_clean_and_compiles(root, "m.py")


def test_planning_and_reporting_do_not_import_libcst() -> None:
    import subprocess

    code = ("import sys; import ppaux_lint.fixes, ppaux_lint.cli.inventory, ppaux_lint.report.sarif, "
            "ppaux_lint.report.github; print('libcst' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_constructors_along_the_mro_come_from_the_summaries(project, monkeypatch) -> None:
    """Planning a fix reads each class's constructor from its summary (``summarize.constructors``): only the
    fixed class's own file is parsed again, however many files its bases are in, and the fields and ``__init__``
    parameters of every level still count, with the names each file imports resolved in that file."""
    root = project({
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import dataclasses

            import torch as th


            @dataclasses.dataclass
            class Level0:
                a: th.Tensor
                skip: int = dataclasses.field(init=False, default=0)
        """,
        "pkg/middle.py": """
            from dataclasses import dataclass, field

            from pkg.base import Level0


            @dataclass
            class Level1(Level0):
                b: "torch.Tensor" = field(default_factory=list)
                c: int = 0
        """,
        "pkg/leaf.py": """
            from dataclasses import dataclass

            import torch

            from pkg.middle import Level1


            @dataclass
            class Leaf(Level1):
                d: float = 0.5

                def copy_to_host(self, copy_tensor):
                    return self


            class LeafObserver:
                def after_sample(self, sampled, tokens):
                    return Leaf(sampled)

                def is_active(self, index):
                    return index >= 0
        """,
    })
    from ppaux_lint.fixes import sources

    parsed: list[str] = []
    tree = sources.Sources.tree

    def counted(self, path):
        parsed.append(Path(path).name)
        return tree(self, path)

    monkeypatch.setattr(sources.Sources, "tree", counted)
    analysis = analyze([root])
    planned = {p.finding.code: p for p in fixes.plan_fixes(analysis)}
    assert set(planned) == {"PPA001", "PPA002"}
    assert set(parsed) == {"leaf.py"}  # neither base.py nor middle.py
    to_pp, from_pp = planned["PPA001"].method, planned["PPA002"].method
    assert to_pp is not None and from_pp is not None
    assert to_pp.items == (("a", "a"), ("b", "b"))  # inherited first; init=False and non-tensor defaults stay home
    assert from_pp.constructor == "Leaf" and from_pp.items == (("a", "a"), ("b", "b"))


# -- hostile shapes a generated method would break on (each reproduced with SGLang's helpers first) -------------
OBSERVER_OF = """

    class Obs:
        def is_active(self, i):
            return True

        def after_sample(self, s, t):
            return {build}
"""


def _output(body: str, decorator: str = "@dataclass", build: str = "Out(s)") -> str:
    """A module with the output ``Out`` (``decorator``, then ``body`` as its first members) and an observer that
    returns ``build``; the project's own ``lint_project`` dedents nothing that starts at column 0."""
    members = textwrap.indent(textwrap.dedent(body).strip(), "    ")
    return ("import torch\nfrom dataclasses import InitVar, dataclass, field\n\n\n"
            + (f"{decorator}\n" if decorator else "") + f"class Out:\n{members}\n\n"
            + "    def copy_to_host(self, c):\n        return self\n" + textwrap.dedent(OBSERVER_OF.format(build=build)))


@pytest.mark.parametrize("source, code", [
    (_output("__ids: torch.Tensor"), "PPA001"),  # mangled: `{"__ids": self.__ids}` is another attribute
    (_output("def __init__(self, ids: torch.Tensor):\n    self.__ids = ids", decorator=""), "PPA001"),
    (_output("ids: torch.Tensor", decorator="@dataclass(init=False)"), "PPA001"),  # its __init__ is not the fields'
    (_output("ids: torch.Tensor\n\ndef __post_init__(self):\n    self.ids = self.ids.unsqueeze(-1)"), "PPA001"),
    (_output("def __init__(self, ids: torch.Tensor):\n    self.ids = ids\n    self.ids = self.ids.float() * 2",
             decorator=""), "PPA001"),  # rebuilt, the instance would be transformed twice
    (_output("def __init__(self, ids: torch.Tensor, *more: torch.Tensor):\n    self.ids = ids\n    self.more = more",
             decorator=""), "PPA001"),  # what *more carries would stay home
    (_output("def __init__(self, ids: torch.Tensor, **extra):\n    self.ids = ids\n    self.extra = extra",
             decorator=""), "PPA001"),
    (_output("ids: torch.Tensor\ntop: torch.Tensor = field(init=False)"), "PPA001"),  # set by the observer's hook
    (_output("ids: torch.Tensor\n\ndef to_pp_tensor(self):\n    return {'entropy': self.ids}"), "PPA002"),
], ids=["mangled-field", "mangled-attribute", "dataclass-init-false", "post-init-transforms", "init-transforms",
        "star-args", "star-star-kwargs", "init-false-tensor-field", "output-near-miss-sends-other-keys"])
def test_no_fix_where_the_rebuild_would_lose_or_break_a_tensor(project, source, code) -> None:
    project({"m.py": source})
    records = [r for r in json.loads(run_cli("check", "--output-format", "json", ".").stdout) if r["code"] == code]
    assert records and all(r["fix"] is None for r in records)


def test_no_to_pp_tensors_fix_when_the_observer_reads_through_a_misspelt_method(project) -> None:
    """The rename of ``from_pp_tensor`` comes with the same ``--fix``: the generated keys must be the ones it reads."""
    project({"m.py": _output("ent: torch.Tensor") + "\n    def from_pp_tensor(self, tensors):\n"
                                                        "        return Out(tensors['entropy'])\n"})
    records = json.loads(run_cli("check", "--output-format", "json", ".").stdout)
    assert {r["code"]: r["fix"] is None for r in records} == {"PPA001": True, "PPA017": False}


@pytest.mark.parametrize("method", ["async def to_pp_tensor(self):\n    return {'ids': self.ids}",
                                    "def to_pp_tensor(self):\n    yield 'ids', self.ids"], ids=["async", "generator"])
def test_no_rename_that_turns_a_near_miss_into_a_method_of_the_wrong_shape(project, method) -> None:
    """Renamed, an ``async def`` or a generator would be a ``to_pp_tensors`` that returns no mapping (PPA016)."""
    project({"m.py": _output(f"ids: torch.Tensor\n\n{method}")})
    records = [r for r in json.loads(run_cli("check", "--output-format", "json", ".").stdout) if r["code"] == "PPA017"]
    assert records and all(r["fix"] is None for r in records)


def test_no_fix_on_an_observer_a_subclass_would_inherit_while_returning_another_output(project) -> None:
    """``Scaled`` inherits the base's hook through ``make``; it returns ``ScaledOut``: a ``from_pp_tensors`` added to
    the base would rebuild ``Out`` for it, and its own PPA002 would vanish. The subclass gets its own fix first, and
    the base its fix in the next round, once no subclass would inherit it."""
    root = project({"m.py": """
        from dataclasses import dataclass

        import torch


        @dataclass
        class Out:
            ent: torch.Tensor

            def copy_to_host(self, c):
                return self

            def to_pp_tensors(self):
                return {"ent": self.ent}


        class ScaledOut(Out):
            pass


        class Obs:
            def is_active(self, i):
                return True

            def after_sample(self, s, t):
                return self.make(s)

            def make(self, s):
                return Out(s)


        class Scaled(Obs):
            def make(self, s):
                return ScaledOut(s)
    """})
    records = {r["symbol"]: r["fix"] for r in json.loads(run_cli("check", "--output-format", "json", ".").stdout)}
    assert records["m.Obs"] is None and records["m.Scaled"] is not None
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0  # the base's, once the subclass has its own
    text = read(root, "m.py")
    assert text.index('        return Out(ent=tensors["ent"])\n') < text.index("class Scaled(Obs):") \
        < text.index('        return ScaledOut(ent=tensors["ent"])\n')


def test_annotations_a_generated_method_can_evaluate(project) -> None:
    """The observer's return annotation names an output defined below it: quoted, or importing the module would
    raise NameError. The tensor type is named as the output's own module binds it (``T.Tensor`` is a base's)."""
    root = project({"pkg/__init__.py": "", "pkg/base.py": """
        from dataclasses import dataclass

        import torch as T


        @dataclass
        class Base:
            ent: T.Tensor
    """, "pkg/m.py": """
        from dataclasses import dataclass

        import torch

        from pkg.base import Base


        class Obs:
            def is_active(self, i) -> bool:
                return True

            def after_sample(self, s, t) -> "Out":
                return Out(s)


        @dataclass
        class Out(Base):
            def copy_to_host(self, c) -> "Out":
                return self
    """})
    assert run_cli("check", "--fix", "--unsafe-fixes", ".").exit_code == 0
    text = read(root, "pkg/m.py")
    assert '    def from_pp_tensors(self, tensors) -> "Out":\n' in text
    assert "    def to_pp_tensors(self) -> dict[str, torch.Tensor]:\n" in text
    assert_clean_and_compiles(root, "pkg/m.py")
    sys.path.insert(0, str(root))
    try:
        import importlib
        importlib.import_module("pkg.m")  # the annotations evaluate
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]


def test_diff_of_a_file_with_a_byte_order_mark_applies_as_a_patch(project) -> None:
    """``patch`` and ``git apply`` compare each hunk's old lines with the bytes on disk, the mark before the first
    line among them: the diff must show it, or the hunk at line 1 is refused."""
    root = project({"m.py": b"\xef\xbb\xbfclass Out:\n    def to_pp_tensor(self):\n        return {'a': self.a}\n\n"
                            b"    def copy_to_host(self, c):\n        return self\n"})  # the rename's hunk starts at line 1
    on_disk = (root / "m.py").read_bytes().decode("utf-8").splitlines(keepends=True)  # the mark kept, as patch sees it
    diff = run_cli("check", "--diff", ".").stdout.splitlines(keepends=True)
    hunks = [i for i, line in enumerate(diff) if line.startswith("@@")]
    assert hunks and diff[hunks[0]].startswith("@@ -1,")
    for start in hunks:
        first = int(re.match(r"@@ -(\d+)", diff[start]).group(1))
        old = []
        for line in diff[start + 1:]:
            if line.startswith(("@@", "---")):
                break
            if line.startswith((" ", "-")):
                old.append(line[1:])
        assert old == on_disk[first - 1:first - 1 + len(old)]
    assert on_disk[0].startswith("\ufeff")
