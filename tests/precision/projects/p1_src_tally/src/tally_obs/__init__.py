"""Sampling statistics for SGLang."""

from tally_obs.observers import (
    CalibrationObserver,
    EntropyObserver,
    HistogramObserver,
    LengthObserver,
    MarginObserver,
    RowStatsObserver,
    TokenCounterObserver,
    TopKObserver,
)

__all__ = [
    "CalibrationObserver",
    "EntropyObserver",
    "HistogramObserver",
    "LengthObserver",
    "MarginObserver",
    "RowStatsObserver",
    "TokenCounterObserver",
    "TopKObserver",
]
