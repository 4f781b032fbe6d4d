"""Under torchrun, rows are judged and worded as on one machine: the receiving rank's notes on a pass, its words
for a key never sent, and a pair's one failure on both rows cross the launch's link (``pair.py``) unchanged.

The project is ``driven_corpus/d10_verdicts``, whose expectations were written from SGLang's own code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .test_launch import _launch

pytest.importorskip("torch")
pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parent / "driven_corpus" / "d10_verdicts"


def test_a_launch_gives_the_verdicts_and_words_of_a_single_machine_run(tmp_path, process_marker):
    root = tmp_path / "d10"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("__pycache__", "EXPECTED.md", "expected.json"))
    [launched] = _launch([(root, ["--standalone", "--nproc-per-node", "2"], "")], process_marker)
    rows = launched.rows()
    expected = json.loads((PROJECT / "expected.json").read_text(encoding="utf-8"))
    checked = 0
    for symbol, entries in expected.items():
        for entry in entries if isinstance(entries, list) else [entries]:
            if entry["flags"] not in ([], ["--transport", "dist"]):
                continue
            row = rows[symbol.rpartition(".")[2]]
            assert row["status"] == entry["status"], (symbol, row["message"])
            for text in entry.get("message_contains", []):
                assert text in row["message"], (symbol, text, row["message"])
            checked += 1
    assert checked == 20
    assert rows["LabelledObserver"]["ranks"] == rows["LabelledOutput"]["ranks"] == [1, 0]
