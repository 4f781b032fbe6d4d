"""Findings against an independent oracle, and the same findings however they are computed (issue 5).

The property test draws class hierarchies spread over a package's modules
(see ``_hierarchies.py``), writes them out, runs ``check``, and compares the
reported PPA001/PPA002/PPA018 with what the oracle derives from Python's own
MRO over in-memory stand-ins. The same runs must give identical findings
without the prefilter, with a cold cache, with a warm cache, whatever the
lookahead guesses (nothing, half, too much), and one file at a time
(pre-commit style). The fixtures get the same equivalence checks, and so do
hierarchies whose class names extend each other (``TopK``, ``TopKMasked``;
``L1``, ``L10``), which the prefilter's token search sees as substrings of
each other.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from ppaux_lint.check import engine
from ppaux_lint.scan import lookahead

from ._hierarchies import Structure, chains, oracle, structures
from ._support import copy_fixture, key, run, write_tree

CODES = {"PPA001", "PPA002", "PPA018"}


def _write(structure: Structure) -> Path:
    root = Path(tempfile.mkdtemp(prefix="ppaux-hier-"))
    write_tree(root, structure.files)
    return root


def _show(structure: Structure) -> None:
    for path, text in sorted(structure.files.items()):
        note(f"--- {path}\n{text}")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(structures())
def test_findings_match_the_oracle(structure: Structure) -> None:
    expected = oracle(structure)
    assume(expected is not None)
    _show(structure)
    root = _write(structure)
    try:
        findings = run(root, no_cache=True).findings
        assert not [f for f in findings if f.code == "PPA000"]
        reported = {(f.symbol, f.code) for f in findings if f.code in CODES}
        assert reported == expected
    finally:
        shutil.rmtree(root, ignore_errors=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(structures())
def test_prefilter_cache_and_single_files_change_nothing(structure: Structure) -> None:
    assume(oracle(structure) is not None)
    _show(structure)
    root = _write(structure)
    try:
        _assert_equivalent(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.one_of(chains(), structures(max_classes=10, extending=True)))
def test_names_that_extend_each_other_match_the_oracle_with_and_without_the_prefilter(structure: Structure) -> None:
    expected = oracle(structure)
    assume(expected is not None)
    _show(structure)
    root = _write(structure)
    try:
        for prefilter in (True, False):
            findings = run(root, no_cache=True, prefilter=prefilter).findings
            assert {(f.symbol, f.code) for f in findings if f.code in CODES} == expected, f"prefilter={prefilter}"
    finally:
        shutil.rmtree(root, ignore_errors=True)


CHAINS = {  # each name extends the one before it, at its end, at its start, or as a number does
    "suffixes": ["TopK", "TopKMasked", "TopKMaskedScaled", "TopKMaskedScaledClamped", "TopKMaskedScaledClampedSoft"],
    "prefixes": ["TopK", "MaskedTopK", "ScaledMaskedTopK", "ClampedScaledMaskedTopK", "SoftClampedScaledMaskedTopK"],
    "numbers": [f"L{level}" for level in range(500)],
}


def _chain(names: list[str], one_module: bool) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """A hierarchy in which each class subclasses the one before it, every one built at module level, in one
    module or one module a class; and the PPA001 each must get (the root defines ``copy_to_host``, none
    defines ``to_pp_tensors``)."""
    files = {"pkg/__init__.py": ""}
    head = "from sglang.srt.managers.auxiliary_output import DeviceAuxiliaryOutput\n\n"
    bodies = [f"class {names[0]}(DeviceAuxiliaryOutput):\n    def copy_to_host(self, copy_tensor):\n        return self\n"]
    bodies += [f"class {name}({base}):\n    pass\n" for base, name in itertools.pairwise(names)]
    bodies = [f"{body}\n\nSAMPLE_{level} = {names[level]}()\n" for level, body in enumerate(bodies)]
    if one_module:
        files["pkg/chain.py"] = head + "\n\n".join(bodies)
        return files, {(f"pkg.chain.{name}", "PPA001") for name in names}
    files["pkg/m0.py"] = head + bodies[0]
    for level in range(1, len(names)):
        files[f"pkg/m{level}.py"] = f"from pkg.m{level - 1} import {names[level - 1]}\n\n\n{bodies[level]}"
    return files, {(f"pkg.m{level}.{name}", "PPA001") for level, name in enumerate(names)}


@pytest.mark.parametrize("one_module", [False, True], ids=["module-per-class", "one-module"])
@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_a_chain_of_extending_names_is_followed_to_its_end(tmp_path: Path, chain: str, one_module: bool) -> None:
    files, expected = _chain(CHAINS[chain], one_module)
    root = write_tree(tmp_path, files)
    for prefilter in (True, False):
        findings = run(root, no_cache=True, prefilter=prefilter).findings
        assert {(f.symbol, f.code) for f in findings} == expected, f"prefilter={prefilter}"
    if len(CHAINS[chain]) < 10:  # every other way too, where that takes a second, not half a minute
        _assert_equivalent(root)


def _no_guess(tokens, *graphs):
    """none: every round after the first searches every remaining file"""
    return frozenset(tokens)


def _half_guess(tokens, *graphs):
    """half the names reached: rounds alternate between the candidates and every remaining file"""
    guessed = sorted(lookahead.reach(tokens, *graphs) - frozenset(tokens))
    return frozenset(tokens) | frozenset(guessed[::2])


def _noisy_guess(tokens, *graphs):
    """every name reached, and names every file holds: everything is a candidate"""
    return lookahead.reach(tokens, *graphs) | {"import", "class", "def"}


GUESSES = (_no_guess, _half_guess, _noisy_guess)


def _assert_equivalent(root: Path, single_files: int | None = 3) -> None:
    reference = run(root, no_cache=True).findings
    expected = key(reference)
    assert key(run(root, no_cache=True, prefilter=False).findings) == expected, "prefilter"
    assert key(run(root).findings) == expected, "cold cache"
    assert key(run(root).findings) == expected, "warm cache"
    assert key(run(root, prefilter=False).findings) == expected, "warm cache without the prefilter"
    for guess in GUESSES:
        with mock.patch.object(engine, "reach", guess):
            assert key(run(root, no_cache=True).findings) == expected, f"lookahead: {guess.__doc__}"
    files = sorted(run(root, no_cache=True).discovery.targets)  # excluded files, given explicitly, are checked
    chosen = files if single_files is None else [f for f in files if "__init__" not in f][:single_files]
    for path in chosen:
        alone = key(run(root, [path]).findings)
        assert alone == [k for k in expected if k[1] == path], f"{path} checked alone"


@pytest.mark.parametrize("fixture", ["sample_plugin", "clean_plugin"])
def test_fixtures_are_equivalent_every_way(tmp_path: Path, fixture: str) -> None:
    root = copy_fixture(fixture, tmp_path)
    findings = run(root, no_cache=True).findings
    assert bool(findings) == (fixture == "sample_plugin")
    _assert_equivalent(root, single_files=None)
