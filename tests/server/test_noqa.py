"""The "Disable PPA0xx for this line" edit: applied, it must silence exactly that finding, where the engine
reads noqa; and where a line cannot take a comment, there is no such edit."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from lintkit import IMPORT_AUX

from ppaux_lint.check.engine import Analysis, Options, analyze
from ppaux_lint.facts.findings import Finding
from ppaux_lint.fixes import apply_edits
from ppaux_lint.fixes.noqa import noqa_edit
from ppaux_lint.server.positions import Lines

MISSING = IMPORT_AUX + textwrap.dedent("""

    class Missing(DeviceAuxiliaryOutput):
        def copy_to_host(self, copy_tensor):
            return self
    """)


def check(root: Path, text: str) -> Analysis:
    path = str(root / "mod.py")
    return analyze([path], Options(overlays={path: text.encode("utf-8")}, no_cache=True))


def edit_for(root: Path, text: str) -> tuple[Finding, str | None]:
    analysis = check(root, text)
    finding = analysis.findings[0]
    (summary,) = [s for s in analysis.summaries if s.path == finding.path]
    edit = noqa_edit(finding, summary, Lines(text))
    return finding, None if edit is None else apply_edits(text, [edit])


@pytest.mark.parametrize(("line", "silenced"), [
    ("class Missing(DeviceAuxiliaryOutput):", "class Missing(DeviceAuxiliaryOutput):  # noqa: PPA001"),
    ("class Missing(DeviceAuxiliaryOutput):   ", "class Missing(DeviceAuxiliaryOutput):  # noqa: PPA001"),
    ("class Missing(DeviceAuxiliaryOutput):  # noqa: PPA013  (why)",
     "class Missing(DeviceAuxiliaryOutput):  # noqa: PPA013, PPA001  (why)"),
    ("class Missing(DeviceAuxiliaryOutput):  # see #12", "class Missing(DeviceAuxiliaryOutput):  # see #12  # noqa: PPA001"),
    # text like a noqa in a string is neither extended nor taken for a comment that silences already
    ('class Missing(DeviceAuxiliaryOutput, tag="# noqa: PPA002"):',
     'class Missing(DeviceAuxiliaryOutput, tag="# noqa: PPA002"):  # noqa: PPA001'),
    ('class Missing(DeviceAuxiliaryOutput, tag="# noqa"):', 'class Missing(DeviceAuxiliaryOutput, tag="# noqa"):  # noqa: PPA001'),
    ('class Missing(DeviceAuxiliaryOutput, tag="# noqa: PPA002"):  # noqa: PPA013',
     'class Missing(DeviceAuxiliaryOutput, tag="# noqa: PPA002"):  # noqa: PPA013, PPA001'),
])
def test_the_edit_silences_the_finding(tmp_path, line, silenced):
    text = MISSING.replace("class Missing(DeviceAuxiliaryOutput):", line)
    finding, fixed = edit_for(tmp_path, text)
    assert finding.code == "PPA001"
    assert fixed == MISSING.replace("class Missing(DeviceAuxiliaryOutput):", silenced)
    assert check(tmp_path, fixed).findings == []


def test_a_class_level_finding_gets_its_noqa_on_the_class_line(tmp_path):
    text = MISSING.replace("class Missing(DeviceAuxiliaryOutput):", "class Missing(\n    DeviceAuxiliaryOutput):")
    _, fixed = edit_for(tmp_path, text)
    assert fixed == text.replace("class Missing(\n", "class Missing(  # noqa: PPA001\n")
    assert check(tmp_path, fixed).findings == []


def test_no_edit_for_a_line_that_continues_or_ends_inside_a_string(tmp_path):
    _, fixed = edit_for(tmp_path, MISSING.replace("class Missing(", "class \\\n        Missing("))
    assert fixed is None  # the class line ends in a backslash
    text = IMPORT_AUX + textwrap.dedent('''

        class Empty(DeviceAuxiliaryOutput):
            def copy_to_host(self, copy_tensor):
                return self

            def to_pp_tensors(self):
                return {"a": self.a, "b": self.table["""
        """], "a": self.a}
        ''')
    finding, fixed = edit_for(tmp_path, text)
    assert finding.code == "PPA013"  # the second "a", on the line where the string ends
    assert fixed is not None and check(tmp_path, fixed).findings == []
    text = text.replace('"b": self.table["""\n"""], "a": self.a}', '"a": self.table["""\n"""], "b": self.a}')
    finding, fixed = edit_for(tmp_path, text)
    assert finding.code == "PPA013" and fixed is None  # the second "a" is on the line the string starts on


def test_the_edit_after_a_string_that_ends_on_the_line(tmp_path):
    """The noqa-like text in the string is not extended: a comment goes after it, at the line's end."""
    text = MISSING + textwrap.indent(textwrap.dedent('''
        def to_pp_tensors(self):
            return {"t": self.t, "u": self.u["""
        # noqa: PPA002""", "v"], "a": self.a.tolist()}
        '''), "    ")
    finding, fixed = edit_for(tmp_path, text)
    assert finding.code == "PPA012"
    assert fixed == text.replace('"a": self.a.tolist()}\n', '"a": self.a.tolist()}  # noqa: PPA012\n')
    assert check(tmp_path, fixed).findings == []
