"""d9_composites_factories with SGLang 0.5.23 installed: the plugin imports SGLang's own composite and
``append_auxiliary_output``, SGLang's helpers judge, and the verdicts are those written before verify ran
(``driven_corpus/d9_composites_factories/expected.json``), as without SGLang (``test_driven_corpus.py``).

Only the rows issue 34's items 3-5 are about are checked here: composites, classes made in functions, parts,
a base and a forward-only output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from .test_driven_corpus import CORPUS, describe, judge, load

pytest.importorskip("torch")

pytestmark = pytest.mark.slow

PROJECT = CORPUS / "d9_composites_factories"
CHECKED = ("composite.", "bundles.LogprobPart", "bundles.RankPart", "bundles.WindowPart", "bundles.BrokenBundle",
           "bases.", "forward.", "factories.", "exposed.")


def test_d9_gets_sglangs_verdicts_with_sglang_installed(sglang_site, tmp_path):
    target = shutil.copytree(PROJECT, tmp_path / PROJECT.name, ignore=shutil.ignore_patterns(
        "__pycache__", ".ppaux_lint_cache", "EXPECTED.md", "expected.json"))
    env = {**os.environ, "PYTHONPATH": str(sglang_site)}
    done = subprocess.run([sys.executable, "-m", "ppaux_lint", "verify", ".", "--device", "cpu", "--output-format",
                           "json"], cwd=target, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = json.loads(done.stdout)
    assert {row["helpers"] for row in rows} == {"sglang 0.5.23"}
    expects = [e for e in load(PROJECT) if not e.flags and not e.requires_no_sglang
               and e.symbol.removeprefix("combo_probe.").startswith(CHECKED)
               and e.symbol != "combo_probe.bundles.BrokenBundleObserver"]
    verdicts, _ = judge(expects, rows, ())
    assert len(verdicts) >= 18
    misses = [describe(v) for v in verdicts if not v.met]
    assert not misses, "\n".join(misses)
