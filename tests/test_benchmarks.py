"""The benchmark scripts reach into the code by name: a stage renamed in the code must fail here, not in the
middle of a benchmark run (``bench_phases.py`` once wrapped ``cli.main._report`` after it had moved)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench_phases():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module("bench_phases")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_every_phase_bench_phases_times_names_a_function_of_the_code(bench_phases):
    for module_name, attribute, phase in bench_phases.PHASES:
        owner = importlib.import_module(module_name)
        for name in attribute.split("."):
            assert hasattr(owner, name), f"{phase}: {module_name}.{attribute} is gone"
            owner = getattr(owner, name)
        assert callable(owner), f"{phase}: {module_name}.{attribute} is not callable"
        assert phase in bench_phases.PHASE_ORDER


def test_the_phases_table_adds_up_to_the_wall_time(bench_phases):
    rounds = [{"wall": 1.0, "imports": 0.1, "scan": 0.3, "summarize": 0.4}]
    table = bench_phases.table("tree", rounds, ruff=[0.5], start=0.05)
    assert "cold check 1.000 s, ruff 0.500 s (2.00x)" in table
    shares = {line.split()[0]: float(line.split()[-2]) for line in table.splitlines()[2:]}
    assert shares["other"] == pytest.approx(0.15)
    assert sum(shares.values()) == pytest.approx(1.0)
